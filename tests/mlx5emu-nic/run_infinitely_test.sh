#!/bin/bash
# ib_write_bw --run_infinitely between two processes on the emulated
# device: both must still be running and reporting after a few seconds,
# then they are stopped.
#   run_infinitely_test.sh PORT SECONDS
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
port=$1 secs=${2:-4}
scratch_dir dir
pids=()
stop() {
	# TERM to timeout(1) is passed on to the program it runs
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	sleep 0.5
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}
at_exit stop

timeout -k 2 $((secs + 30)) "$MLX5EMU" run -- ib_write_bw --run_infinitely -D 1 -p "$port" >"$dir/srv" 2>&1 &
pids+=($!)
wait_listening "$port" "${pids[0]}" || true
timeout -k 2 $((secs + 30)) "$MLX5EMU" run -- ib_write_bw --run_infinitely -D 1 -p "$port" localhost >"$dir/cli" 2>&1 &
pids+=($!)
# reported: the client printed a report line (size, iterations, peak,
# average, rate), one per second once it runs
reported() {
	grep -qE '^ *65536 +[0-9]+ ' "$dir/cli"
}
sleep "$secs"
# on 2 busy cores the first report may take a while: one is enough, and
# the programs outlive this wait (their timeout is SECONDS + 30)
wait_for 15 reported || true
alive=0
for p in "${pids[@]}"; do
	if kill -0 "$p" 2>/dev/null; then alive=$((alive + 1)); fi
done
cat "$dir/cli"
reports=$(grep -cE '^ *65536 +[0-9]+ ' "$dir/cli" || true)
echo "--- alive=$alive reports=$reports"
[ "$alive" -eq 2 ] && [ "$reports" -ge 1 ]
