#!/bin/bash
# outputs_test.sh: --sweep with --csv, --plot (svg and png) and --out_json
# in one run; then a category the device cannot build (level-1 TDs without
# BlueFlame on the static UARs of 2018 kernels) is reported unavailable
# with exit status 3, and never replaced by another.
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}" "${IB_WRITE_MT:?}"
scratch_dir dir

for sweep in threads postlist unsignaled size; do
	"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=4 -n 128 \
		--endpoints=dynamic --sweep=$sweep --csv="$dir/$sweep.csv" \
		--plot="$dir/$sweep.svg" --out_json_file="$dir/$sweep.json" \
		>"$dir/$sweep.out" || { cat "$dir/$sweep.out"; die "--sweep=$sweep"; }
	rows=$(($(wc -l <"$dir/$sweep.csv") - 1))
	[ "$rows" -ge 3 ] || die "$sweep: $rows CSV rows"
	head -1 "$dir/$sweep.csv" | grep -q '^category,point,status,threads' ||
		die "$sweep: CSV header"
	[ "$(grep -c ',ok,' "$dir/$sweep.csv")" -eq "$rows" ] || die "$sweep: rows not ok"
	grep -q '<svg' "$dir/$sweep.svg" || die "$sweep: no SVG"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert len(d['results']) == $rows and all(r['verified'] for r in d['results'])" \
		"$dir/$sweep.json" || die "$sweep: JSON"
	echo "ok: --sweep=$sweep: $rows points in CSV, JSON and the plot"
done
"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=2 -n 64 \
	--plot="$dir/c.png" >/dev/null || die "png plot"
[ "$(head -c 4 "$dir/c.png" | tail -c 3)" = PNG ] || die "not a PNG"
echo "ok: --plot=FILE.png"

rc=0
"$MLX5EMU" run --uar=static -- "$IB_WRITE_MT" --loopback --threads=2 -n 64 \
	--endpoints=dynamic,static --blueflame=off >"$dir/unavail" 2>&1 || rc=$?
cat "$dir/unavail"
[ "$rc" -eq 3 ] || die "unavailable category: exit $rc, want 3"
grep -q "dynamic .*UNAVAILABLE: the device cannot give level-1 thread domains" "$dir/unavail" ||
	die "no reason given"
grep -q "^ static .* yes$" "$dir/unavail" || die "the other category did not run"
# a row not run has no figures: empty CSV cells, JSON nulls, n/a in the plot
rc=0
"$MLX5EMU" run --uar=static -- "$IB_WRITE_MT" --loopback --threads=2 -n 64 \
	--endpoints=dynamic,static --blueflame=off --csv="$dir/u.csv" \
	--out_json_file="$dir/u.json" --plot="$dir/u.svg" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 3 ] || die "unavailable category with outputs: exit $rc, want 3"
python3 - "$dir/u.csv" "$dir/u.json" <<'PY' || die "unavailable row figures"
import csv, json, sys
row = next(r for r in csv.DictReader(open(sys.argv[1])) if r["category"] == "dynamic")
assert row["status"] == "unavailable", row
for k in ("msgs", "mmsg_per_s", "contexts", "qps", "uar_pages_maps", "mem_per_ep_bytes"):
    assert row[k] == "", (k, row[k])
r = next(r for r in json.load(open(sys.argv[2]))["results"] if r["category"] == "dynamic")
assert r["MsgRate"] is None and r["resources"] is None and r["messages"] is None, r
PY
grep -q "dynamic (n/a)" "$dir/u.svg" || die "the plot does not mark the slot n/a"
echo "ok: an unavailable category: exit 3, reason given, others still run"

rc=0
"$IB_WRITE_MT" --loopback --endpoints=dynamic --sharing=2 2>"$dir/usage" || rc=$?
[ "$rc" -eq 1 ] && grep -q "contradicts" "$dir/usage" || die "--sharing contradiction: $rc"
echo "ok: --sharing contradicting the category: exit 1"
