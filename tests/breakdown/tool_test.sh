#!/usr/bin/env bash
# ib_write_breakdown as staged, on the emulated device: the breakdown runs,
# says that the PIO copy is not MMIO here, labels measured figures as such,
# its JSON, CSV and what-if plots are well formed, it takes perftest's
# output spellings (and its old ones) and exits with perftest-ext's statuses.
#   tool_test.sh <ib_write_breakdown> <scratch dir>   (inside mlx5emu run)
. "$(dirname "$0")/../lib.sh"
tool=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
"$tool" --breakdown --what-if --iters=2000 --json="$out/b.json" \
	--csv="$out/b.csv" --plot-dir="$out/plots" --switch=0 >"$out/b.txt"
# fail MESSAGE: die, with the tool's output
fail() {
	cat "$out/b.txt" >&2
	die "$*"
}
grep -q 'ordinary memory, not MMIO' "$out/b.txt" || fail "no emulation note"
grep -q -E '^  desc-setup .* measured$' "$out/b.txt" || fail "desc-setup not measured"
grep -q -E '^  switch .* 0\.00  option$' "$out/b.txt" || fail "--switch not applied"
grep -q -E '^  pcie .* paper$' "$out/b.txt" || fail "pcie not the paper's"
# a model that combines measured figures with the paper's says so on its line
grep -q -E '^  LLP injection overhead \(Inj\) .* Mmsg/s  \[measured \+ option \+ paper \(ThunderX2\)\]$|^  LLP injection overhead \(Inj\) .* Mmsg/s  \[measured \+ paper \(ThunderX2\)\]$' "$out/b.txt" ||
	fail "the injection rate does not say it mixes measured and paper figures"
grep -q "misc as the rest .*: the model's post-misc" "$out/b.txt" || fail "which misc the model uses"
python3 - "$out/b.json" "$out/b.csv" <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))
src = {c["name"]: c["source"] for c in j["components"]}
assert src["llp-prog"] == "measured" and src["switch"] == "option", src
# means: the timer's steps make single samples and medians jump around 0,
# and a step next to free comes out a little either side of it; a stamp
# counted twice would be ~35 ns off
assert len(j["steps"]) == 7 and all(s["mean_ns"] > -3 for s in j["steps"]), j["steps"]
assert [s["name"] for s in j["inline_steps"]] == [s["name"] for s in j["steps"]]
assert all(c["ns"] >= 0 for c in j["components"]), j["components"]
assert {p["name"] for p in j["paths"]} >= {"ibv_post_send-td", "ibv_wr-plain", "ibv_poll_cq-td"}
assert j["models"]["llp_injection_ns"] > 0 and "injection" in j["what_if"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert any(r["section"] == "step" and r["name"] == "bf-copy" for r in rows)
assert any(r["section"] == "inline-step" and r["name"] == "bf-copy" for r in rows)
assert any(r["section"] == "model" and r["name"] == "llp_latency" for r in rows)
# a single value has no spread and no sample count
assert all(r["n"] == "" and r["sd_ns"] == "" for r in rows if r["section"] in ("model", "component")), rows
PY
for m in injection latency; do
	test -s "$out/plots/what-if-$m.svg" || fail "no $m plot"
done

# perftest's output spellings, as ib_write_mt's; the old ones stay aliases
"$tool" --what-if --out_json_file="$out/o.json" --plot="$out/w.svg" \
	--csv="$out/o.csv" >"$out/o.txt" || fail "perftest spellings: status $?"
(cd "$out" && "$tool" --out_json >/dev/null) || fail "--out_json: status $?"
"$tool" --what-if --json="$out/alias.json" >/dev/null || fail "--json alias"
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
for f in ("o.json", "perftest_out.json", "alias.json"):
    assert json.load(open(f"{d}/{f}"))["tool"] == "ib_write_breakdown", f
assert "what_if" in json.load(open(f"{d}/o.json"))
# one plot, a panel per metric, every text as written (no enhanced markup)
svg = open(f"{d}/w.svg").read()
assert "What-if: one component reduced (Breaking Band, Fig. 17)" in svg
assert "injection" in svg and "latency" in svg and "rc-to-mem" in svg
PY

# bad input: a message and perftest-ext's exit status, nothing else
status() { set +e; "$@" >/dev/null 2>"$out/err"; rc=$?; set -e; }
status "$tool" --breakdown --ib-dev=nosuch
[ $rc -eq 4 ] || fail "unknown device: status $rc, want 4"
grep -q 'no RDMA device named nosuch' "$out/err" || fail "no message for an unknown device"
status "$tool" --iters=abc
[ $rc -eq 1 ] && grep -q -- "--iters needs a count" "$out/err" || fail "--iters=abc: status $rc"
status "$tool" --plot="$out/w.svg"
[ $rc -eq 1 ] && grep -q -- "--plot draws the what-if" "$out/err" || fail "--plot without --what-if: status $rc"
status "$tool" --what-if --plot="$out/w.pdf"
[ $rc -eq 1 ] && grep -q -- "a .svg or .png file" "$out/err" || fail "--plot=.pdf: status $rc"
status "$tool" --out_json_file="$out/missing/o.json"
[ $rc -eq 9 ] || fail "unwritable JSON file: status $rc, want 9"
"$tool" --help | grep -q -- "--out_json_file" || fail "--help without --out_json_file"
"$tool" --help | grep -q "  9  output file error" || fail "--help without exit statuses"
echo PASS
