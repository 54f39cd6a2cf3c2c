#!/bin/bash
# The fabric between two hosts: two network namespaces on a veth pair
# (two_hosts.sh), where abstract unix sockets cannot reach across, so
# every request travels over the TCP transport.
#
#   fabric_tcp_test.sh CASE PORT [MPI PROGRAM]
#
#   rc      Debian's ib_write_bw, ib_read_bw, ib_atomic_bw across
#   ud      ib_send_lat -c UD across
#   ucx     ucx_perftest -t tag_bw across (rc_mlx5, ud_mlx5)
#   mpi     Open MPI, a rank on each host (the rsh agent enters the other
#           namespace), running PROGRAM (tests/mpi's ping-pong)
#   vanish  the server of an ib_write_bw run is killed: the client's QP
#           fails with RETRY_EXC_ERR (status 12)
#   trust   a client given another MLX5EMU_FABRIC_SECRET: its hello is
#           refused, its QP fails with RETRY_EXC_ERR (status 12)
#   launcher  (no namespaces) --peers refused without the secret or when
#           no entry is this host; --host-index=1 gives host 1's LID/GUID
#
# PORT is perftest's and UCX's out-of-band port; the fabric's are above.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/two_hosts.sh"
: "${MLX5EMU:?}"
case=$1 oob=$2

# launcher DEVINFO: what the launcher refuses, and the names of host 1
if [ "$case" = launcher ]; then
	devinfo=$3
	peers="127.0.0.1:$oob,[::2]:$oob"
	rc=0
	env -u MLX5EMU_FABRIC_SECRET "$MLX5EMU" run --peers="$peers" -- \
		true || rc=$?
	[ $rc -eq 2 ] || die "--peers without a secret: exit $rc, not 2"
	export MLX5EMU_FABRIC_SECRET=launcher-test
	rc=0
	"$MLX5EMU" run --peers=203.0.113.71:1,203.0.113.72:1 -- true || rc=$?
	[ $rc -eq 2 ] || die "--peers naming no address of here: exit $rc"
	info=$("$MLX5EMU" run --peers="$peers" --host-index=1 -- "$devinfo" -v)
	grep -q 'port_lid:[[:space:]]*17$' <<<"$info" ||
		die "host 1's port LID is not 17: $info"
	grep -q 'node_guid:[[:space:]]*0002:c903:00e5:a100$' <<<"$info" ||
		die "host 1's node GUID does not carry its index: $info"
	echo "launcher: refusals and host 1's LID and GUID as documented"
	exit 0
fi

two_hosts $((oob + 1))
scratch_dir out
echo "hosts $HOST_A and $HOST_B, --peers=$PEERS"

# server_client SERVER CMD... -- CLIENT ARGS: SERVER on host A, then the
# same program with CLIENT ARGS on host B against it; both must pass
server_client() {
	local srv=() crc=0 src=0 pid
	while [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	emu_a "${srv[@]}" >"$out/srv" 2>&1 &
	pid=$!
	at_exit "kill $pid 2>/dev/null"
	on_a_listening "$oob" "$pid" || true
	emu_b "${srv[0]}" "$@" >"$out/cli" 2>&1 || crc=$?
	wait "$pid" || src=$?
	echo "--- ${srv[*]}: server exit $src, client exit $crc"
	if [ $src -ne 0 ] || [ $crc -ne 0 ]; then
		cat "$out/srv" "$out/cli"
		die "${srv[0]} across the hosts failed"
	fi
	tail -n 3 "$out/cli"
}
on_a_listening() {
	local tries=100
	while [ -z "$(on_a ss -ltnH "sport = :$1" 2>/dev/null)" ]; do
		kill -0 "$2" 2>/dev/null || return 1
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 0.1
	done
}

# write_server ARGS...: an ib_write_bw server on host A, listening
write_server() {
	emu_a ib_write_bw -p "$oob" "$@" >"$out/srv" 2>&1 &
	spid=$!
	at_exit "kill $spid 2>/dev/null"
	on_a_listening "$oob" "$spid" || die "the server does not listen"
}

# client_failed_retry_exc STATUS WHY: the client (exit STATUS) failed,
# else WHY; its QP with IBV_WC_RETRY_EXC_ERR
client_failed_retry_exc() {
	cat "$out/cli"
	[ "$1" -ne 0 ] || die "$2"
	grep -q 'status 12' "$out/cli" ||
		die "the client's QP did not fail with RETRY_EXC_ERR (12)"
}

# a connection to the fabric's first port on host A is established
fabric_connected() {
	[ -n "$(on_a ss -tnH state established "sport = :$((oob + 1))")" ]
}

# the pid of the process named $2 in the network namespace of pid $1
in_ns() {
	local ns p
	ns=$(readlink "/proc/$1/ns/net")
	for p in /proc/[0-9]*; do
		if [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ] &&
			[ "$(cat "$p/comm" 2>/dev/null)" = "$2" ]; then
			echo "${p#/proc/}"
			return 0
		fi
	done
	return 1
}

case $case in
rc)
	for t in ib_write_bw ib_read_bw ib_atomic_bw; do
		server_client $t -p "$oob" -n 2000 -- \
			-p "$oob" -n 2000 "$HOST_A"
	done
	;;
