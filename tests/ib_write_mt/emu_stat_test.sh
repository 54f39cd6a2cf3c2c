#!/bin/bash
# emu_stat_test.sh fresh|labels|exited: what `mlx5emu stat` shows of an
# ib_write_mt --loopback run (issue 22, section 2)
#   fresh   doorbell counts read 2.5 s apart while writes are posted differ
#           (the records are refreshed once a second, not frozen at the
#           first refresh)
#   labels  the contexts are told apart: two initiators (mpi-everywhere, 2
#           threads) whose QPs ring doorbells, one target whose QPs ring none
#   exited  a process that exited cleanly reads state=exited (exited=1 read
#           like an exit status of 1)
here=$(dirname "$0")
. "$here/../lib.sh"
: "${MLX5EMU:?}" "${IB_WRITE_MT:?}"
check=${1:?fresh|labels|exited}
scratch_dir dir

# the doorbells of every emulated process, summed
doorbells() {
	"$MLX5EMU" stat --dir="$dir" --machine |
		sed -n 's/^ring .* count=\([0-9]*\).*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}
rang() {
	[ "$(doorbells)" -gt 0 ]
}

if [ "$check" = exited ]; then
	"$MLX5EMU" run --stat-dir="$dir" -- "$IB_WRITE_MT" --loopback \
		--endpoints=dynamic --threads=2 -n 64 >/dev/null
	"$MLX5EMU" stat --dir="$dir" --machine | grep '^process' || true
	"$MLX5EMU" stat --dir="$dir" --machine | grep -Eq '^process .* state=exited( |$)' ||
		die "no state=exited after a clean exit"
	! "$MLX5EMU" stat --dir="$dir" --machine | grep -q 'exited=' ||
		die "the record still says exited="
	"$MLX5EMU" stat --dir="$dir" | grep -Eq '^pid [0-9]* \(ib_write_mt\) exited(,|$)' ||
		die "the human form does not say exited"
	echo "ok: state=exited"
	exit 0
fi

# the run: long enough to be read twice while it writes; stopped with SIGINT
"$MLX5EMU" run --stat-dir="$dir" -- "$IB_WRITE_MT" --loopback \
	--endpoints=mpi-everywhere --threads=2 -D 60 >/dev/null 2>&1 &
run=$!
at_exit "kill -INT $run 2>/dev/null; wait $run"
wait_for 60 rang || die "no doorbell rang within 60 s"
case $check in
fresh)
	first=$(doorbells)
	sleep 2.5
	second=$(doorbells)
	echo "doorbells: $first, 2.5 s later $second"
	[ "$second" -gt "$first" ] || die "doorbell counts frozen at $first"
	;;
labels)
	# the initiators' QPs ring once each posts; the target's never do
	initiators() {
		[ "$("$MLX5EMU" stat --dir="$dir" | grep -c '^  context .* (initiator:')" -eq 2 ]
	}
	wait_for 30 initiators || true
	out=$("$MLX5EMU" stat --dir="$dir")
	echo "$out" | grep '^  context'
	[ "$(echo "$out" | grep -c '^  context .* (initiator: its QPs rang [0-9]* doorbells)')" -eq 2 ] ||
		die "not two contexts labelled initiator"
	[ "$(echo "$out" | grep -c '^  context .* (target: its QPs rang no doorbell)')" -eq 1 ] ||
		die "not one context labelled target"
	;;
*) die "unknown check $check" ;;
esac
echo "ok: $check"
