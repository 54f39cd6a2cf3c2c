#!/bin/bash
# Where UCX's workers ring: `ucx_perftest -t tag_bw -T 4` over
# rc_mlx5,ud_mlx5,self between two processes, once with MLX5_UAR_SHARING=1
# and once with =2, and `mlx5emu stat` taken while it runs.
#
# UCX 1.13 without DEVX (refused here, as on a kernel without it) allocates
# no thread domain: its QPs take libmlx5's per-context BlueFlame registers,
# so MLX5_UAR_SHARING has nothing to act on. The test shows it: per level,
# every QP with its page and uUAR (bfreg halves 0x800/0x900 or 0xa00/0xb00);
# each QP rings one uUAR of the page it was created on; the placement is the
# same under both levels, two workers' QPs to a 4 KB UAR (each worker has
# one UD and one RC QP, created in worker order).
#   ucx_threads_test.sh PORT LAUNCHER-OPTS
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
port=$1 opts=$2
export UCX_TLS=rc_mlx5,ud_mlx5,self
fail=0

# all_rang: 16 QPs have rung
all_rang() {
	[ "$("$MLX5EMU" stat --machine | grep -c '^ring .*count=[1-9]')" -ge 16 ]
}
# exchange (inside the launcher): a tag_bw pair with 4 threads, and the
# stat records once its QPs have rung
exchange() {
	ucx_perftest -p "$port" >/dev/null 2>&1 &
	s=$!
	wait_listening "$port" $s
	ucx_perftest localhost -p "$port" -t tag_bw -T 4 -n 100000000 \
		>/dev/null 2>&1 &
	c=$!
	wait_for 20 all_rang
	sleep 1.2 # the ring records are refreshed once a second
	"$MLX5EMU" stat --machine
	kill $c $s
	wait
}
export port
export -f exchange all_rang wait_for wait_listening listening lib_listening_or_gone

# snapshot LEVEL: the stat records of both processes while they run
snapshot() {
	# shellcheck disable=SC2086
	MLX5_UAR_SHARING=$1 timeout -k 2 90 "$MLX5EMU" run $opts \
		--fabric="ucxthr.$$" -- bash -c exchange || true
}

# placement OUT: one line per QP, 'pid type n page slots' (n: the QP's
# rank among its process's QPs of that type = the worker)
placement() {
	echo "$1" | grep '^qp ' | while read -r line; do
		pid=$(echo "$line" | sed 's/.* pid=\([0-9]*\).*/\1/')
		qpn=$(echo "$line" | sed 's/.* qpn=\(0x[0-9a-f]*\).*/\1/')
		page=$(echo "$line" | sed 's/.* page_id=\(0x[0-9a-f]*\).*/\1/')
		type=$(echo "$line" | sed 's/.* type=\([a-z]*\).*/\1/')
		slots=$(echo "$1" | grep "^ring pid=$pid .*qpn=$qpn " |
			sed 's/.* page_id=\(0x[0-9a-f]*\) slot=\(0x[0-9a-f]*\).*/\1:\2/' |
			sort -u | paste -sd,) || true
		echo "$pid $type $qpn $page $slots"
	done | awk '{ n = w[$1 " " $2]++; print $1, $2, n, $3, $4, $5 }' || true
}

# shape OUT: per process and page, the QPs it holds as type+worker
shape() {
	echo "$1" | awk '{ k = $1 " " $5; q[k] = q[k] " " $2 $3 }
		END { for (k in q) print q[k] }' | sort
}

declare -A shapes
for level in 1 2; do
	out=$(snapshot $level)
	p=$(placement "$out")
	echo "== MLX5_UAR_SHARING=$level: pid type worker qpn page uUAR(page:slot)"
	echo "$p"
	[ "$(echo "$out" | grep -c '^qp ')" -ge 16 ] ||
		{ echo "FAIL: 8 QPs per process expected"; fail=1; }
	while read -r pid type n qpn page slots; do
		[ -z "$slots" ] && continue
		case "$slots" in
		"$page:0x800" | "$page:0x900" | "$page:0x800,$page:0x900") ;;
		"$page:0xa00" | "$page:0xb00" | "$page:0xa00,$page:0xb00") ;;
		*) echo "FAIL: $qpn ($type $n) rang on $slots, its page is $page"
		   fail=1 ;;
		esac
	done <<<"$p"
	shapes[$level]=$(shape "$p")
	echo "-- QPs per UAR page:"
	echo "${shapes[$level]}"
done
# no thread domain: the level changes nothing for UCX
if [ "${shapes[1]}" != "${shapes[2]}" ]; then
	echo "FAIL: placement differs between MLX5_UAR_SHARING=1 and =2"
	fail=1
fi
exit $fail