ud)
	server_client ib_send_lat -c UD -p "$oob" -n 500 -- \
		-c UD -p "$oob" -n 500 "$HOST_A"
	;;
ucx)
	export UCX_TLS=rc_mlx5,ud_mlx5,self
	server_client ucx_perftest -p "$oob" -- \
		"$HOST_A" -p "$oob" -t tag_bw -n 2000
	;;
mpi)
	prog=$3
	if ! command -v mpirun.openmpi >/dev/null || [ ! -x "$prog" ]; then
		echo "SKIP: mpirun.openmpi or the program built with" \
			"mpicc.openmpi is missing"
		exit 77
	fi
	printf '%s slots=1\n%s slots=1\n' "$HOST_A" "$HOST_B" >"$out/hosts"
	# the agent finds each host's namespace here
	export TWO_HOSTS_NS="$HOST_A=$NS_A $HOST_B=$NS_B" TWO_HOSTS_PEERS=$PEERS
	export TWO_HOSTS_LOG=$out/agent
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export UCX_TLS=^sm,tcp
	HOST_TIMEOUT=110 emu_a mpirun.openmpi --hostfile "$out/hosts" -np 2 \
		--mca plm_rsh_agent "$(dirname "$0")/rsh_agent.sh" \
		--mca oob_tcp_if_include "$HOST_A/24" \
		--mca pml ucx --mca btl self -x UCX_TLS "$prog" ||
		die "the Open MPI ping-pong across the hosts failed"
	grep -qx "$HOST_B" "$out/agent" ||
		die "mpirun did not start a rank on host B"
	;;
trust)
	write_server -n 100
	rc=0
	MLX5EMU_FABRIC_SECRET=not-the-secret emu_b ib_write_bw -p "$oob" \
		-n 100 "$HOST_A" >"$out/cli" 2>&1 || rc=$?
	client_failed_retry_exc $rc "a client with another secret wrote"
	echo "another secret: refused, RETRY_EXC_ERR"
	;;
vanish)
	write_server -D 60
	emu_b ib_write_bw -p "$oob" -D 60 "$HOST_A" >"$out/cli" 2>&1 &
	cli=$!
	at_exit "kill $cli 2>/dev/null"
	# traffic flows once the client's NIC has called the server's
	wait_for 30 fabric_connected ||
		die "the client did not start: $(cat "$out/cli")"
	sleep 0.5
	pid=$(in_ns "$NS_A" ib_write_bw) || die "no server process on host A"
	kill -KILL "$pid"
	# the QP's timeout (perftest: 14, 67 ms x 7 retries) ends the run
	rc=0
	wait "$cli" || rc=$?
	client_failed_retry_exc $rc "the client did not see its peer vanish"
	echo "the vanished peer: RETRY_EXC_ERR"
	;;
*)
	die "unknown case $case"
	;;
esac
