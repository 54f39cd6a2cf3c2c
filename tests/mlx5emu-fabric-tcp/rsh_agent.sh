#!/bin/bash
# Open MPI's plm_rsh_agent for two_hosts.sh: "rsh_agent.sh HOST COMMAND..."
# runs COMMAND (a shell command line) on HOST, that is, in HOST's network
# namespace under its own `$MLX5EMU run`, as a node of a cluster would.
# TWO_HOSTS_NS maps addresses to namespace pids: "ADDR=PID ..."; each
# HOST called is written to TWO_HOSTS_LOG.
while [ "${1:-}" != "${1#-}" ]; do
	shift
done
host=$1
shift
for m in $TWO_HOSTS_NS; do
	if [ "${m%%=*}" = "$host" ]; then
		echo "$host" >>"$TWO_HOSTS_LOG"
		exec nsenter -t "${m#*=}" -n -- "$MLX5EMU" run \
			--peers="$TWO_HOSTS_PEERS" -- /bin/sh -c "$*"
	fi
done
echo "rsh_agent.sh: no namespace for host $host" >&2
exit 1
