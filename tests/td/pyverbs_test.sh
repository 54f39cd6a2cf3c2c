#!/usr/bin/env bash
# pyverbs_test.sh RUN_TESTS MAX_SKIPPED MODULE...: run upstream-style pyverbs
# test modules and fail when more than MAX_SKIPPED of them skip, so that a
# device that silently vanished cannot pass as "OK (skipped=20)".
. "$(dirname "$0")/../lib.sh"
run_tests=$1
max_skipped=$2
shift 2
rc=0
out=$("$run_tests" -v "$@" 2>&1) || rc=$?
echo "$out"
ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in.*/\1/p' <<<"$out")
skipped=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$out" | tail -n1)
[ $rc -eq 0 ] || exit $rc
[ "${ran:-0}" -gt 0 ] || die "no test ran"
[ "${skipped:-0}" -le "$max_skipped" ] ||
	die "$skipped of $ran tests skipped (at most $max_skipped may)"
