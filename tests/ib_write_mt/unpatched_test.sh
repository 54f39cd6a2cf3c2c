#!/bin/bash
# unpatched_test.sh LIBDIR: ib_write_mt on an unpatched libibverbs/libmlx5
# (LIBDIR): the thread-domain categories are unavailable, with the reason
# and exit status 3; the others run. Run inside `mlx5emu run`.
. "$(dirname "$0")/../lib.sh"
: "${IB_WRITE_MT:?}"
rc=0
out=$(LD_LIBRARY_PATH=$1 "$IB_WRITE_MT" --loopback --threads=2 -n 64 \
	--endpoints=dynamic,static 2>&1) || rc=$?
echo "$out"
[ "$rc" -eq 3 ] || die "exit $rc, want 3"
grep -q "dynamic .*UNAVAILABLE: libmlx5 has no thread-domain sharing levels" <<<"$out" ||
	die "no reason"
grep -q "^ static .* yes$" <<<"$out" || die "static did not run"
echo ok
