#!/bin/bash
# callgrind_bench.sh [N1 N2]: instructions per message that ib_write_mt
# spends itself (outside libibverbs and libmlx5, and outside the emulated
# device), next to Debian's ib_write_bw with the same options and
# iteration count: one thread, 2-byte RDMA writes, post list 32, on the
# emulated device. Each tool's client runs under callgrind twice, with N1
# and N2 messages; the difference over N2-N1 is the cost per message
# (setup and teardown cancel out).
#
# Debian's ib_write_bw (perftest 4.5) refuses -Q 64 with -l 32 ("post
# list size must be a multiple of CQ moderation"), so it is measured with
# -Q 32; ib_write_mt is measured with both -Q 64 (the paper's) and -Q 32.
# Under callgrind the emulated NIC runs on the client's own (serialised)
# threads: ib_write_mt's default --poll yields the core while it waits,
# ib_write_bw spins; the --poll=busy line shows what spinning costs us.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stage_dir=${STAGE:-$(cd "$here/../../../build/stage" && pwd)}
n1=${1:-3200}
n2=${2:-12800}
. "$stage_dir/../env.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
port=19100

# own_ir TOOL Q N [EXTRA]: the client's own instructions for N messages
own_ir() {
	local tool=$1 q=$2 n=$3 extra=${4:-} out=$dir/$1-$2-$3${4:-} common
	mkdir -p "$out"
	port=$((port + 1))
	if [ "$tool" = ib_write_bw ]; then
		common=(ib_write_bw -s 2 -l 32 -Q "$q" -n "$n" -p "$port")
	else
		common=("$stage_dir/bin/ib_write_mt" --threads=1 -s 2 -l 32 -Q "$q" -n "$n"
			--endpoints=dynamic -p "$port" $extra)
	fi
	mlx5emu run --fabric="wmt-bench-$$" -- bash -c '
		"$@" >/dev/null 2>&1 &
		sleep 0.5
		valgrind -q --tool=callgrind --separate-threads=yes \
			--callgrind-out-file='"$out"'/cg.%p "$@" localhost >/dev/null
		rc=$?
		wait
		exit $rc' _ "${common[@]}"
	python3 "$here/callgrind_own.py" "$out"/cg.*
}

per_msg() {
	local a b
	a=$(own_ir "$1" "$2" "$n1" "${3:-}")
	b=$(own_ir "$1" "$2" "$n2" "${3:-}")
	python3 -c "print(f'{($b - $a) / ($n2 - $n1):.1f}')"
}

mt64=$(per_msg ib_write_mt 64)
mt32=$(per_msg ib_write_mt 32)
busy=$(per_msg ib_write_mt 32 --poll=busy)
bw32=$(per_msg ib_write_bw 32)
ratio=$(python3 -c "print(f'{$mt32 / $bw32:.3f}')")
echo "instructions per message, the tool's own (callgrind Ir outside libibverbs, libmlx5, mlx5emu):"
echo "  ib_write_mt -s 2 -l 32 -Q 64 --threads=1 : $mt64"
echo "  ib_write_mt -s 2 -l 32 -Q 32 --threads=1 : $mt32"
echo "  ib_write_mt ... -Q 32 --poll=busy        : $busy  (spins while the emulated NIC waits for the core)"
echo "  ib_write_bw -s 2 -l 32 -Q 32             : $bw32  (Debian perftest 4.5 refuses -Q 64 with -l 32)"
echo "  ratio ib_write_mt / ib_write_bw (-Q 32)  : $ratio  (must be <= 0.5)"
echo "  messages: $n1 and $n2 per run, the difference divided by $((n2 - n1))"
echo "reproduce: $0 $n1 $n2"
python3 -c "import sys; sys.exit(0 if $mt32 <= $bw32 / 2 and $mt64 <= $bw32 / 2 else 1)"
