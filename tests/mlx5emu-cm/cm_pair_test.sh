#!/bin/bash
# A server and a client of an rdma_cm tool, each a separate `$MLX5EMU run`,
# connecting through the emulated rdma_cm at 127.0.0.1 (or, for libfabric,
# whose verbs provider skips "lo", the address of a veth in a network
# namespace of our own):
#
#   cm_pair_test.sh TOOL PORT
#
# Both sides must exit 0 and the client's output must show the transfer.
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
tool=$1 port=$2
addr=127.0.0.1

case $tool in
rping)
	srv=(rping -s -a "$addr" -p "$port" -C 10 -v)
	cli=(rping -c -a "$addr" -p "$port" -C 10 -v)
	want='ping data: rdma-ping-9' ;;
ucmatose)
	srv=(ucmatose -p "$port" -c 2)
	cli=(ucmatose -s "$addr" -p "$port" -c 2)
	want='return status 0' ;;
udaddy)
	# its -p is the port space; it always takes port 7174
	port=7174
	srv=(udaddy)
	cli=(udaddy -s "$addr")
	want='return status 0' ;;
ib_write_bw | ib_send_lat)
	srv=("$tool" -R -n 200 -p "$port")
	cli=("$tool" -R -n 200 -p "$port" "$addr")
	want='^ *[0-9]+ +200 ' ;;
rdma_server)
	srv=(rdma_server -p "$port")
	cli=(rdma_client -s "$addr" -p "$port")
	want='rdma_client: end 0' ;;
rstream)
	srv=(rstream -p "$port" -S 4096 -C 100)
	cli=(rstream -s "$addr" -p "$port" -S 4096 -C 100)
	want='^custom +4k +100 ' ;;
fi_pingpong)
	srv=(fi_pingpong -p "verbs;ofi_rxm" -e rdm -I 100 -S 4096 -B "$port")
	cli=(fi_pingpong -p "verbs;ofi_rxm" -e rdm -I 100 -S 4096 -P "$port")
	want='^4k +100 +=100 ' ;;
*) die "unknown tool $tool" ;;
esac

# libfabric's verbs provider takes no address of "lo": give it a veth
if [ "$tool" = fi_pingpong ] && [ "${CM_PAIR_NETNS:-}" != 1 ]; then
	if ! unshare -rn true 2>/dev/null; then
		echo "SKIP: no user and network namespace for a veth"
		exit 77
	fi
	exec unshare -rn env CM_PAIR_NETNS=1 "$0" "$@"
fi
if [ "${CM_PAIR_NETNS:-}" = 1 ]; then
	ip link set lo up
	ip link add cm0 type veth peer name cm1 ||
		{ echo "SKIP: no veth in this kernel"; exit 77; }
	ip addr add 10.77.0.1/24 dev cm0
	ip link set cm1 up
	ip link set cm0 up
	cli+=(10.77.0.1)
fi

# the emulated CM listens on an abstract unix socket named for the port
cm_listening() {
	ss -xlH 2>/dev/null | grep -q "mlx5emu-cm\.[0-9]*\.[^ ]*\.$port "
}

scratch_dir out
# one server and one client; sets crc and src
run_pair() {
	timeout -k 2 120 "$MLX5EMU" run -- "${srv[@]}" >"$out/srv" 2>&1 &
	spid=$!
	at_exit "kill $spid 2>/dev/null; wait $spid 2>/dev/null"
	if [ "$tool" = fi_pingpong ]; then
		wait_listening "$port" "$spid" || true
	else
		wait_for 20 cm_listening || true
	fi
	crc=0 src=0
	timeout -k 2 120 "$MLX5EMU" run -- "${cli[@]}" >"$out/cli" 2>&1 || crc=$?
	wait $spid || src=$?
	echo "client $crc, server $src"
}

ok() {
	[ $crc -eq 0 ] && [ $src -eq 0 ] && grep -Eq "$want" "$out/cli"
}

run_pair
# Known defect, under load about one run in twenty: after all 100 round
# trips, one side of ofi_rxm reads a flushed completion, or waits, at
# teardown. Tried once more, and said so, until it is fixed.
if [ "$tool" = fi_pingpong ] && ! ok; then
	echo "--- the first run failed (the defect above?):"
	cat "$out/cli" "$out/srv"
	run_pair
fi
if ! ok; then
	echo "--- client: ${cli[*]}"
	cat "$out/cli"
	echo "--- server: ${srv[*]}"
	cat "$out/srv"
	die "$tool did not complete over the emulated rdma_cm"
fi
grep -E "$want" "$out/cli" | tail -1
