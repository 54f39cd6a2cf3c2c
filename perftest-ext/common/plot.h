/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Charts through gnuplot (Debian package gnuplot-nox): one panel per metric
 * group, side by side, sharing the x axis: clustered bars over labels
 * (categories), or a line per series over a numeric x (a sweep; log2 for
 * powers of two). Every series has its own colour (Okabe-Ito, colour-blind
 * safe) and marker; a legend only where a panel has several series; the
 * y axes leave headroom. The format comes from the output name: .svg or
 * .png. Every text is drawn as written: enhanced-text markup is off.
 */
#ifndef PERFTEST_EXT_PLOT_H
#define PERFTEST_EXT_PLOT_H

#include <stdbool.h>
#include <stddef.h>

struct plot_series {
	const char *name;
	const double *values; /* one per label; NaN leaves a gap */
};

struct plot_panel {
	const char *title;
	const char *ylabel;
	const struct plot_series *series;
	unsigned int nseries;
};

struct plot_spec {
	const char *title;
	const char *xlabel;
	const char *const *labels;
	unsigned int nlabels;
	const struct plot_panel *panels;
	unsigned int npanels;
	const double *x; /* numeric x per label: lines; NULL: bars */
	bool logx; /* x in powers of two: a log2 axis */
};

/* the gnuplot terminal for a file name, or NULL if the extension is unknown */
const char *plot_terminal(const char *path);

/*
 * Renders spec into path. Returns 0, or -1 with a message in err
 * (gnuplot missing or failing, unwritable file, unknown extension).
 */
int plot_render(const struct plot_spec *spec, const char *path, char *err,
		size_t errlen);

#endif
