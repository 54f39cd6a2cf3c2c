#!/usr/bin/env bash
# ib_write_breakdown as staged, on the emulated device: the breakdown runs,
# says that the PIO copy is not MMIO here, labels measured figures as such,
# and its JSON, CSV and what-if plots are well formed.
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
PY
# bad input: a message and a failing status, nothing else
if "$tool" --breakdown --ib-dev=nosuch >/dev/null 2>"$out/err"; then fail "unknown device accepted"; fi
grep -q 'no RDMA device named nosuch' "$out/err" || fail "no message for an unknown device"
set +e
"$tool" --iters=abc >/dev/null 2>"$out/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q -- "--iters needs a count" "$out/err" || fail "--iters=abc: status $rc"
for m in injection latency; do
	test -s "$out/plots/what-if-$m.svg" || fail "no $m plot"
done
echo PASS
