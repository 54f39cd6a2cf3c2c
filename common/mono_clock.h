/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Seconds on CLOCK_MONOTONIC: for deadlines and rates, never wall time. */
#ifndef TDSHARE_MONO_CLOCK_H
#define TDSHARE_MONO_CLOCK_H

#include <time.h>

static inline double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
