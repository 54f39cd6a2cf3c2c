#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ib_td_plan's predictions against what the emulated device hands out:
# for each UAR budget, the TDs per context the planner predicts (from
# --context-uars and from --probe) and what alloc_tds gets, level by level.
# usage: emu_test.sh IB_TD_PLAN ALLOC_TDS   (MLX5EMU: the launcher)
set -u
plan=$1
alloc=$2
: "${MLX5EMU:?the mlx5emu launcher}"
fail=0

. "$(dirname "$0")/../check.sh"

# plan LAUNCHER-OPTIONS -- PLANNER-OPTIONS: the JSON plan
plan_json() {
	local emu=()
	while [ "$1" != -- ]; do emu+=("$1"); shift; done
	shift
	"$MLX5EMU" run "${emu[@]}" -- "$plan" --json "$@"
}

# observe LAUNCHER-OPTIONS -- [VAR=VALUE] LEVEL MAX [all]: "COUNT ERRNO|FAILED"
observe() {
	local emu=()
	while [ "$1" != -- ]; do emu+=("$1"); shift; done
	shift
	"$MLX5EMU" run "${emu[@]}" -- env "$@" | tail -n 1
}

capacity() { jq -r ".levels[$(($2 - 1))].context_capacity" <<<"$1"; }
fits() { jq -r ".levels[$(($2 - 1))].context_fits" <<<"$1"; }
min() { [ "$1" = unbounded ] && echo "$2" || echo $(($1 < $2 ? $1 : $2)); }

# one budget: launcher options, the UARs a context may hold, 16 threads
budget_case() {
	local name=$1 limit=$2
	shift 2
	local given probed obs l
	given=$(plan_json "$@" -- -t 16 --context-uars="$limit") || {
		echo "FAIL $name: the planner failed"; fail=1; return; }
	probed=$(plan_json "$@" -- -t 16 --probe) || {
		echo "FAIL $name: the planner's probe failed"; fail=1; return; }
	check "$name: --probe finds the context's limit" "$limit" \
		"$(jq -r .device.context_uars <<<"$probed")"
	for l in 1 2; do
		obs=$(observe "$@" -- X=1 "$alloc" $l 1000)
		check "$name: level-$l TDs per context" \
			"$(capacity "$given" $l)" "${obs% *}"
		check "$name: level-$l TDs per context (probed)" \
			"$(capacity "$probed" $l)" "${obs% *}"
		[ "${obs#* }" = 12 ] ||
			{ echo "FAIL $name: level $l ended with errno ${obs#* }"; fail=1; }
	done
	# the job itself: 16 TDs at the default level and at level 1, and
	# with MLX5_UAR_SHARING=1, which falls back: all granted
	obs=$(observe "$@" -- X=1 "$alloc" 0 16)
	check "$name: 16 default TDs" "$(min "$(capacity "$given" 2)" 16)" \
		"${obs% *}"
	check "$name: level 2 fits 16" "$(fits "$given" 2)" \
		"$([ "${obs% *}" = 16 ] && echo yes || echo no)"
	obs=$(observe "$@" -- X=1 "$alloc" 1 16)
	check "$name: 16 level-1 TDs" \
		"$(min "$(capacity "$given" 1)" 16)" "${obs% *}"
	check "$name: level 1 fits 16" "$(fits "$given" 1)" \
		"$([ "${obs% *}" = 16 ] && echo yes || echo no)"
	obs=$(observe "$@" -- MLX5_UAR_SHARING=1 "$alloc" 0 16)
	check "$name: 16 MLX5_UAR_SHARING=1 TDs" \
		"$(jq -r '.fallback | .level1 + .level2 + .level3' <<<"$given")" \
		"${obs% *}"
	# the levels granted, the planner's mix
	obs=$("$MLX5EMU" run "$@" -- env TD_PLAN_MAX_SHARING=3 "$alloc" 1 16 |
		grep '^granted')
	check "$name: fallback mix" \
		"$(jq -r '.fallback | "granted \(.level1) \(.level2) \(.level3)"' \
			<<<"$given")" "$obs"
}

budget_case "dynamic, --uar-limit=12" 12 --uar-limit=12
budget_case "dynamic, --uar-limit=8" 8 --uar-limit=8
budget_case "static, --uar-limit=12" 12 --uar=static --uar-limit=12
budget_case "dynamic, 4 UARs a mapping, --uar-limit=12" 12 \
	--uars-per-page=4 --uar-limit=12

# MLX5_SHUT_UP_BF=1: level 1 rings a non-cached UAR of its own, the other
# levels stay on BlueFlame UARs; the counts do not change
p=$("$MLX5EMU" run --uar-limit=12 -- env MLX5_SHUT_UP_BF=1 "$plan" --json \
	-t 16 --context-uars=12)
