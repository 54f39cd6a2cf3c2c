/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The spread of a row's repeated runs (--repeat): one run is a few
 * milliseconds to seconds of a loaded machine, so a single rate may be far
 * from the next one.
 */
#ifndef WMT_SPREAD_H
#define WMT_SPREAD_H

struct wmt_spread {
	double min, median, max;
};

/* of v[0..n-1] (n > 0; v is sorted in place); the median of an even
 * count is the mean of the middle two */
void wmt_spread(double *v, unsigned int n, struct wmt_spread *s);

#endif
