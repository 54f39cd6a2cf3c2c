#!/bin/bash
# ib_write_lat under two settings of the emulator, run in interleaved
# pairs (A then B) so that the host's drift falls on both alike: the
# quick A/B of a data path change (latency.sh measures everything).
# A benchmark, not a test: run it on a quiet machine.
#
#   mlx5emu/bench/write_lat_ab.sh [-n ITERS] [-p PAIRS] [-s SIZE] [-t TOOL] A B
#
# TOOL: ib_write_lat (default), or another perftest latency test of the
# same output (ib_read_lat, ib_atomic_lat, ib_send_lat).
#
# A and B are environment assignments, space separated, given to both
# ends, e.g. 'MLX5EMU_ONESIDED=0' 'MLX5EMU_ONESIDED=1', or
# 'MLX5EMU_LIBRARY=/tmp/old.so' 'MLX5EMU_LIBRARY=/tmp/new.so'. Prints
# perftest's typical and 99% figures (half a round trip) of every run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
build=${BUILD_DIR:-$here/../../build}
iters=5000
pairs=3
size=2
tool=ib_write_lat
while getopts n:p:s:t: opt; do
	case $opt in
	n) iters=$OPTARG ;;
	p) pairs=$OPTARG ;;
	s) size=$OPTARG ;;
	t) tool=$OPTARG ;;
	*) bench_usage "[-n ITERS] [-p PAIRS] [-s SIZE] [-t TOOL] A B" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || bench_usage "[-n ITERS] [-p PAIRS] [-s SIZE] [-t TOOL] A B"
sizearg=(-s "$size")
[ "$tool" = ib_atomic_lat ] && sizearg=()
bench_env "$build"
bench_tmp
port=$((20000 + $$ % 20000))

# one server and client pair under the assignments $1; "typical p99"
one() {
	local srv
	port=$((port + 2))
	# shellcheck disable=SC2086
	env $1 timeout -k 2 120 mlx5emu run -- "$tool" "${sizearg[@]}" \
		-n "$iters" -p $port >"$tmp/server" 2>&1 &
	srv=$!
	sleep 1
	# shellcheck disable=SC2086
	env $1 timeout -k 2 120 mlx5emu run -- "$tool" "${sizearg[@]}" \
		-n "$iters" -p $port localhost >"$tmp/client" 2>&1 || true
	wait $srv || true
	awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { print $5, $8 }' "$tmp/client"
}

declare -A typ p99
for ((i = 1; i <= pairs; i++)); do
	for side in A B; do
		env=$1
		[ $side = B ] && env=$2
		read -r t p < <(one "$env") || true
		typ[$side]+="${t:-?} "
		p99[$side]+="${p:-?} "
		echo "pair $i, $side ($env): typical ${t:-?} us, 99% ${p:-?} us" >&2
	done
done
echo "$(nproc) CPUs, $(uname -r), $tool ${sizearg[*]} -n $iters," \
	"$pairs interleaved pairs, $(date -u +%F)"
echo
echo "| | settings | typical, us | 99%, us |"
echo "|---|---|---|---|"
echo "| A | \`$1\` | ${typ[A]% } | ${p99[A]% } |"
echo "| B | \`$2\` | ${typ[B]% } | ${p99[B]% } |"
