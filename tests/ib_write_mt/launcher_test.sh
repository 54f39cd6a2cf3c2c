#!/bin/bash
# launcher_test.sh mpirun|slurm PORT: the two ranks of a launcher take the
# server and client roles from its environment, and the client finds the
# server without a host argument. Run inside `mlx5emu run`.
set -uo pipefail
: "${IB_WRITE_MT:?}"
launcher=$1
port=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(--threads=2 -n 200 --endpoints=dynamic,mpi+threads -p "$port" --connect-timeout=60)

case $launcher in
mpirun)
	# Open MPI says both ranks are on this node: the server is local
	timeout 120 mpirun --allow-run-as-root --bind-to none -np 2 \
		--output-filename "$dir/rank" "$IB_WRITE_MT" "${args[@]}"
	rc=$?
	cat "$dir"/rank/1/rank.*/stdout "$dir"/rank/1/rank.*/stderr >"$dir/client" 2>/dev/null ||
		cat "$dir"/rank/*/rank.1/stdout "$dir"/rank/*/rank.1/stderr >"$dir/client" 2>/dev/null
	cat "$dir"/rank/*/rank.0/stdout "$dir"/rank/*/rank.0/stderr >"$dir/server" 2>/dev/null
	;;
slurm)
	# what srun -n 2 sets for two tasks on this node
	export SLURM_NTASKS=2 SLURM_JOB_NODELIST=localhost SLURM_NODELIST=localhost
	SLURM_PROCID=0 timeout 60 "$IB_WRITE_MT" "${args[@]}" >"$dir/server" 2>&1 &
	server=$!
	SLURM_PROCID=1 timeout 60 "$IB_WRITE_MT" "${args[@]}" >"$dir/client" 2>&1
	rc=$?
	wait $server || rc=$?
	;;
esac
echo "== server"; cat "$dir/server"
echo "== client"; cat "$dir/client"
echo "launcher exit status $rc"
[ "$rc" -eq 0 ] || exit 1
grep -q "Using client" "$dir/client" || { echo "FAIL: rank 1 was not the client"; exit 1; }
grep -q "mpi+threads, 2 threads: every slot and guard verified" "$dir/server" ||
	{ echo "FAIL: rank 0 did not serve"; exit 1; }
[ "$(grep -c ' L[1-4]:.* yes$' "$dir/client")" -eq 2 ] || { echo "FAIL: rows not verified"; exit 1; }
[ -z "$(jobs -rp)" ] || { echo "FAIL: processes left behind"; exit 1; }
echo ok
