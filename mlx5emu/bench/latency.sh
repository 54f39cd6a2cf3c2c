#!/bin/bash
# Round trips, message rates and the idle cost of the emulated device on
# this machine: Debian's ib_write_lat and ib_send_lat, UCX's tag_lat and an
# Open MPI ping-pong across two processes, emu_write_rate and ib_write_mt,
# and emu_idle_cpu. Prints a Markdown table, each row with the command that
# reproduces it. A benchmark, not a test: run it on a quiet machine.
#
#   mlx5emu/bench/latency.sh [-n ITERS] [-o FILE]      (after `make build`)
#
# Environment passed on to every run chooses what is measured, e.g.
# MLX5EMU_NIC_SCHED=other (the default class: a woken NIC thread waits for
# the next scheduler tick), MLX5EMU_DOORBELL_TRAP=wake (a doorbell's fault
# wakes the NIC thread) or MLX5EMU_LIBRARY=<an older libmlx5emu.so>.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
build=${BUILD_DIR:-$here/../../build}
iters=2000
out=
while getopts n:o: opt; do
	case $opt in
	n) iters=$OPTARG ;;
	o) out=$OPTARG ;;
	*) bench_usage "[-n ITERS] [-o FILE]" ;;
	esac
done
bench_env "$build"
bench_tmp
port=$((20000 + $$ % 20000))
rows=()

row() { rows+=("| $1 | $2 | $3 | \`$4\` |"); echo "  $1: $2, $3" >&2; }

# a server and a client, each under its own `mlx5emu run`, on a fresh port
pair() {
	port=$((port + 2))
	local cmd=$1 srv
	# shellcheck disable=SC2086
	timeout -k 2 120 mlx5emu run -- $cmd -p $port >"$tmp/server" 2>&1 &
	srv=$!
	sleep 1
	# shellcheck disable=SC2086
	timeout -k 2 120 mlx5emu run -- $cmd -p $port localhost >"$tmp/client" 2>&1 || true
	wait $srv || true
}

# perftest: t_typical and the 99% percentile of the result line; like
# ucx_perftest it prints half a round trip (print_report_lat() halves the
# time between two posts), kept as printed: the goals are in its terms
for t in ib_write_lat ib_send_lat; do
	pair "$t -n $iters"
	read -r typ p99 < <(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { print $5, $8 }' "$tmp/client")
	row "$t, 2 B, half a round trip" "typical ${typ:-?} us" "99% ${p99:-?} us" \
		"mlx5emu run -- $t -n $iters -p P & mlx5emu run -- $t -n $iters -p P localhost"
done

# ucx_perftest prints half a round trip: doubled here
export UCX_TLS=rc_mlx5,ud_mlx5,self
pair "ucx_perftest -t tag_lat -n $iters"
export -n UCX_TLS
med=$(awk '/^Final:/ { printf "%.1f", 2 * $3 }' "$tmp/client")
avg=$(awk '/^Final:/ { printf "%.1f", 2 * $4 }' "$tmp/client")
row "UCX tag_lat (rc_mlx5), 8 B, round trip" "median ${med:-?} us" "average ${avg:-?} us" \
	"UCX_TLS=rc_mlx5,ud_mlx5,self mlx5emu run -- ucx_perftest -t tag_lat -n $iters [-p P] [localhost]"

bench=$build/mlx5emu/bench
if command -v mpirun.openmpi >/dev/null && [ -x "$bench/mpi_pingpong" ]; then
	mpi=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 --mca pml ucx
		--mca btl self -x UCX_TLS=^sm,tcp "$bench/mpi_pingpong" --iters="$iters")
	timeout -k 2 300 mlx5emu run -- "${mpi[@]}" >"$tmp/mpi" 2>&1 || true
	read -r med p99 < <(sed -n 's/.*median \([0-9.]*\) us, 99% \([0-9.]*\) us.*/\1 \2/p' "$tmp/mpi")
	row "Open MPI ping-pong (pml ucx), 8 B, round trip" "median ${med:-?} us" "99% ${p99:-?} us" \
		"mlx5emu run -- ${mpi[*]/$build/build}"
fi

for mode in cross loopback; do
	rate=$(mlx5emu run -- emu_write_rate --mode=$mode --seconds=2 | awk -v m=$mode '$1 == m { print $2 }')
	row "emu_write_rate $mode" "${rate:-?} Mmsg/s" "" \
		"mlx5emu run -- emu_write_rate --mode=$mode --seconds=2"
done
wmt="ib_write_mt --loopback --endpoints=dynamic --threads=2 -n 200000"
rate=$(mlx5emu run -- $wmt 2>&1 | awk '$1 == "dynamic" { print $4 }')
row "ib_write_mt dynamic, 2 threads" "${rate:-?} Mmsg/s" "" "mlx5emu run -- $wmt"

idle=$(mlx5emu run -- "$bench/emu_idle_cpu" --seconds=5 | awk '/^idle/ { print $2 }')
row "idle process, 2 RC QPs" "${idle:-?} of a core" "" \
	"mlx5emu run -- build/mlx5emu/bench/emu_idle_cpu --seconds=5"

{
	echo "$(nproc) CPUs, $(uname -r), NIC class ${MLX5EMU_NIC_SCHED:-auto}," \
		"doorbells ${MLX5EMU_DOORBELL_TRAP:-signal}, $(date -u +%F)"
	echo
	echo "| what | figure | spread | reproduce |"
	echo "|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} | tee ${out:+"$out"}
