#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# MLX5_UAR_SHARING for a program that knows nothing of the fallback
# (alloc_tds LEVEL 0: no sharing attribute): under a UAR budget level 1
# cannot satisfy, every TD is allocated, and the provider says once, in one
# line of the verbs log, which levels they got: the planner's mix.
# usage: uar_sharing_log_test.sh IB_TD_PLAN ALLOC_TDS   (MLX5EMU: the launcher)
set -u
plan=$1
alloc=$2
: "${MLX5EMU:?the mlx5emu launcher}"
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

. "$(dirname "$0")/../check.sh"

# case NAME LAUNCHER-OPTIONS -- [VAR=VALUE...]
one_case() {
	local name=$1 emu=() p obs line want
	shift
	while [ "$1" != -- ]; do emu+=("$1"); shift; done
	shift
	p=$("$MLX5EMU" run "${emu[@]}" -- env "$@" "$plan" --json -t 16 \
		--context-uars=12) || { echo "FAIL $name: planner"; fail=1; return; }
	: >"$log"
	obs=$("$MLX5EMU" run "${emu[@]}" -- env "$@" MLX5_UAR_SHARING=1 \
		VERBS_LOG_LEVEL=2 VERBS_LOG_FILE="$log" "$alloc" 0 16 all | tail -n 1)
	check "$name: TDs granted, failed" "16 0" "$obs"
	check "$name: one line" 1 "$(grep -c 'could not be had' "$log")"
	line=$(grep -o 'level 1: .*' "$log")
	want=$(jq -r '.fallback | "level 1: \(.level1), level 2: \(.level2), level 3: \(.level3)"' <<<"$p")
	check "$name: the levels, the planner's mix" "$want" "$line"
}

one_case "dynamic" --uar-limit=12 --
one_case "static" --uar=static --uar-limit=12 --
one_case "dynamic, MLX5_SHUT_UP_BF=1" --uar-limit=12 -- MLX5_SHUT_UP_BF=1

# where level 1 fits, nothing is said
: >"$log"
"$MLX5EMU" run -- env MLX5_UAR_SHARING=1 VERBS_LOG_LEVEL=2 \
	VERBS_LOG_FILE="$log" "$alloc" 0 16 >/dev/null
check "no limit: no line" 0 "$(grep -c 'could not be had' "$log")"

exit $fail
