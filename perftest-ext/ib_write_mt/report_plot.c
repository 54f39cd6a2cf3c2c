// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* --plot: rate and resources side by side, as paper Fig. 12 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot.h"
#include "report.h"

enum { S_RATE, S_UARS, S_UUARS, S_QPS, S_CQS, S_MEM, S_COUNT };

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
	char title[160], thr[24], size[24], pl[24], cq[24];
	unsigned int i;
	int ret = -1;

	if (!v || !names || !labels) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct wmt_row *r = &rows[i];
		bool ok = r->ran && !r->status;

		/* a row not run: no bars, and its label says why */
		snprintf(names[i], sizeof(names[i]), "%s%s%s%s", r->label,
			 r->point[0] ? " " : "", r->point, ok ? "" : " (n/a)");
		labels[i] = names[i];
		v[S_RATE * n + i] = ok ? r->mmsgs : NAN;
		v[S_UARS * n + i] = ok ? r->usage.uar_pages : NAN;
		v[S_UUARS * n + i] = ok ? r->usage.uuars_used : NAN;
		v[S_QPS * n + i] = ok ? r->usage.count[RES_QP] : NAN;
		v[S_CQS * n + i] = ok ? r->usage.count[RES_CQ] : NAN;
		v[S_MEM * n + i] = ok ? wmt_row_mem_per_ep(r) / 1024 : NAN;
	}
	rate[0] = (struct plot_series){ "message rate", v + S_RATE * n };
	res[0] = (struct plot_series){ "UAR pages allocated (maps)",
				       v + S_UARS * n };
	res[1] = (struct plot_series){ "uUARs used (bf.reg)", v + S_UUARS * n };
	res[2] = (struct plot_series){ "QPs", v + S_QPS * n };
	res[3] = (struct plot_series){ "CQs", v + S_CQS * n };
	mem[0] = (struct plot_series){ "memory per endpoint", v + S_MEM * n };
	panels[0] = (struct plot_panel){ "Message rate", "Mmsgs/s", rate, 1 };
	panels[1] =
		(struct plot_panel){ "Hardware resources", "count", res, 4 };
	panels[2] = (struct plot_panel){ "Memory", "KiB per endpoint", mem, 1 };
	snprintf(title, sizeof(title),
		 "ib_write_mt: %s threads, %s-byte RDMA writes, p=%s, q=%s",
		 wmt_swept(o, SWEEP_THREADS, o->threads, thr, sizeof(thr)),
		 wmt_swept(o, SWEEP_SIZE, o->size, size, sizeof(size)),
		 wmt_swept(o, SWEEP_POSTLIST, o->post_list, pl, sizeof(pl)),
		 wmt_swept(o, SWEEP_UNSIGNALED, o->cq_mod, cq, sizeof(cq)));
	spec = (struct plot_spec){
		title, o->sweep ? "sweep point" : "category", labels, n, panels,
		3
	};
	ret = plot_render(&spec, path, err, errlen);
out:
	free(v);
	free(names);
	free(labels);
	return ret;
}
