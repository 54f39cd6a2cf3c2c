#!/usr/bin/env bash
# ib_write_breakdown's models with numbers at their edges: nan and inf are
# refused, and a model whose every LLP component is 0 has no rate (not a
# rate of 0), in the text and in JSON. No device needed.
#   numbers_test.sh <ib_write_breakdown> <scratch dir>
. "$(dirname "$0")/../lib.sh"
tool=$1 out=$2
rm -rf "$out" && mkdir -p "$out"

for v in nan inf -inf NaN 1e999; do
	rc=0
	"$tool" --what-if --pcie="$v" >"$out/o" 2>"$out/e" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$out/o"; die "--pcie=$v: exit $rc, want 1"; }
	grep -q -- "--pcie needs a finite ns >= 0, not '$v'" "$out/e" ||
		die "--pcie=$v: no message"
	echo "ok: --pcie=$v refused"
done

zero=()
for c in desc-setup desc-barrier db-barrier pio-copy post-misc llp-prog \
	busy-post meas-update; do
	zero+=(--$c=0)
done
"$tool" --what-if "${zero[@]}" --out_json_file="$out/z.json" >"$out/z" 2>&1 ||
	{ cat "$out/z"; die "all LLP components 0: exit $?"; }
cat "$out/z"
if grep -q "Mmsg/s" <(grep "LLP injection" "$out/z"); then
	die "a rate printed for an injection overhead of 0 ns"
fi
grep -q "LLP injection overhead (Inj) .* 0.00 ns  (no rate" "$out/z" ||
	die "no word that there is no rate"
if grep -q -i "nan\|inf" "$out/z"; then die "nan or inf printed"; fi
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['models']; \
assert m['llp_message_rate_mmsgs'] is None, m" "$out/z.json" ||
	die "JSON rate not null"
echo "ok: all LLP components 0: no rate, in text and JSON"
