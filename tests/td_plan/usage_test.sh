#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ib_td_plan's command line: --help and --version, and bad input refused
# with a message and exit status 1 before any device is touched.
# usage: usage_test.sh IB_TD_PLAN
set -u
plan=$1
fail=0

"$plan" --help >help.out 2>&1 || { echo "FAIL --help exits $?"; fail=1; }
for opt in --ranks --threads --contexts --devx-uars --context-uars \
	--device-uars --ladder --probe --json --out_json --out_json_file \
	--ib-dev "Exit status"; do
	grep -q -- "$opt" help.out || { echo "FAIL --help lacks $opt"; fail=1; }
done
"$plan" -V | grep -q '^ib_td_plan [0-9]' || { echo "FAIL -V"; fail=1; }

refused() { # expected message, then the arguments
	local want=$1 out rc
	shift
	out=$("$plan" "$@" 2>&1)
	rc=$?
	if [ $rc != 1 ] || ! grep -q -- "$want" <<<"$out"; then
		echo "FAIL $*: exit $rc, '$out'"
		fail=1
	else
		echo "ok   $* refused: $out"
	fi
}
refused "--ranks: 'x'" -r x
refused "--ranks: '0'" --ranks=0
refused "--threads: '-1'" -t -1
refused "--contexts: '0'" --contexts=0
refused "--devx-uars: '1e3'" --devx-uars=1e3
refused "--context-uars: ''" --context-uars=
refused "--device-uars: '99999999999'" --device-uars=99999999999
refused "--ladder: 'greedy'" --ladder=greedy
refused "unexpected argument 'mlx5_0'" mlx5_0
refused "unrecognized option" --bogus
refused "/nonexistent/dir/plan.json" --out_json_file=/nonexistent/dir/plan.json
refused "Is a directory" --out_json_file=.
exit $fail
