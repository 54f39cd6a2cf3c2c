/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Clustered bar charts through gnuplot (Debian package gnuplot-nox): one
 * panel per metric group, side by side, sharing the x labels (categories
 * or sweep points). The format comes from the output name: .svg or .png.
 * Every text is drawn as written: gnuplot's enhanced-text markup is off.
 */
#ifndef PERFTEST_EXT_PLOT_H
#define PERFTEST_EXT_PLOT_H

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
