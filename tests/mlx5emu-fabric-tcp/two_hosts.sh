# shellcheck shell=bash
# Two "hosts" on this machine for the fabric's TCP transport: two network
# namespaces joined by a veth pair, held by two `unshare -n sleep`
# processes (nothing in /run/netns, so concurrent runs do not meet).
# Source after ../lib.sh:
#   two_hosts PORT   sets HOST_A, HOST_B (addresses), PEERS (the fabric's
#                    ports from PORT), NS_A, NS_B (the namespaces' pids),
#                    exports MLX5EMU_FABRIC_SECRET; exits 77 where the
#                    namespaces cannot be made (not root, no veth)
#   on_a CMD...      CMD in host A's namespace (on_b: in B's)
#   emu_a CMD...     CMD under `$MLX5EMU run --peers=$PEERS` on host A,
#                    killed after $HOST_TIMEOUT (default 60) seconds
two_hosts() {
	local port=$1
	# the namespaces are private: no other test sees these addresses
	HOST_A=10.77.0.1 HOST_B=10.77.0.2
	PEERS=$HOST_A:$port,$HOST_B:$port
	export MLX5EMU_FABRIC_SECRET=test-secret-$$
	if ! unshare -n true 2>/dev/null; then
		echo "SKIP: no network namespace can be made here (needs root)"
		exit 77
	fi
	unshare -n sleep 3600 &
	NS_A=$!
	unshare -n sleep 3600 &
	NS_B=$!
	at_exit "kill $NS_A $NS_B 2>/dev/null"
	wait_for 5 test -e "/proc/$NS_A/ns/net" || die "no namespace A"
	# the namespace is the child's once unshare has exec'd sleep
	wait_for 5 two_hosts_unshared || die "unshare did not take"
	if ! ip link add "fta$$" netns "$NS_A" type veth peer name "ftb$$" \
		netns "$NS_B" 2>/dev/null; then
		echo "SKIP: no veth pair can be made here"
		exit 77
	fi
	on_a sh -c "ip link set lo up && ip addr add $HOST_A/24 dev fta$$ &&
		ip link set fta$$ up" || die "cannot set up host A"
	on_b sh -c "ip link set lo up && ip addr add $HOST_B/24 dev ftb$$ &&
		ip link set ftb$$ up" || die "cannot set up host B"
}
two_hosts_unshared() {
	[ "$(readlink "/proc/$NS_A/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
		[ "$(readlink "/proc/$NS_B/ns/net")" != "$(readlink /proc/self/ns/net)" ]
}
on_a() { nsenter -t "$NS_A" -n -- "$@"; }
on_b() { nsenter -t "$NS_B" -n -- "$@"; }
emu_a() { emu_on "$NS_A" "$@"; }
emu_b() { emu_on "$NS_B" "$@"; }
emu_on() {
	local ns=$1
	shift
	timeout -k 2 "${HOST_TIMEOUT:-60}" nsenter -t "$ns" -n -- \
		"$MLX5EMU" run --peers="$PEERS" -- "$@"
}
