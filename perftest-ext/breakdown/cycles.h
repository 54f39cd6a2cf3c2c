/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The CPU's cycle counter, read so that the instructions being timed can
 * neither start before a stamp nor finish after the next one:
 *   x86-64:  rdtscp (waits for what precedes) then lfence (holds back what
 *            follows); the TSC is invariant on current CPUs;
 *   aarch64: isb, cntvct_el0, isb (the generic timer's virtual count).
 * Before either, the stores already issued are drained (mfence; dsb sy), so
 * that what a pair of stamps times pays for its own stores, not the code
 * after it.
 * Ticks become ns through a frequency calibrated against CLOCK_MONOTONIC_RAW.
 */
#ifndef BD_CYCLES_H
#define BD_CYCLES_H

#include <stdint.h>

#if defined(__x86_64__)
static inline uint64_t bd_stamp(void)
{
	uint32_t lo, hi, aux;

	asm volatile("mfence\n\trdtscp\n\tlfence"
		     : "=a"(lo), "=d"(hi), "=c"(aux)
		     :
		     : "memory");
	return ((uint64_t)hi << 32) | lo;
}
#define BD_TIMER_NAME "mfence+rdtscp+lfence (TSC)"
#elif defined(__aarch64__)
static inline uint64_t bd_stamp(void)
{
	uint64_t v;

	asm volatile("dsb sy\n\tisb\n\tmrs %0, cntvct_el0\n\tisb"
		     : "=r"(v)
		     :
		     : "memory");
	return v;
}
#define BD_TIMER_NAME "dsb+isb+cntvct_el0+isb (generic timer)"
#else
#error "ib_write_breakdown: no cycle counter for this architecture"
#endif

struct bd_timer {
	double ns_per_tick; /* calibrated */
	double nominal_hz; /* what the CPU claims (aarch64 CNTFRQ), else 0 */
	double overhead_ticks; /* mean of back-to-back stamps */
	double overhead_ns;
};

/* calibrate the tick and measure the stamp's own cost */
int bd_timer_init(struct bd_timer *t);

/* ticks between two stamps, less the stamp's overhead, in ns (may be < 0) */
static inline double bd_ticks_ns(const struct bd_timer *t, uint64_t ticks)
{
	return ((double)ticks - t->overhead_ticks) * t->ns_per_tick;
}

#endif
