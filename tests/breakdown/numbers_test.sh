#!/usr/bin/env bash
# ib_write_breakdown's models with numbers at their edges: nan and inf are
# refused, and a model whose every LLP component is 0 has no rate (not a
# rate of 0), in the text and in JSON. No device needed.
#   numbers_test.sh <ib_write_breakdown> <scratch dir>
set -uo pipefail
tool=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

for v in nan inf -inf NaN 1e999; do
	"$tool" --what-if --pcie="$v" >"$out/o" 2>"$out/e"
	rc=$?
	[ "$rc" -eq 1 ] || { cat "$out/o"; fail "--pcie=$v: exit $rc, want 1"; }
	grep -q -- "--pcie needs a finite ns >= 0, not '$v'" "$out/e" ||
		fail "--pcie=$v: no message"
	echo "ok: --pcie=$v refused"
done

zero=()
for c in desc-setup desc-barrier db-barrier pio-copy post-misc llp-prog \
	busy-post meas-update; do
	zero+=(--$c=0)
done
"$tool" --what-if "${zero[@]}" --out_json_file="$out/z.json" >"$out/z" 2>&1 ||
	{ cat "$out/z"; fail "all LLP components 0: exit $?"; }
cat "$out/z"
grep -q "Mmsg/s" <(grep "LLP injection" "$out/z") &&
	fail "a rate printed for an injection overhead of 0 ns"
grep -q "LLP injection overhead (Inj) .* 0.00 ns  (no rate" "$out/z" ||
	fail "no word that there is no rate"
grep -q -i "nan\|inf" "$out/z" && fail "nan or inf printed"
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['models']; \
assert m['llp_message_rate_mmsgs'] is None, m" "$out/z.json" ||
	fail "JSON rate not null"
echo "ok: all LLP components 0: no rate, in text and JSON"
