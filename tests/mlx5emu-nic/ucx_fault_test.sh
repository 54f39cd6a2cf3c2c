#!/bin/bash
# UCX survives lost packets with its default retry count and timeout:
# ucx_perftest between two processes under --fault-drop, and the
# processes' `faults` records show RC timeouts and no RETRY_EXC_ERR.
#   ucx_fault_test.sh PORT 'PERFTEST ARGS' LAUNCHER OPTION...
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
port=$1 args=$2
shift 2
scratch_dir dir
mkdir "$dir/stat"
srv="ucx_perftest -p @PORT@"
"$(dirname "$0")/pair_test.sh" "$port" "$srv" "$srv localhost $args" \
	--stat-dir="$dir/stat" "$@" || die "ucx_perftest failed"
recs=$("$MLX5EMU" stat --dir="$dir/stat" --machine | grep '^faults ')
echo "$recs"
# the field $1 summed over both processes
sum() {
	awk -v k="$1" '{ for (i = 1; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == k) n += kv[2] } } END { print n + 0 }' <<<"$recs"
}
[ "$(sum lost)" -gt 0 ] || die "no packet was lost"
[ "$(sum timeouts)" -gt 0 ] || die "no RC request was sent again"
[ "$(sum retry_exc)" -eq 0 ] || die "a WQE ran out of retries"
echo "lost $(sum lost), sent again after $(sum timeouts) timeouts"
