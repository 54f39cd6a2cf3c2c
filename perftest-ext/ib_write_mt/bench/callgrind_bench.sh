#!/bin/bash
# callgrind_bench.sh [N1 N2]: instructions per message that ib_write_mt
# spends itself (outside libibverbs and libmlx5, and outside the emulated
# device), next to Debian's ib_write_bw with the same options and
# iteration count: one thread, 2-byte RDMA writes, post list 32, on the
# emulated device.
#
# Each tool's client runs under callgrind four times: N1 and N2 messages,
# each with the emulated NIC quick and slow to wake. What counts is the
# work that grows with the messages; the wait for the NIC (which shares
# the client's core under valgrind) and what does not scale with the
# messages (setup, clock calibration, ib_write_bw's peak-bandwidth scan
# of its timestamps) are left out. callgrind_own.py says how.
#
# Debian's ib_write_bw (perftest 4.5) refuses -Q 64 with -l 32 ("post
# list size must be a multiple of CQ moderation"), so it is measured with
# -Q 32; ib_write_mt is measured with both -Q 64 (the paper's) and -Q 32.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stage_dir=${STAGE:-$(cd "$here/../../../build/stage" && pwd)}
n1=${1:-3200}
n2=${2:-12800}
. "$stage_dir/../env.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
port=19100

# profile OUT IDLE_US TOOL Q N [EXTRA]: one client run under callgrind
profile() {
	local out=$1 idle=$2 tool=$3 q=$4 n=$5 extra=${6:-} common
	mkdir -p "$out"
	port=$((port + 1))
	if [ "$tool" = ib_write_bw ]; then
		common=(ib_write_bw -s 2 -l 32 -Q "$q" -n "$n" -p "$port")
	else
		common=("$stage_dir/bin/ib_write_mt" --threads=1 -s 2 -l 32 -Q "$q" -n "$n"
			--endpoints=dynamic -p "$port" $extra)
	fi
	MLX5EMU_NIC_IDLE_US=$idle mlx5emu run --fabric="wmt-bench-$$" -- bash -c '
		"$@" >/dev/null 2>&1 &
		sleep 0.5
		valgrind -q --tool=callgrind --fair-sched=yes --separate-threads=yes \
			--dump-instr=yes --dump-line=no --compress-pos=no \
			--compress-strings=no --callgrind-out-file='"$out"'/cg.%p \
			"$@" localhost >/dev/null
		rc=$?
		wait
		exit $rc' _ "${common[@]}"
}

# per_msg TOOL Q [EXTRA]: "<own> <own with waiting> <polls>" per message
per_msg() {
	local d=$dir/$1-$2${3:-} n idle
	for n in "$n1" "$n2"; do
		for idle in 2000 1; do
			profile "$d/$n-$idle" "$idle" "$1" "$2" "$n" "${3:-}"
		done
	done
	python3 "$here/callgrind_own.py" "$n1" "$d/$n1-2000" "$d/$n1-1" \
		"$n2" "$d/$n2-2000" "$d/$n2-1"
}

read -r mt64 mt64all mt64polls < <(per_msg ib_write_mt 64)
read -r mt32 mt32all mt32polls < <(per_msg ib_write_mt 32)
read -r busy busyall busypolls < <(per_msg ib_write_mt 32 --poll=busy)
read -r bw32 bw32all bw32polls < <(per_msg ib_write_bw 32)
ratio=$(python3 -c "print(f'{$mt32 / $bw32:.3f}')")
ratio64=$(python3 -c "print(f'{$mt64 / $bw32:.3f}')")
echo "instructions per message, the tool's own (callgrind Ir outside libibverbs, libmlx5, mlx5emu)"
echo "that grow with the messages; in brackets: all the growth from N1 to N2 per message, the wait"
echo "for the emulated NIC and the rest included, and CQ polls per message"
echo "  ib_write_mt -s 2 -l 32 -Q 64 --threads=1 : $mt64  ($mt64all, $mt64polls polls)"
echo "  ib_write_mt -s 2 -l 32 -Q 32 --threads=1 : $mt32  ($mt32all, $mt32polls polls)"
echo "  ib_write_mt ... -Q 32 --poll=busy        : $busy  ($busyall, $busypolls polls)"
echo "  ib_write_bw -s 2 -l 32 -Q 32             : $bw32  ($bw32all, $bw32polls polls; Debian perftest 4.5 refuses -Q 64 with -l 32)"
echo "  ratio ib_write_mt / ib_write_bw          : $ratio with -Q 32, $ratio64 with -Q 64 (must be <= 0.5)"
echo "  messages: $n1 and $n2 per run, the difference divided by $((n2 - n1))"
echo "reproduce: $0 $n1 $n2"
python3 -c "import sys; sys.exit(0 if $mt32 <= $bw32 / 2 and $mt64 <= $bw32 / 2 else 1)"
