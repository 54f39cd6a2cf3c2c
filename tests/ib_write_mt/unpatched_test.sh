#!/bin/bash
# unpatched_test.sh LIBDIR: ib_write_mt on an unpatched libibverbs/libmlx5
# (LIBDIR): the thread-domain categories are unavailable, with the reason
# and exit status 3; the others run. Run inside `mlx5emu run`.
set -uo pipefail
: "${IB_WRITE_MT:?}"
out=$(LD_LIBRARY_PATH=$1 "$IB_WRITE_MT" --loopback --threads=2 -n 64 \
	--endpoints=dynamic,static 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 3 ] || { echo "FAIL: exit $rc, want 3"; exit 1; }
echo "$out" | grep -q "dynamic .*UNAVAILABLE: libmlx5 has no thread-domain sharing levels" ||
	{ echo "FAIL: no reason"; exit 1; }
echo "$out" | grep -q "^ static .* yes$" || { echo "FAIL: static did not run"; exit 1; }
echo ok
