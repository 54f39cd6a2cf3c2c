#!/bin/bash
# repeat_test.sh: --repeat=N runs each row N times and reports the median
# rate with the minimum and maximum of the runs: a line under each row of
# the table, MsgRate_min/MsgRate_max/repeats in JSON, mmsg_per_s_min/max
# and repeats in CSV (issue 22: one run of a few ms is no measurement).
# No timing is asserted: only that the figures exist and are ordered.
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}" "${IB_WRITE_MT:?}"
scratch_dir dir

"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=2 -n 256 \
	--endpoints=dynamic,static --repeat=3 --csv="$dir/r.csv" \
	--out_json_file="$dir/r.json" >"$dir/r.out" || { cat "$dir/r.out"; die "--repeat=3"; }
cat "$dir/r.out"
grep -q '^ Repeats *: 3 runs per row' "$dir/r.out" || die "the header does not say 3 runs"
[ "$(grep -c '^   3 runs: Mmsg/s min [0-9.]*, median [0-9.]*, max [0-9.]*$' "$dir/r.out")" -eq 2 ] ||
	die "not one spread line under each of the two rows"
python3 - "$dir/r.csv" "$dir/r.json" <<'PY' || die "the spread in CSV or JSON"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2, rows
for r in rows:
    lo, med, hi = (float(r[k]) for k in ("mmsg_per_s_min", "mmsg_per_s", "mmsg_per_s_max"))
    assert r["repeats"] == "3" and 0 < lo <= med <= hi, r
d = json.load(open(sys.argv[2]))
assert d["params"]["repeat"] == 3, d["params"]
for r in d["results"]:
    assert r["repeats"] == 3, r
    assert 0 < r["MsgRate_min"] <= r["MsgRate"] <= r["MsgRate_max"], r
    # the messages of all three runs
    assert r["messages"] == 3 * 2 * 256, r
PY
echo "ok: --repeat=3: median, min and max in the table, CSV and JSON"

# one run (the default): the range is the rate itself, no spread line
"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=2 -n 256 \
	--endpoints=dynamic --out_json_file="$dir/one.json" >"$dir/one.out"
! grep -q 'runs: Mmsg/s' "$dir/one.out" || die "a spread line for one run"
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results'][0]; \
assert r['repeats'] == 1 and r['MsgRate_min'] == r['MsgRate'] == r['MsgRate_max'], r" \
	"$dir/one.json" || die "one run: JSON"
echo "ok: one run: repeats 1, min = median = max"

rc=0
"$IB_WRITE_MT" --loopback --repeat=0 2>"$dir/usage" || rc=$?
[ "$rc" -eq 1 ] && grep -q -- "--repeat" "$dir/usage" || die "--repeat=0: exit $rc"
echo "ok: --repeat=0: exit 1"
