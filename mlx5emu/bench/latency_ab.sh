#!/bin/bash
# Two builds of the emulator compared on this machine: latency.sh run in
# interleaved pairs, A then B, so that the host's drift from one minute to
# the next (10-30% on a small virtual machine) falls on both alike. Prints
# a Markdown table, a row per figure, each cell the runs of one library
# (a run's figure and, where there is one, its spread).
# A benchmark, not a test: run it on a quiet machine.
#
#   mlx5emu/bench/latency_ab.sh [-n ITERS] [-p PAIRS] LIB_A LIB_B
#
# LIB_A and LIB_B are libmlx5emu.so files, e.g. copies of
# build/stage/lib/mlx5emu/libmlx5emu.so taken before and after a change.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
iters=5000
pairs=3
while getopts n:p: opt; do
	case $opt in
	n) iters=$OPTARG ;;
	p) pairs=$OPTARG ;;
	*) bench_usage "[-n ITERS] [-p PAIRS] LIB_A LIB_B" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || bench_usage "[-n ITERS] [-p PAIRS] LIB_A LIB_B"
for lib in "$@"; do
	[ -r "$lib" ] || bench_die "$lib: no such library"
done
bench_tmp

for ((i = 1; i <= pairs; i++)); do
	for side in A B; do
		lib=$1
		[ $side = B ] && lib=$2
		echo "pair $i of $pairs, $side: $lib" >&2
		MLX5EMU_LIBRARY=$(realpath "$lib") "$here/latency.sh" -n "$iters" \
			-o "$tmp/$side.$i" >/dev/null 2>&1 ||
			echo "$0: latency.sh failed with $lib" >&2
	done
done

# "| what | figure | spread | reproduce |": the figures of each run, by row
cells() {
	local side=$1 what=$2 f
	for f in "$tmp/$side".*; do
		awk -F' [|] ' -v w="$what" \
			'$1 == "| " w { print $2 ($3 == "" ? "" : ", " $3) }' "$f"
	done | paste -sd ';' | sed 's/;/; /g'
}

echo "$(nproc) CPUs, $(uname -r), $pairs interleaved pairs of" \
	"\`latency.sh -n $iters\`, $(date -u +%F)"
echo "A: $1"
echo "B: $2"
echo
echo "| what | A | B |"
echo "|---|---|---|"
awk -F' [|] ' '/^\| / && $1 != "| what" && $1 !~ /^\|---/ { sub(/^\| /, "", $1); print $1 }' \
	"$tmp/A.1" | while IFS= read -r what; do
	echo "| $what | $(cells A "$what") | $(cells B "$what") |"
done
