// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The what-if plots (Fig. 17), through perftest-ext's gnuplot driver:
 * --plot=FILE draws every metric as a panel of one figure; --plot-dir=DIR
 * writes what-if-<metric>.dat (the points, one row per reduction) and
 * what-if-<metric>.svg for each metric.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "plot.h"
#include "report.h"
#include "whatif.h"

struct what_if_table {
	unsigned int ncomp;
	enum bd_comp comp[BD_NCOMP];
	double speedup[BD_NCOMP][BD_WHATIF_STEPS];
	char label[BD_WHATIF_STEPS][8];
	const char *labels[BD_WHATIF_STEPS];
};

static void table_fill(struct what_if_table *t, enum bd_metric metric,
		       const struct bd_model *m)
{
	int c, i;

	t->ncomp = 0;
	for (c = 0; c < BD_NCOMP; c++) {
		if (!bd_whatif_applies(metric, m, c))
			continue;
		t->comp[t->ncomp] = c;
		for (i = 0; i < BD_WHATIF_STEPS; i++)
			t->speedup[t->ncomp][i] = bd_whatif_speedup(
				metric, m, c, bd_whatif_percent(i));
		t->ncomp++;
	}
	for (i = 0; i < BD_WHATIF_STEPS; i++) {
		snprintf(t->label[i], sizeof(t->label[i]), "%d%%",
			 bd_whatif_percent(i));
		t->labels[i] = t->label[i];
	}
}

/* the points as plotted: a header naming the columns, one row per step */
static int write_dat(const char *path, const struct what_if_table *t)
{
	FILE *f = fopen(path, "w");
	unsigned int c;
	int i;

	if (!f)
		return -errno;
	fprintf(f, "percent");
	for (c = 0; c < t->ncomp; c++)
		fprintf(f, " %s", bd_comp_info[t->comp[c]].key);
	fputc('\n', f);
	for (i = 0; i < BD_WHATIF_STEPS; i++) {
		fprintf(f, "%d", bd_whatif_percent(i));
		for (c = 0; c < t->ncomp; c++)
			fprintf(f, " %.6f", t->speedup[c][i]);
		fputc('\n', f);
	}
	return fclose(f) ? -errno : 0;
}

/* one panel per table, side by side */
static int render(const char *path, const struct what_if_table *t,
		  const enum bd_metric *metric, unsigned int ntables)
{
	struct plot_series series[BD_NMETRICS][BD_NCOMP];
	struct plot_panel panel[BD_NMETRICS];
	double percent[BD_WHATIF_STEPS];
	struct plot_spec spec = {
		.title =
			"What-if: one component reduced (Breaking Band, Fig. 17)",
		.xlabel = "reduction of the component (%)",
		.labels = t[0].labels,
		.nlabels = BD_WHATIF_STEPS,
		.x = percent, /* a line per component */
		.panels = panel,
		.npanels = ntables,
	};
	char err[256];
	unsigned int c, k;

	for (k = 0; k < BD_WHATIF_STEPS; k++)
		percent[k] = bd_whatif_percent(k);
	for (k = 0; k < ntables; k++) {
		for (c = 0; c < t[k].ncomp; c++) {
			series[k][c].name = bd_comp_info[t[k].comp[c]].key;
			series[k][c].values = t[k].speedup[c];
		}
		panel[k] = (struct plot_panel){
			.title = bd_metric_key[metric[k]],
			.ylabel = "speedup",
			.series = series[k],
			.nseries = t[k].ncomp,
		};
	}
	if (plot_render(&spec, path, err, sizeof(err))) {
		fprintf(stderr, "ib_write_breakdown: %s: %s\n", path, err);
		return -EIO;
	}
	return 0;
}

int bd_plot_what_if_file(const char *path, const struct bd_model *m)
{
	struct what_if_table t[BD_NMETRICS];
	enum bd_metric metric[BD_NMETRICS];
	int k, ret;

	for (k = 0; k < BD_NMETRICS; k++) {
		metric[k] = k;
		table_fill(&t[k], k, m);
	}
	ret = render(path, t, metric, BD_NMETRICS);
	if (!ret)
		printf("what-if plot: %s\n", path);
	return ret;
}

int bd_plot_what_if(const char *dir, const struct bd_model *m)
{
	char dat[PATH_MAX], svg[PATH_MAX];
	struct what_if_table t;
	int metric, ret;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "ib_write_breakdown: %s: %s\n", dir,
			strerror(errno));
		return -errno;
	}
	for (metric = 0; metric < BD_NMETRICS; metric++) {
		const char *key = bd_metric_key[metric];
		enum bd_metric one = metric;

		table_fill(&t, metric, m);
		snprintf(dat, sizeof(dat), "%s/what-if-%s.dat", dir, key);
		snprintf(svg, sizeof(svg), "%s/what-if-%s.svg", dir, key);
		ret = write_dat(dat, &t);
		if (ret) {
			fprintf(stderr, "ib_write_breakdown: %s: %s\n", dat,
				strerror(-ret));
			return ret;
		}
		ret = render(svg, &t, &one, 1);
		if (ret)
			return ret;
		printf("what-if plot: %s (points: %s)\n", svg, dat);
	}
	return 0;
}
