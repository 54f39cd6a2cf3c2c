#!/bin/bash
# The NIC thread's scheduling class (mlx5emu/src/nic/engine/pace.c): the class it
# asked for and got is in the trace and in the process's stat record, and
# the slow mode (the default class, no preemption on wake-up) is said once.
# Each class moves data: a loopback RC run passes.
#
#   nic_sched_test.sh IB_WRITE_MT      ($MLX5EMU: the launcher)
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
wmt=$1
scratch_dir dir

# run_class NAME [PREFIX...]: a loopback run with MLX5EMU_NIC_SCHED=NAME
# under PREFIX; leaves the trace in $dir/NAME.trace, the stat record's
# process line in $dir/NAME.proc
run_class() {
	local want=$1
	shift
	rm -rf "$dir/stat" "$dir/$want.trace"
	"$@" env MLX5EMU_NIC_SCHED="$want" "$MLX5EMU" run --stat-dir="$dir/stat" \
		--trace="$dir/$want.trace" -- \
		"$wmt" --loopback --endpoints=dynamic --threads=1 -n 2000 >"$dir/$want.out" 2>&1 ||
		{ cat "$dir/$want.out"; die "MLX5EMU_NIC_SCHED=$want: the run failed"; }
	grep -h '^process ' "$dir"/stat/* >"$dir/$want.proc" ||
		die "MLX5EMU_NIC_SCHED=$want: no process record"
	echo "$want: $(grep -h 'nic: ' "$dir/$want.trace" | head -2) / $(cat "$dir/$want.proc")"
}

# the default class: slow, said exactly once
run_class other
[ "$(grep -c 'nic: slow mode' "$dir/other.trace")" -eq 1 ] ||
	die "the slow mode is not said exactly once in the trace"
grep -q ' nic=other ' "$dir/other.proc" || die "stat does not say nic=other"

# a short slice: where the kernel honours it (6.12), else the slow mode
run_class slice
if grep -q 'nic: scheduling class slice' "$dir/slice.trace"; then
	grep -q ' nic=slice ' "$dir/slice.proc" || die "stat does not say nic=slice"
else
	grep -q 'nic: slow mode' "$dir/slice.trace" ||
		die "no short slice and no word of the slow mode"
	grep -q ' nic=other ' "$dir/slice.proc" || die "stat does not say nic=other"
fi

# real time where the process may; without CAP_SYS_NICE auto falls back
# to the slice (or the slow mode), never fails
has_sys_nice() { # CAP_SYS_NICE (23) in the effective set
	local eff
	eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
	(((0x$eff >> 23) & 1))
}
if has_sys_nice && [ "$(ulimit -r)" = 0 ] && command -v setpriv >/dev/null; then
	run_class fifo
	grep -q ' nic=fifo ' "$dir/fifo.proc" || die "root did not get fifo"
	run_class auto
	grep -q ' nic=fifo ' "$dir/auto.proc" || die "auto as root is not fifo"
	run_class auto setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice
	grep -Eq ' nic=(slice|other) ' "$dir/auto.proc" ||
		die "auto without CAP_SYS_NICE: $(cat "$dir/auto.proc")"
	! grep -q ' nic=fifo ' "$dir/auto.proc" || die "fifo without CAP_SYS_NICE"
else
	echo "no CAP_SYS_NICE (or RLIMIT_RTPRIO set): the fifo cases are not run"
fi
