#!/bin/bash
# The NIC records which UAR page and slot each doorbell arrived on: with
# BlueFlame a QP alternates between the two halves of its bfreg
# (0x800/0x900 or 0xa00/0xb00) on the page it was created on. With
# MLX5_SHUT_UP_BF=1 a static bfreg still alternates (libmlx5 toggles the
# offset after every doorbell), while in dynamic mode the QP moves to the
# doorbell page, whose singleton bfreg has no halves: 0x800 only.
#   ring_test.sh STAGE_BIN PORT bf|nobf [LAUNCHER OPTS]
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
bin=$1 port=$2 mode=$3 opts=${4:-}
if [ "$mode" = nobf ]; then
	export MLX5_SHUT_UP_BF=1
	case "$opts" in *--uar=static*) mode=bf ;; esac
fi

# both_rang: both QPs have rung (the two ends are not equally quick under
# load)
both_rang() {
	[ "$("$MLX5EMU" stat --machine |
		sed -n 's/^ring .*qpn=\(0x[0-9a-f]*\) count=[1-9].*/\1/p' |
		sort -u | wc -l)" -ge 2 ]
}
# exchange (inside the launcher): a pingpong pair, and the stat records
# once both QPs have rung
exchange() {
	"$bin/ibv_rc_pingpong" -e -n 100000000 -p "$port" >/dev/null 2>&1 &
	s=$!
	wait_listening "$port" $s
	"$bin/ibv_rc_pingpong" -e -n 100000000 -p "$port" localhost >/dev/null 2>&1 &
	c=$!
	wait_for 20 both_rang
	sleep 1.2 # the records are refreshed once a second
	"$MLX5EMU" stat --machine
	kill $c $s
	wait
}
export bin port
export -f exchange both_rang wait_for wait_listening listening lib_listening_or_gone
# shellcheck disable=SC2086
out=$(timeout -k 2 60 "$MLX5EMU" run $opts -- bash -c exchange) || true
echo "$out" | grep -E '^(qp|ring)' || true
fail=0
while read -r pid qpn page; do
	slots=$(echo "$out" | grep "^ring pid=$pid .*page_id=$page .*qpn=$qpn " |
		sed 's/.*slot=\(0x[0-9a-f]*\).*/\1/' | sort | paste -sd,) || true
	case "$mode:$slots" in
	bf:0x800,0x900 | bf:0xa00,0xb00 | nobf:0x800) echo "qp $qpn page $page: $slots ok" ;;
	*) echo "FAIL: qp $qpn page $page rang on '$slots'"; fail=1 ;;
	esac
done < <(echo "$out" | sed -n 's/^qp pid=\([0-9]*\) .*qpn=\(0x[0-9a-f]*\) page_id=\(0x[0-9a-f]*\) .*/\1 \2 \3/p')
[ "$(echo "$out" | grep -c '^qp ')" -eq 2 ] || { echo "FAIL: two QPs expected"; fail=1; }
exit $fail
