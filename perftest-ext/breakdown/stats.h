/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Mean, median and spread of a set of samples, as Table 1 and Fig. 4 show. */
#ifndef BD_STATS_H
#define BD_STATS_H

#include <stddef.h>

struct bd_stats {
	size_t n;
	double mean, median, sd, min, max, p5, p95;
};

/*
 * The slowest 1% of samples are dropped before anything is computed: on a
 * shared machine those are interrupts and preemptions, not the code timed.
 * The mean is then the figure that adds up: the timer counts in steps of
 * several ns, below which only an average resolves anything.
 */
#define BD_KEEP 0.99

/* all of v (sorted in place) */
void bd_stats_compute(double *v, size_t n, struct bd_stats *s);
/* v less its slowest 1% (sorted in place); s->n counts the samples kept */
void bd_stats_compute_kept(double *v, size_t n, struct bd_stats *s);
/* the BD_KEEP-quantile of v (v is left as it was) */
double bd_stats_keep_limit(const double *v, size_t n);

#endif
