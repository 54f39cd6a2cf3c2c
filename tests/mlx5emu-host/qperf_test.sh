#!/bin/bash
# Debian's qperf on the emulated device, waiting for completion events
# (its default, no -P 1) and ending each test with SIGALRM:
#
#   qperf_test.sh PORT ROUNDS TEST...
#
# One server and ROUNDS client runs of every TEST, each a separate
# `$MLX5EMU run`. Every run must report a latency (or a bandwidth).
# QPERF_OPTS adds client options (-cm1: connect through rdma_cm).
# QPERF_ONE_CLIENT=1 runs all TESTs in one client process instead: the
# server forks a child per test, and each child takes the fabric slot the
# one before it left, so the client meets a new process at an old slot.
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
port=$1 rounds=$2
shift 2
read -ra opts <<<"${QPERF_OPTS:-}"
result='(latency|bw) *='
scratch_dir out
timeout -k 2 600 "$MLX5EMU" run -- qperf -lp "$port" >"$out/srv" 2>&1 &
srv=$!
at_exit "kill $srv 2>/dev/null; wait $srv 2>/dev/null"
wait_listening "$port" "$srv" || die "the qperf server does not listen"

fail=0
if [ "${QPERF_ONE_CLIENT:-0}" = 1 ]; then
	for r in $(seq "$rounds"); do
		timeout -k 2 120 "$MLX5EMU" run -- qperf -lp "$port" -t 1 \
			"${opts[@]}" localhost "$@" >"$out/cli" 2>&1 || fail=1
		got=$(grep -Ec "$result" "$out/cli")
		echo "round $r, one client: $got of $# tests reported"
		[ "$got" -eq $# ] || fail=1
		[ $fail -eq 0 ] || cat "$out/cli"
	done
	set --
fi
for r in $(seq "$rounds"); do
	for t in "$@"; do
		if timeout -k 2 60 "$MLX5EMU" run -- qperf -lp "$port" -t 1 \
			"${opts[@]}" localhost "$t" >"$out/cli" 2>&1 &&
			grep -Eq "$result" "$out/cli"; then
			echo "round $r $t: $(grep -E "$result" "$out/cli" | tr -s ' ')"
		else
			echo "round $r $t: FAILED"
			cat "$out/cli"
			fail=1
		fi
	done
done
if [ $fail -ne 0 ]; then
	echo "--- server:"
	cat "$out/srv"
	die "a qperf run reported no latency"
fi
