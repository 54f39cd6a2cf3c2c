#!/bin/bash
# The NIC records which UAR page and slot each doorbell arrived on: with
# BlueFlame a QP alternates between the two halves of its bfreg
# (0x800/0x900 or 0xa00/0xb00) on the page it was created on. With
# MLX5_SHUT_UP_BF=1 a static bfreg still alternates (libmlx5 toggles the
# offset after every doorbell), while in dynamic mode the QP moves to the
# doorbell page, whose singleton bfreg has no halves: 0x800 only.
#   ring_test.sh MLX5EMU STAGE_BIN PORT bf|nobf [LAUNCHER OPTS]
set -u
emu=$1 bin=$2 port=$3 mode=$4 opts=${5:-}
[ "$mode" = nobf ] && export MLX5_SHUT_UP_BF=1
case "$opts" in *--uar=static*) [ "$mode" = nobf ] && mode=bf ;; esac
# shellcheck disable=SC2086
out=$(timeout -k 2 60 "$emu" run $opts -- bash -c "
	'$bin/ibv_rc_pingpong' -e -n 100000000 -p $port >/dev/null 2>&1 & s=\$!
	for i in \$(seq 100); do ss -ltn | grep -q ':$port ' && break; sleep 0.1; done
	'$bin/ibv_rc_pingpong' -e -n 100000000 -p $port localhost >/dev/null 2>&1 & c=\$!
	for i in \$(seq 100); do
		sleep 0.2
		# both QPs have rung (the two ends are not equally quick under load)
		[ \$('$emu' stat --machine | sed -n 's/^ring .*qpn=\\(0x[0-9a-f]*\\) count=[1-9].*/\\1/p' |
			sort -u | wc -l) -ge 2 ] && break
	done
	sleep 1.2 # the records are refreshed once a second
	'$emu' stat --machine
	kill \$c \$s; wait")
echo "$out" | grep -E '^(qp|ring)'
fail=0
while read -r pid qpn page; do
	slots=$(echo "$out" | grep "^ring pid=$pid .*page_id=$page .*qpn=$qpn " |
		sed 's/.*slot=\(0x[0-9a-f]*\).*/\1/' | sort | paste -sd,)
	case "$mode:$slots" in
	bf:0x800,0x900 | bf:0xa00,0xb00 | nobf:0x800) echo "qp $qpn page $page: $slots ok" ;;
	*) echo "FAIL: qp $qpn page $page rang on '$slots'"; fail=1 ;;
	esac
done < <(echo "$out" | sed -n 's/^qp pid=\([0-9]*\) .*qpn=\(0x[0-9a-f]*\) page_id=\(0x[0-9a-f]*\) .*/\1 \2 \3/p')
[ "$(echo "$out" | grep -c '^qp ')" -eq 2 ] || { echo "FAIL: two QPs expected"; fail=1; }
exit $fail
