#!/bin/bash
# Debian's qperf on the emulated device, waiting for completion events
# (its default, no -P 1) and ending each test with SIGALRM:
#
#   qperf_test.sh MLX5EMU PORT ROUNDS TEST...
#
# One server and ROUNDS client runs of every TEST, each a separate
# `mlx5emu run`. Every run must report a latency.
set -u
emu=$1 port=$2 rounds=$3
shift 3
out=${TMPDIR:-/tmp}/qperf.$$
timeout -k 2 600 "$emu" run -- qperf -lp "$port" >"$out.srv" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null; rm -f "$out".*' EXIT

for i in $(seq 100); do
	ss -ltn 2>/dev/null | grep -q ":$port " && break
	sleep 0.1
done
fail=0
for r in $(seq "$rounds"); do
	for t in "$@"; do
		if timeout -k 2 60 "$emu" run -- qperf -lp "$port" -t 1 \
			localhost "$t" >"$out.cli" 2>&1 &&
			grep -q 'latency *=' "$out.cli"; then
			echo "round $r $t: $(grep 'latency' "$out.cli" | tr -s ' ')"
		else
			echo "round $r $t: FAILED"
			cat "$out.cli"
			fail=1
		fi
	done
done
if [ $fail -ne 0 ]; then
	echo "--- server:"
	cat "$out.srv"
fi
exit $fail
