// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Mean, median, quantiles and the outlier limit of a set of samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(const double *sorted, size_t n, double q)
{
	return sorted[(size_t)(q * (double)(n - 1) + 0.5)];
}

void bd_stats_compute(double *v, size_t n, struct bd_stats *s)
{
	double sum = 0, sq = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->n = n;
	s->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s->p5 = quantile(v, n, 0.05);
	s->p95 = quantile(v, n, 0.95);
}

void bd_stats_compute_kept(double *v, size_t n, struct bd_stats *s)
{
	size_t kept = (size_t)((double)n * BD_KEEP + 0.5);

	qsort(v, n, sizeof(*v), cmp_double);
	bd_stats_compute(v, kept ? kept : n, s);
}

double bd_stats_keep_limit(const double *v, size_t n)
{
	double *copy = malloc(n * sizeof(*v)), limit;

	if (!copy || !n) {
		free(copy);
		return n ? v[0] : 0;
	}
	memcpy(copy, v, n * sizeof(*v));
	qsort(copy, n, sizeof(*copy), cmp_double);
	limit = quantile(copy, n, BD_KEEP);
	free(copy);
	return limit;
}
