// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The cycle counter and its frequency: stamps that fence the timed code
 * (cycles.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "cycles.h"

#define CAL_ROUNDS 5
#define CAL_NS 10000000.0 /* 10 ms per round */
#define OVH_SAMPLES 20000
#define OVH_KEPT (OVH_SAMPLES * 99 / 100)

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double nominal_hz(void)
{
#if defined(__aarch64__)
	uint64_t f;

	asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return (double)f;
#else
	return 0;
#endif
}

int bd_timer_init(struct bd_timer *t)
{
	double rate[CAL_ROUNDS], *ovh;
	int i;

	/* the median of a few rounds: a preemption spoils one, not all */
	for (i = 0; i < CAL_ROUNDS; i++) {
		double n0 = mono_ns(), n1;
		uint64_t c0 = bd_stamp(), c1;

		do {
			n1 = mono_ns();
			c1 = bd_stamp();
		} while (n1 - n0 < CAL_NS);
		rate[i] = (n1 - n0) / (double)(c1 - c0);
	}
	qsort(rate, CAL_ROUNDS, sizeof(rate[0]), cmp_double);
	t->ns_per_tick = rate[CAL_ROUNDS / 2];
	t->nominal_hz = nominal_hz();

	ovh = malloc(OVH_SAMPLES * sizeof(*ovh));
	if (!ovh)
		return -ENOMEM;
	for (i = 0; i < OVH_SAMPLES; i++) {
		uint64_t a = bd_stamp();

		ovh[i] = (double)(bd_stamp() - a);
	}
	/* the mean, as the timer counts in coarse steps; without the
	 * slowest 1% (interrupts) */
	qsort(ovh, OVH_SAMPLES, sizeof(*ovh), cmp_double);
	t->overhead_ticks = 0;
	for (i = 0; i < OVH_KEPT; i++)
		t->overhead_ticks += ovh[i];
	t->overhead_ticks /= OVH_KEPT;
	t->overhead_ns = t->overhead_ticks * t->ns_per_tick;
	free(ovh);
	return 0;
}
