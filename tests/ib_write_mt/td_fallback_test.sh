#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# td_fallback_test.sh: --td-fallback under a UAR budget level 1 cannot
# satisfy. The level-1 row runs, is verified and shows the levels its TDs
# got (table, CSV, JSON): ib_td_plan's mix for that budget. Without the
# option the same row stays UNAVAILABLE; rows that did not degrade have no
# td_granted. Needs IB_WRITE_MT, IB_TD_PLAN and MLX5EMU.
set -u
: "${IB_WRITE_MT:?}" "${IB_TD_PLAN:?}" "${MLX5EMU:?}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
die() { echo "FAIL: $*"; exit 1; }

for mode in dynamic static; do
	emu=(--uar="$mode" --uar-limit=12)
	plan=$("$MLX5EMU" run "${emu[@]}" -- "$IB_TD_PLAN" --json -t 16 \
		--context-uars=12) || die "$mode: the planner"
	want=$(jq -r '.fallback | "\(.level1) \(.level2) \(.level3)"' <<<"$plan")
	out=$("$MLX5EMU" run "${emu[@]}" -- "$IB_WRITE_MT" --loopback \
		--threads=16 -n 64 --endpoints=dynamic,shared-dynamic \
		--td-fallback --csv="$dir/f.csv" --out_json_file="$dir/f.json") ||
		die "$mode: --td-fallback run failed: $out"
	echo "$out"
	python3 - "$dir/f.csv" "$dir/f.json" "$want" "$mode" <<'PY' || die "$mode: td_granted"
import csv, json, sys
want = dict(zip(("level1", "level2", "level3"), map(int, sys.argv[3].split())))
rows = {r["category"]: r for r in csv.DictReader(open(sys.argv[1]))}
js = {r["category"]: r for r in json.load(open(sys.argv[2]))["results"]}
d = rows["dynamic"]
assert d["status"] == "ok" and d["verified"] == "yes", d
got = js["dynamic"]["td_granted"]
assert got == want, (got, want)
cells = " ".join(f"{k[-1]}:{v}" for k, v in want.items() if v)
assert d["td_granted"] == cells, (d["td_granted"], cells)
s, j = rows["shared-dynamic"], js["shared-dynamic"]["td_granted"]
if sys.argv[4] == "dynamic":
    # two per UAR fits 16 TDs in 11 UARs: nothing degraded
    assert s["td_granted"] == "" and j is None, (s, j)
else:
    # 4 UARs (static mode opens 8 of the 12): level 2 degrades too
    assert s["status"] == "ok" and sum(j.values()) == 16, (s, j)
    cells = " ".join(f"{k[-1]}:{v}" for k, v in j.items() if v)
    assert s["td_granted"] == cells, (s["td_granted"], cells)
PY
	cells=$(jq -r '.fallback | ["1:\(.level1)", "2:\(.level2)", "3:\(.level3)"]
		| map(select(test(":0$") | not)) | join(" ")' <<<"$plan")
	grep -q "^   td_granted $cells " <<<"$out" ||
		die "$mode: no td_granted $cells line under the row"

	# without the option: UNAVAILABLE, as before
	out=$("$MLX5EMU" run "${emu[@]}" -- "$IB_WRITE_MT" --loopback \
		--threads=16 -n 64 --endpoints=dynamic --csv="$dir/n.csv")
	grep -q 'UNAVAILABLE' <<<"$out" || die "$mode: no UNAVAILABLE without --td-fallback"
	grep -q '^dynamic,,unavailable,16,1,,' "$dir/n.csv" ||
		die "$mode: CSV without --td-fallback"
done
echo "td_fallback_test: ok"
