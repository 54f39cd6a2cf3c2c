#!/bin/bash
# category_test.sh: a row is the category it names, or UNAVAILABLE with
# the reason (exit 3): never another category's mapping under its name.
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}" "${IB_WRITE_MT:?}"
scratch_dir dir

# run WANT_RC IB_WRITE_MT_ARGS...: output in $dir/out
run() {
	local want=$1 rc=0
	shift
	"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback -n 32 "$@" >"$dir/out" 2>&1 || rc=$?
	cat "$dir/out"
	[ "$rc" -eq "$want" ] || die "$*: exit $rc, want $want"
}

# 2 level-3 TDs get a uUAR each: nothing is shared
run 3 --threads=2 --endpoints=shared-uuar
grep -q "^ shared-uuar .*UNAVAILABLE: 2 threads got L2:2, not level 3" "$dir/out" ||
	die "shared-uuar with 2 threads is not unavailable"
echo "ok: shared-uuar, 2 threads: unavailable, with the levels it got"

# one thread (a rank under mpirun on a small node) shares nothing
run 3 --threads=1 --endpoints=levels
for cat in shared-dynamic shared-uuar mpi+threads; do
	grep -q "^ $cat .*UNAVAILABLE: 1 thread shares nothing" "$dir/out" ||
		die "$cat with 1 thread is not unavailable"
done
grep -q "^ dynamic .* L1:1 .* yes$" "$dir/out" || die "dynamic did not run"
echo "ok: levels, 1 thread: only dynamic runs, the others say why"

# where the levels hold, every row runs as its category
run 0 --threads=4 --endpoints=levels
grep -q "^ shared-uuar .* L3:4 .* yes$" "$dir/out" || die "shared-uuar, 4 threads"
echo "ok: levels, 4 threads: every row its own level"

# rows come in the order asked for; levels in level order 1, 2, 3, 4
order=$(awk '/^ (dynamic|shared-dynamic|shared-uuar|mpi\+threads|static) /{ printf "%s ", $1 }' "$dir/out")
[ "$order" = "dynamic shared-dynamic shared-uuar mpi+threads " ] ||
	die "levels in the order '$order'"
run 0 --threads=2 --endpoints=static,dynamic
order=$(awk '/^ (dynamic|static) /{ printf "%s ", $1 }' "$dir/out")
[ "$order" = "static dynamic " ] || die "static,dynamic ran as '$order'"
echo "ok: rows in the order asked for"

# one QP for 512 threads of 128 WQEs each is deeper than the device allows
run 3 --threads=512 -n 1 --endpoints=mpi+threads
grep -q "^ mpi+threads .*UNAVAILABLE: a QP of 512 threads x 128 WQEs is deeper than the device's max_qp_wr" "$dir/out" ||
	die "a too deep QP is not unavailable"
echo "ok: a QP deeper than the device allows: unavailable, with the reason"
