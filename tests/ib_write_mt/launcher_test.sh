#!/bin/bash
# launcher_test.sh mpirun|slurm PORT: the two ranks of a launcher take the
# server and client roles from its environment, and the client finds the
# server without a host argument. Run inside `mlx5emu run`.
. "$(dirname "$0")/../lib.sh"
: "${IB_WRITE_MT:?}"
launcher=$1
port=$2
scratch_dir dir
args=(--threads=2 -n 200 --endpoints=dynamic,mpi+threads -p "$port" --connect-timeout=60)

case $launcher in
mpirun)
	# Open MPI says both ranks are on this node: the server is local
	rc=0
	timeout 120 mpirun --allow-run-as-root --bind-to none -np 2 \
		--output-filename "$dir/rank" "$IB_WRITE_MT" "${args[@]}" || rc=$?
	cat "$dir"/rank/1/rank.*/stdout "$dir"/rank/1/rank.*/stderr >"$dir/client" 2>/dev/null ||
		cat "$dir"/rank/*/rank.1/stdout "$dir"/rank/*/rank.1/stderr >"$dir/client" 2>/dev/null ||
		true
	cat "$dir"/rank/*/rank.0/stdout "$dir"/rank/*/rank.0/stderr >"$dir/server" 2>/dev/null ||
		true
	;;
slurm)
	# what srun -n 2 sets for two tasks on this node
	export SLURM_NTASKS=2 SLURM_JOB_NODELIST=localhost SLURM_NODELIST=localhost
	SLURM_PROCID=0 timeout 60 "$IB_WRITE_MT" "${args[@]}" >"$dir/server" 2>&1 &
	server=$!
	rc=0
	SLURM_PROCID=1 timeout 60 "$IB_WRITE_MT" "${args[@]}" >"$dir/client" 2>&1 || rc=$?
	wait $server || rc=$?
	;;
esac
echo "== server"; cat "$dir/server"
echo "== client"; cat "$dir/client"
echo "launcher exit status $rc"
[ "$rc" -eq 0 ] || exit 1
grep -q "Using client" "$dir/client" || die "rank 1 was not the client"
grep -q "mpi+threads, 2 threads: every slot and guard verified" "$dir/server" ||
	die "rank 0 did not serve"
[ "$(grep -c ' L[1-4]:.* yes$' "$dir/client")" -eq 2 ] || die "rows not verified"
[ -z "$(jobs -rp)" ] || die "processes left behind"
echo ok
