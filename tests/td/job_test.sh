#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# A job on one emulated node: N ranks x T threads, each thread a thread
# domain asking for level 1, under a UAR budget level 1 cannot satisfy
# (the device's UARs, shared by all ranks, and each rank's share of them).
# With the fallback every TD is allocated, each rank's levels are the mix
# ib_td_plan predicts, and traffic over every TD's QP completes. Without it
# each rank gets ENOMEM exactly where the planner says level 1 stops.
# usage: job_test.sh IB_TD_PLAN TD_JOB MODE   (MLX5EMU: the launcher)
set -u
plan=$1
job=$2
mode=$3
: "${MLX5EMU:?the mlx5emu launcher}"
N=16 T=8
# dynamic: 1 UAR per context at open, static: 8
case $mode in
dynamic) share=6 ;;
static) share=12 ;;
*) echo "usage: job_test.sh IB_TD_PLAN TD_JOB dynamic|static"; exit 2 ;;
esac
D=$((N * share))
emu=(--uar="$mode" --device-uars=$D --uar-limit=$share)
fail=0

. "$(dirname "$0")/../check.sh"

p=$("$MLX5EMU" run "${emu[@]}" -- "$plan" --json -r $N -t $T \
	--device-uars=$D --context-uars=$share) || { echo "FAIL planner"; exit 1; }
check "level 1 does not fit the job" no "$(jq -r '.levels[0].node_fits' <<<"$p")"

# run FALLBACK: the ranks' lines, sorted
run() {
	local dir
	dir=$(mktemp -d)
	"$MLX5EMU" run "${emu[@]}" -- sh -c '
		n=$1 t=$2 fb=$3 job=$4 dir=$5
		for i in $(seq "$n"); do "$job" "$t" "$fb" "$dir" >"$dir/$i.out" & done
		i=0
		while [ "$(ls "$dir" | grep -c "\.open$")" -lt "$n" ]; do
			i=$((i + 1)); [ $i -lt 3000 ] || exit 1; sleep 0.1
		done
		touch "$dir/go"; wait' sh $N $T "$1" "$job" "$dir" ||
		echo "FAIL the job did not run"
	cat "$dir"/*.out | sort | uniq -c | sed 's/^ *//'
	rm -rf "$dir"
}

want=$(jq -r '.fallback | "granted \(.level1) \(.level2) \(.level3) failed \(.enomem) errno 0 traffic ok"' <<<"$p")
check "with the fallback, every rank" "$N $want" "$(run 1)"

cap=$(jq -r '.levels[0].context_capacity' <<<"$p")
check "without the fallback, every rank" \
	"$N granted $cap 0 0 failed $((T - cap)) errno 12 traffic ok" "$(run 0)"
check "without the fallback, the node" \
	"$(jq -r '.levels[0].node_capacity' <<<"$p")" $((N * cap))
exit $fail
