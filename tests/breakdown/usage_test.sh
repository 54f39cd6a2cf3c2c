#!/usr/bin/env bash
# ib_write_breakdown as a perftest user calls it: -h, -V/--version, and an
# option that would do nothing in the mode asked for is refused with why.
# No device needed.   usage_test.sh <ib_write_breakdown> <scratch dir>
. "$(dirname "$0")/../lib.sh"
tool=$1 out=$2
rm -rf "$out" && mkdir -p "$out"

"$tool" -h | grep -q "^usage: ib_write_breakdown" || die "-h"
for v in -V --version; do
	"$tool" $v | grep -q "^ib_write_breakdown [0-9]" || die "$v"
done
echo "ok: -h, -V, --version"

# refused OPTION MESSAGE
refused() {
	local rc=0
	"$tool" $1 >"$out/o" 2>"$out/e" || rc=$?
	[ "$rc" -eq 1 ] || die "$1: exit $rc, want 1"
	grep -q -- "$2" "$out/e" || { cat "$out/e"; die "$1: not '$2'"; }
	if [ -s "$out/o" ]; then die "$1: a report printed"; fi
	echo "ok: $1 alone: $2"
}
refused "--plot-dir=$out/p" "--plot-dir holds the what-if's points and plots: add --what-if"
refused "--iters=100" "--iters counts --breakdown's samples: add --breakdown"
refused "--signal-every=4" "--signal-every paces --breakdown's posts: add --breakdown"
refused "--ib-dev=mlx5_0" "--ib-dev names the device --breakdown times: add --breakdown"
if [ -e "$out/p" ]; then die "--plot-dir made its directory"; fi
MANWIDTH=80 man -l "$(dirname "$tool")/../share/man/man1/ib_write_breakdown.1" 2>/dev/null |
	grep -q "EXIT STATUS" || die "no EXIT STATUS in the man page"
echo ok
