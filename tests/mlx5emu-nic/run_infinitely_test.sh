#!/bin/bash
# ib_write_bw --run_infinitely between two processes on the emulated
# device: both must still be running and reporting after a few seconds,
# then they are stopped.
#   run_infinitely_test.sh MLX5EMU PORT SECONDS
set -u
emu=$1 port=$2 secs=${3:-4}
out=${TMPDIR:-/tmp}/inf.$$
pids=()
cleanup() {
	# TERM to timeout(1) is passed on to the program it runs
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	sleep 0.5
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -f "$out".srv "$out".cli
}
trap cleanup EXIT

timeout -k 2 $((secs + 30)) "$emu" run -- ib_write_bw --run_infinitely -D 1 -p "$port" >"$out".srv 2>&1 &
pids+=($!)
for i in $(seq 100); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
timeout -k 2 $((secs + 30)) "$emu" run -- ib_write_bw --run_infinitely -D 1 -p "$port" localhost >"$out".cli 2>&1 &
pids+=($!)
sleep "$secs"
alive=0
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
cat "$out".cli
# a report line per second (size, iterations, peak, average, rate);
# on 2 busy cores the first may take a while, so one is enough
reports=$(grep -cE '^ *65536 +[0-9]+ ' "$out".cli)
echo "--- alive=$alive reports=$reports"
[ "$alive" -eq 2 ] && [ "$reports" -ge 1 ]
