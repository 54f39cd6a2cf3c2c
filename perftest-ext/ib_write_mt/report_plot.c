// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * --plot: rate, resources and memory side by side, as paper Fig. 12: bars
 * per category, or with --sweep a line per category over the swept value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "report.h"

enum { S_RATE, S_UARS, S_UUARS, S_QPS, S_CQS, S_MEM, S_COUNT };
/* --doorbell's panels: counted on the emulated device, or modelled */
enum { S_PCIE = S_COUNT, S_WQE, S_MMIO };

/* device, UAR mode, BlueFlame, threads, size: the run, in the title */
static void caption(const struct wmt_options *o, char *title, size_t len)
{
	char thr[24], size[24], pl[24], cq[24];
	const char *uar = getenv("MLX5EMU_UAR");

	snprintf(
		title, len,
		"ib_write_mt on %s%s, UAR %s, BlueFlame %s: %s threads, %s-byte RDMA writes, p=%s, q=%s",
		o->ib_dev ? o->ib_dev : "?",
		wmt_emulated() ? " (emulated)" : "", uar ? uar : "kernel's",
		o->blueflame ? "on" : "off",
		wmt_swept(o, SWEEP_THREADS, o->threads, thr, sizeof(thr)),
		wmt_swept(o, SWEEP_SIZE, o->size, size, sizeof(size)),
		wmt_swept(o, SWEEP_POSTLIST, o->post_list, pl, sizeof(pl)),
		wmt_swept(o, SWEEP_UNSIGNALED, o->cq_mod, cq, sizeof(cq)));
	if (!o->doorbell_given)
		return;
	/* what each panel's figures are */
	snprintf(
		title + strlen(title), len - strlen(title), "%s",
		wmt_emulated() ?
			"; counted (emu NIC): MMIO, WQE B; modelled: PCIe B; rate: the emulator's" :
			"; rate: the device's, no counts on hardware");
}

/* a row's figure for series s, NaN when it did not run */
static double figure(const struct wmt_row *r, int s)
{
	if (!r->ran || r->status)
		return NAN;
	switch (s) {
	case S_RATE:
		return r->mmsgs;
	case S_UARS:
		return r->usage.uar_pages;
	case S_UUARS:
		return r->usage.uuars_used;
	case S_QPS:
		return r->usage.count[RES_QP];
	case S_CQS:
		return r->usage.count[RES_CQ];
	case S_PCIE:
		return r->dbc.counted ? r->dbc.pcie_bytes : NAN;
	case S_WQE:
		return r->dbc.counted ? r->dbc.wqe_bytes : NAN;
	case S_MMIO:
		return r->dbc.counted ? r->dbc.mmio : NAN;
	default:
		return wmt_row_mem_per_ep(r) / 1024;
	}
}

static const struct {
	const char *title, *ylabel;
} panel_text[2][3] = {
	{
		{ "Message rate", "Mmsg/s" },
		{ "UAR pages allocated (maps)", "pages" },
		{ "Memory", "KiB per endpoint (thread)" },
	},
	{
		{ "Message rate", "Mmsg/s" },
		{ "PCIe bytes per message (model of emu counts)", "bytes" },
		{ "WQE bytes fetched per message (emu)", "bytes" },
	},
};

#define NSERIES (CAT_COUNT * DB_COUNT)

