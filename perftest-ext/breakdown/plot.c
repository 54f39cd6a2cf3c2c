// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The what-if plots (Fig. 17): one data file and one gnuplot script per
 * metric, rendered to SVG when gnuplot is installed (gnuplot-nox will do).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "whatif.h"

static int write_dat(const char *path, enum bd_metric metric,
		     const struct bd_model *m, int *ncols)
{
	FILE *f = fopen(path, "w");
	int c, i;

	if (!f)
		return -errno;
	/* the header names the columns: gnuplot titles the lines with it */
	fprintf(f, "percent");
	*ncols = 1;
	for (c = 0; c < BD_NCOMP; c++)
		if (bd_whatif_applies(metric, m, c)) {
			fprintf(f, " %s", bd_comp_info[c].key);
			++*ncols;
		}
	fputc('\n', f);
	for (i = 0; i < BD_WHATIF_STEPS; i++) {
		int pct = bd_whatif_percent(i);

		fprintf(f, "%d", pct);
		for (c = 0; c < BD_NCOMP; c++)
			if (bd_whatif_applies(metric, m, c))
				fprintf(f, " %.6f",
					bd_whatif_speedup(metric, m, c, pct));
		fputc('\n', f);
	}
	return fclose(f) ? -errno : 0;
}

static int write_gp(const char *path, const char *dat, const char *svg,
		    enum bd_metric metric, int ncols)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "set terminal svg size 800,500\nset output '%s'\n", svg);
	fprintf(f, "set title 'What-if: %s speedup (Breaking Band, Fig. 17)'\n",
		bd_metric_key[metric]);
	fprintf(f,
		"set xlabel 'reduction of one component (%%)'\nset ylabel 'speedup'\n");
	fprintf(f, "set key left top\nset grid\nset xrange [0:100]\n");
	fprintf(f,
		"plot for [i=2:%d] '%s' using 1:i with linespoints title columnheader(i)\n",
		ncols, dat);
	return fclose(f) ? -errno : 0;
}

static int run_gnuplot(const char *gp)
{
	char cmd[PATH_MAX + 64];
	int rc;

	if (system("command -v gnuplot >/dev/null 2>&1"))
		return 1; /* no gnuplot: the data and script are there */
	snprintf(cmd, sizeof(cmd), "gnuplot '%s'", gp);
	rc = system(cmd);
	return rc ? -EIO : 0;
}

int bd_plot_what_if(const char *dir, const struct bd_model *m)
{
	char dat[PATH_MAX], gp[PATH_MAX], svg[PATH_MAX];
	int metric, ret, ncols = 0;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "ib_write_breakdown: %s: %s\n", dir,
			strerror(errno));
		return -errno;
	}
	for (metric = 0; metric < BD_NMETRICS; metric++) {
		const char *key = bd_metric_key[metric];

		snprintf(dat, sizeof(dat), "%s/what-if-%s.dat", dir, key);
		snprintf(gp, sizeof(gp), "%s/what-if-%s.gp", dir, key);
		snprintf(svg, sizeof(svg), "%s/what-if-%s.svg", dir, key);
		ret = write_dat(dat, metric, m, &ncols);
		if (!ret)
			ret = write_gp(gp, dat, svg, metric, ncols);
		if (ret) {
			fprintf(stderr, "ib_write_breakdown: %s: %s\n", dir,
				strerror(-ret));
			return ret;
		}
		ret = run_gnuplot(gp);
		if (ret < 0) {
			fprintf(stderr,
				"ib_write_breakdown: gnuplot %s failed\n", gp);
			return ret;
		}
		printf("what-if plot: %s%s\n", ret ? gp : svg,
		       ret ? " (gnuplot not found: run it on this script)" :
			     "");
	}
	return 0;
}
