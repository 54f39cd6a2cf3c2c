// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The spread of a row's repeated runs (--repeat). */
#include <stdlib.h>

#include "spread.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void wmt_spread(double *v, unsigned int n, struct wmt_spread *s)
{
	qsort(v, n, sizeof(*v), cmp_double);
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
