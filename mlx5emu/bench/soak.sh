#!/bin/bash
# Emulated processes with traffic beside CPU hogs: the worst delay a
# doorbell waits for its completion, and how late an unrelated process
# wakes meanwhile (the NIC threads must not starve the machine). Run as
# root it also runs as an unprivileged user (65534): root's NIC threads
# are real-time (SCHED_FIFO), the user's are not. A benchmark, not a test:
# it prints its figures, the command that reproduces them, and whether the
# worst delay stayed under 1 s.
#
#   mlx5emu/bench/soak.sh [-l LAT_PAIRS] [-b BW_PAIRS] [-H HOGS] [-s SECONDS]
#                         [-n ITERS] [-o FILE]        (after `make build`)
#
# Each latency pair is Debian's ib_write_lat -n ITERS (its t_max: half the
# worst round trip), each bandwidth pair ib_write_bw with 1 MiB messages
# for SECONDS; the probe sleeps 1 ms at a time for SECONDS and records its
# worst lateness.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
build=${BUILD_DIR:-$here/../../build}
lat_pairs=2 bw_pairs=2 hogs=2 secs=10 iters=20000 out=
while getopts l:b:H:s:n:o: opt; do
	case $opt in
	l) lat_pairs=$OPTARG ;;
	b) bw_pairs=$OPTARG ;;
	H) hogs=$OPTARG ;;
	s) secs=$OPTARG ;;
	n) iters=$OPTARG ;;
	o) out=$OPTARG ;;
	*) bench_usage "[-l LAT_PAIRS] [-b BW_PAIRS] [-H HOGS] [-s SECONDS] [-n ITERS] [-o FILE]" ;;
	esac
done
build=$(cd "$build" && pwd)
bench_env "$build"
bench_tmp
# shellcheck disable=SC2154 # bench_tmp sets it
chmod 777 "$tmp"
command -v ib_write_lat >/dev/null || bench_die "no ib_write_lat (Debian's perftest)"
port=$((30000 + $$ % 10000))
rows=()
worst_all=0

# as WHO (root or an uid): CMD... with the staged environment
as() {
	local who=$1
	shift
	if [ "$who" = root ]; then
		"$@"
	else
		setpriv --reuid="$who" --regid="$who" --clear-groups \
			env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" HOME="$tmp" "$@"
	fi
}

# the worst lateness of 1 ms sleeps, in us, for SECONDS
probe() {
	python3 - "$1" <<'PY'
import sys, time
end = time.monotonic() + float(sys.argv[1])
worst = 0.0
while time.monotonic() < end:
    t = time.monotonic()
    time.sleep(0.001)
    worst = max(worst, time.monotonic() - t - 0.001)
print("%.0f" % (worst * 1e6))
PY
}

# pair WHO FABRIC OUT CMD...: CMD's server, then its client (output in
# OUT) on a new port, as WHO on the emulated device; the client's pid in
# $client
pair() {
	local who=$1 fab=$2 out=$3 p=$((port += 2))
	shift 3
	as "$who" env MLX5EMU_FABRIC="$fab" timeout -k 2 $((secs + 60)) mlx5emu run -- \
		"$@" -p $p >/dev/null 2>&1 &
	sleep 0.5
	as "$who" env MLX5EMU_FABRIC="$fab" timeout -k 2 $((secs + 60)) mlx5emu run -- \
		"$@" -p $p localhost >"$out" 2>&1 &
	client=$!
}

# one soak as WHO: prints "worst_lat_us probe_us"
soak() {
	local who=$1 i pids=() ends=() fab=soak$$-$1 client
	for ((i = 0; i < hogs; i++)); do
		sh -c 'while :; do :; done' &
		pids+=($!)
	done
	for ((i = 0; i < bw_pairs; i++)); do
		pair "$who" "$fab" /dev/null ib_write_bw -s 1048576 -D "$secs"
		ends+=("$client")
	done
	for ((i = 0; i < lat_pairs; i++)); do
		pair "$who" "$fab" "$tmp/lat-$who-$i" ib_write_lat -n "$iters"
		ends+=("$client")
	done
	probe "$secs" >"$tmp/probe-$who"
	wait "${ends[@]}" 2>/dev/null || true
	kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
	local worst=0 t n=0
	for ((i = 0; i < lat_pairs; i++)); do
		# bytes iterations t_min t_max ...
		t=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { print int($4) }' "$tmp/lat-$who-$i" | tail -1)
		[ -n "$t" ] || { echo "pair $i as $who printed no result" >&2; continue; }
		n=$((n + 1))
		[ "$t" -le "$worst" ] || worst=$t
	done
	echo "$worst $(cat "$tmp/probe-$who") $n"
}

whos=(root)
[ "$(id -u)" -ne 0 ] && whos=("$(id -u)")
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && whos+=(65534)
for who in "${whos[@]}"; do
	read -r lat late n < <(soak "$who")
	echo "  as $who: $n of $lat_pairs latency pairs reported; worst $lat us; probe $late us late" >&2
	rows+=("| $who | $((2 * lat_pairs + 2 * bw_pairs)) processes, $hogs hogs, ${secs} s | $lat us | $late us |")
	[ "$lat" -le "$worst_all" ] || worst_all=$lat
	[ "$late" -le "$worst_all" ] || worst_all=$late
done

{
	echo "| as | load | worst ib_write_lat figure (half a round trip) | worst lateness of a 1 ms sleep |"
	echo "|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "reproduce: mlx5emu/bench/soak.sh -l $lat_pairs -b $bw_pairs -H $hogs -s $secs -n $iters" \
		"($(nproc) CPUs, $(uname -r), MLX5EMU_DOORBELL_TRAP=${MLX5EMU_DOORBELL_TRAP:-wake}, $(date -u +%F))"
	if [ "$worst_all" -lt 1000000 ]; then
		echo "ok: nothing waited 1 s or more"
	else
		echo "OVER: something waited ${worst_all} us"
	fi
} | tee ${out:+"$out"}