/* --sweep: per panel a line per category over the swept value */
static int plot_lines(const char *path, const struct wmt_options *o,
		      const struct wmt_row *rows, unsigned int n,
		      const char *title, char *err, size_t errlen)
{
	static const int shown[2][3] = { { S_RATE, S_UARS, S_MEM },
					 { S_RATE, S_PCIE, S_WQE } };
	double *v = calloc((size_t)n * 3 * NSERIES, sizeof(*v));
	double *x = calloc(n, sizeof(*x));
	const char **labels = calloc(n, sizeof(*labels));
	char(*names)[64] = calloc(NSERIES, sizeof(*names));
	struct plot_series series[3][NSERIES];
	unsigned int i, k, p, d, ns = o->ncats * o->ndb;
	unsigned int db = o->doorbell_given;
	struct plot_panel panels[3];
	struct plot_spec spec;
	char xlabel[64];
	int ret = -1;

	if (!v || !x || !labels || !names) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (k = 0; k < o->ncats; k++)
		for (d = 0; d < o->ndb; d++)
			snprintf(names[k * o->ndb + d], sizeof(names[0]),
				 "%s%s%s", wmt_category_name(o->order[k]),
				 db ? " " : "",
				 db ? wmt_doorbell_name(o->db_order[d]) : "");
	for (i = 0; i < n; i++) {
		const char *eq = strchr(rows[i].point, '=');

		labels[i] = rows[i].point;
		x[i] = eq ? strtod(eq + 1, NULL) : i + 1;
	}
	for (p = 0; p < 3; p++) {
		for (k = 0; k < ns; k++) {
			double *col = v + ((size_t)p * NSERIES + k) * n;
			const char *cat =
				wmt_category_name(o->order[k / o->ndb]);
			unsigned int mode = o->db_order[k % o->ndb];

			for (i = 0; i < n; i++)
				col[i] = strcmp(rows[i].label, cat) ||
							 rows[i].doorbell !=
								 mode ?
						 NAN :
						 figure(&rows[i], shown[db][p]);
			series[p][k] = (struct plot_series){ names[k], col };
		}
		panels[p] = (struct plot_panel){ panel_text[db][p].title,
						 panel_text[db][p].ylabel,
						 series[p], ns };
	}
	snprintf(xlabel, sizeof(xlabel), "%.*s (log2)",
		 (int)strcspn(rows[0].point, "="), rows[0].point);
	spec = (struct plot_spec){ .title = title,
				   .xlabel = xlabel,
				   .labels = labels,
				   .nlabels = n,
				   .x = x,
				   .logx = true,
				   .panels = panels,
				   .npanels = 3 };
	ret = plot_render(&spec, path, err, errlen);
out:
	free(v);
	free(x);
	free(labels);
	free(names);
	return ret;
}

int wmt_report_plot(const char *path, const struct wmt_options *o,
		    const struct wmt_row *rows, unsigned int n, char *err,
		    size_t errlen)
{
	double *v = calloc((size_t)n * S_COUNT, sizeof(*v));
	char(*names)[96] = calloc(n, sizeof(*names));
	const char **labels = calloc(n, sizeof(*labels));
	struct plot_series rate[1], res[4], mem[1];
	struct plot_panel panels[3];
	struct plot_spec spec;
	char title[512];
	unsigned int i;
	int s, ret = -1;

	caption(o, title, sizeof(title));
	if (o->sweep && n) {
		ret = plot_lines(path, o, rows, n, title, err, errlen);
		goto out;
	}
	if (!v || !names || !labels) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct wmt_row *r = &rows[i];

		/* a row not run: no bars, and its label says why */
		snprintf(names[i], sizeof(names[i]), "%s%s%s%s", r->label,
			 r->point[0] ? " " : "", r->point,
			 r->ran && !r->status ? "" : " (n/a)");
		labels[i] = names[i];
		for (s = 0; s < S_COUNT; s++)
			v[s * n + i] = figure(r, s);
	}
	rate[0] = (struct plot_series){ "message rate", v + S_RATE * n };
	res[0] = (struct plot_series){ "UAR pages allocated (maps)",
				       v + S_UARS * n };
	res[1] = (struct plot_series){ "uUARs used (bf.reg)", v + S_UUARS * n };
	res[2] = (struct plot_series){ "QPs", v + S_QPS * n };
	res[3] = (struct plot_series){ "CQs", v + S_CQS * n };
	mem[0] = (struct plot_series){ "memory per endpoint", v + S_MEM * n };
	panels[0] = (struct plot_panel){ "Message rate", "Mmsg/s", rate, 1 };
	panels[1] =
		(struct plot_panel){ "Hardware resources", "count", res, 4 };
	panels[2] = (struct plot_panel){ "Memory", "KiB per endpoint (thread)",
					 mem, 1 };
	spec = (struct plot_spec){ .title = title,
				   .xlabel = "",
				   .labels = labels,
				   .nlabels = n,
				   .panels = panels,
				   .npanels = 3 };
	ret = plot_render(&spec, path, err, errlen);
out:
	free(v);
	free(names);
	free(labels);
	return ret;
}