for l in 1 2; do
	obs=$(observe --uar-limit=12 -- MLX5_SHUT_UP_BF=1 "$alloc" $l 1000)
	check "MLX5_SHUT_UP_BF=1: level-$l TDs per context" \
		"$(capacity "$p" $l)" "${obs% *}"
done

# MLX5_UAR_SHARING=1 takes the reserve ladder down to level 3: every TD
# is granted, as the planner's default ladder predicts
p=$(plan_json --uar-limit=12 -- -t 16 --context-uars=12)
obs=$(observe --uar-limit=12 -- MLX5_UAR_SHARING=1 "$alloc" 0 16 all)
check "reserve ladder: TDs granted" \
	"$(jq -r '.fallback | .level1 + .level2 + .level3' <<<"$p")" "${obs% *}"
check "reserve ladder: ENOMEM" "$(jq -r .fallback.enomem <<<"$p")" \
	"${obs#* }"

# level 3: one UAR per context, however many TDs
p=$(plan_json --uar-limit=8 -- -t 500 --context-uars=8)
obs=$(observe --uar-limit=8 -- X=1 "$alloc" 3 500)
check "level 3 in 8 UARs: capacity" "$(capacity "$p" 3)" \
	"$([ "${obs% *}" = 500 ] && echo unbounded || echo "${obs% *}")"

# the device's budget, given: one process gets its whole share
p=$(plan_json --device-uars=12 -- -t 16 --device-uars=12)
obs=$(observe --device-uars=12 -- X=1 "$alloc" 1 100)
check "--device-uars=12: level-1 TDs of one rank" \
	"$(jq -r .fallback.context_budget <<<"$p")" "${obs% *}"

# a node's ranks share the device: 4 processes open, then all allocate
# level-1 TDs and hold them; together they get what the planner gives
hold=$(mktemp -d)
p=$(plan_json --device-uars=30 -- -r 4 -t 16 --device-uars=30)
"$MLX5EMU" run --device-uars=30 -- sh -c '
	wait_for() { # N SUFFIX
		i=0
		while [ $(ls "$dir" | grep -c "$2\$") -lt $1 ]; do
			i=$((i + 1)); [ $i -lt 600 ] || return 1; sleep 0.1
		done
	}
	dir=$1
	for i in 1 2 3 4; do TD_PLAN_HOLD=$dir "$2" 1 100 & done
	wait_for 4 open && touch "$dir/go" && wait_for 4 count
	touch "$dir/release"; wait' sh "$hold" "$alloc"
obs=$(cat "$hold"/*.count 2>/dev/null | awk '{ n += $1 } END { print n + 0 }')
check "--device-uars=30, 4 ranks: level-1 TDs on the node" \
	"$(jq -r '.levels[0].node_capacity' <<<"$p")" "$obs"
check "--device-uars=30, 4 ranks x 16: level 1 fits the node" \
	"$(jq -r '.levels[0].node_fits' <<<"$p")" \
	"$([ "$obs" -ge 64 ] && echo yes || echo no)"
rm -rf "$hold"

# what the emulated device does not show stays unknown
p=$(plan_json -- -t 16)
for key in context_uars device_uars bar_bytes probe_level1_tds; do
	check "unknown without options: $key" null \
		"$(jq -r .device.$key <<<"$p")"
done
check "unknown: no fallback mix" null "$(jq -r .fallback.level1 <<<"$p")"
check "dynamic mode seen" dynamic "$(jq -r .device.uar_mode <<<"$p")"
check "static mode seen" static \
	"$(plan_json --uar=static -- | jq -r .device.uar_mode)"
check "static: 8 UARs at open" 8 \
	"$(plan_json --uar=static -- | jq -r .device.open_uars)"
check "static: the dynamic range" 512 \
	"$(plan_json --uar=static -- | jq -r .device.legacy_pages)"

# --out_json_file: the table on stdout, the same plan in the file
json=$(mktemp)
out=$("$MLX5EMU" run -- "$plan" -t 16 --context-uars=12 --out_json_file="$json")
check "--out_json_file: the table" yes \
	"$(grep -q 'Thread-domain UAR plan' <<<"$out" && echo yes || echo no)"
check "--out_json_file: the JSON" \
	"$(plan_json -- -t 16 --context-uars=12 | jq -c .levels)" \
	"$(jq -c .levels "$json")"
rm -f "$json"

# a device that is not there: exit 4 and its name
out=$("$MLX5EMU" run -- "$plan" -d mlx5_9 2>&1)
rc=$?
check "-d mlx5_9: exit status" 4 "$rc"
check "-d mlx5_9: message" yes \
	"$(grep -q 'no device mlx5_9' <<<"$out" && echo yes || echo no)"

exit $fail
