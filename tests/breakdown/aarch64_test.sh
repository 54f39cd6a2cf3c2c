#!/usr/bin/env bash
# The aarch64 paths of ib_write_breakdown compile, warning-free: the timer
# (cntvct_el0 between isb) with its calibration, and the raw mlx5dv post and
# poll with aarch64's barriers and NEON BlueFlame copy, and the measurement
# of its steps.
#   aarch64_test.sh <perftest-ext/breakdown> <stage include> <scratch dir>
. "$(dirname "$0")/../lib.sh"
src=$1 inc=$2 out=$3
cc=aarch64-linux-gnu-gcc
command -v $cc >/dev/null ||
	die "$cc missing (Debian gcc-aarch64-linux-gnu; cmake/install-deps.sh)"
rm -rf "$out" && mkdir -p "$out"
flags=(-O2 -Wall -Wextra -Werror -I"$src" -I"$inc")
$cc "${flags[@]}" -c "$src/cycles.c" -o "$out/cycles.o"
$cc "${flags[@]}" -c "$src/raw_qp.c" -o "$out/raw_qp.o"
# the cuts, the inline chain and the step table with aarch64's barrier timed
for f in measure_raw measure; do
	$cc "${flags[@]}" -c "$src/$f.c" -o "$out/$f.o"
done
# the inline steps themselves, instantiated for this target
cat >"$out/steps.c" <<'C'
#include "cycles.h"
#include "raw_qp.h"
uint64_t post_timed(struct bd_raw_qp *r);
uint64_t post_timed(struct bd_raw_qp *r)
{
	uint64_t t0 = bd_stamp();
	uint16_t counter;

	bd_raw_post(r, 1, true);
	return bd_stamp() - t0 + (uint64_t)bd_raw_poll(&r->cq, &counter);
}
C
$cc "${flags[@]}" -c "$out/steps.c" -o "$out/steps.o"
# the instructions are aarch64's own
objdump=aarch64-linux-gnu-objdump
command -v $objdump >/dev/null || objdump=objdump
dis=$($objdump -d "$out/steps.o" "$out/cycles.o")
for insn in 'mrs.*cntvct_el0' 'isb' 'dmb.*oshst' 'dsb.*st' 'dmb.*oshld' 'mrs.*cntfrq_el0'; do
	grep -q -E "$insn" <<<"$dis" || die "no $insn in the aarch64 code"
done
grep -q aarch64 <<<"$($objdump -f "$out/steps.o")" || die "not an aarch64 object"
echo "PASS: aarch64 timer and post path compile (cntvct_el0, isb, dmb/dsb)"
