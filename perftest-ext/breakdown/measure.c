// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * --breakdown: the post steps, polling and the verbs calls timed, with their
 * samples kept or dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure_internal.h"

const struct bd_step_info bd_step_info[BD_NSTEPS] = {
	[BD_STEP_BUILD] = { "wqe-build", "WQE build (ctrl+raddr+inline)",
			    BD_DESC_SETUP },
	[BD_STEP_BARRIER] = { "barrier", "barrier (WQE before DBR)",
			      BD_DESC_BARRIER, !BD_TO_DEVICE_BARRIER_IS_CODE },
	[BD_STEP_DBR] = { "dbr-write", "doorbell-record write", BD_POST_MISC },
	[BD_STEP_WC_START] = { "wc-start", "barrier / WC start",
			       BD_DB_BARRIER },
	[BD_STEP_BF_COPY] = { "bf-copy", "BlueFlame copy (64 bytes)",
			      BD_PIO_COPY },
	[BD_STEP_FLUSH] = { "flush", "flush (WC buffers out)", BD_PIO_COPY },
	[BD_STEP_BF_TOGGLE] = { "bf-toggle", "BlueFlame half toggle",
				BD_POST_MISC },
};

const char *const bd_path_key[BD_NPATHS] = {
	[BD_PATH_RAW_POST] = "raw-post",
	[BD_PATH_RAW_STEPS] = "raw-post-steps",
	[BD_PATH_RAW_INLINE] = "raw-post-inline",
	[BD_PATH_POST_SEND_TD] = "ibv_post_send-td",
	[BD_PATH_POST_SEND_PLAIN] = "ibv_post_send-plain",
	[BD_PATH_WR_TD] = "ibv_wr-td",
	[BD_PATH_WR_PLAIN] = "ibv_wr-plain",
	[BD_PATH_RAW_POLL] = "raw-poll",
	[BD_PATH_POLL_TD] = "ibv_poll_cq-td",
	[BD_PATH_POLL_PLAIN] = "ibv_poll_cq-plain",
};

const char *const bd_path_label[BD_NPATHS] = {
	[BD_PATH_RAW_POST] = "raw mlx5dv post (LLP_post, untimed inside)",
	[BD_PATH_RAW_STEPS] = "raw mlx5dv post, sum of its steps",
	[BD_PATH_RAW_INLINE] = "raw mlx5dv post, stamps between steps",
	[BD_PATH_POST_SEND_TD] = "ibv_post_send, TD QP",
	[BD_PATH_POST_SEND_PLAIN] = "ibv_post_send, plain QP",
	[BD_PATH_WR_TD] = "ibv_wr_start..complete, TD QP",
	[BD_PATH_WR_PLAIN] = "ibv_wr_start..complete, plain QP",
	[BD_PATH_RAW_POLL] = "raw CQ poll, one CQE (LLP_prog)",
	[BD_PATH_POLL_TD] = "ibv_poll_cq, one CQE, TD CQ",
	[BD_PATH_POLL_PLAIN] = "ibv_poll_cq, one CQE, plain CQ",
};

static int samples_alloc(struct samples *s, unsigned int n)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (i = 0; i <= BD_NSTEPS; i++)
		if (!(s->prefix[i] = calloc(n, sizeof(double))))
			return -ENOMEM;
	for (i = 0; i < BD_NSTEPS; i++)
		if (!(s->step[i] = calloc(n, sizeof(double))) ||
		    !(s->inline_step[i] = calloc(n, sizeof(double))))
			return -ENOMEM;
	if (!(s->empty_pair = calloc(n, sizeof(double))) ||
	    !(s->empty_chain = calloc(n, sizeof(double))))
		return -ENOMEM;
	for (i = 0; i < BD_NCATS; i++)
		if (!(s->cat[i] = calloc(n, sizeof(double))))
			return -ENOMEM;
	for (i = 0; i < BD_NPATHS; i++)
		if (!(s->path[i] = calloc(n, sizeof(double))))
			return -ENOMEM;
	return 0;
}

static void samples_free(struct samples *s)
{
	int i;

	for (i = 0; i <= BD_NSTEPS; i++)
		free(s->prefix[i]);
	for (i = 0; i < BD_NSTEPS; i++) {
		free(s->step[i]);
		free(s->inline_step[i]);
	}
	free(s->empty_pair);
	free(s->empty_chain);
	for (i = 0; i < BD_NCATS; i++)
		free(s->cat[i]);
	for (i = 0; i < BD_NPATHS; i++)
		free(s->path[i]);
}

/* compact the columns to the rows marked kept; the rows kept */
static unsigned int keep_rows(const bool *keep, double *const *cols, int ncols,
			      unsigned int n)
{
	unsigned int j, kept = 0;
	int k;

	for (j = 0; j < n; j++) {
		if (!keep[j])
			continue;
		for (k = 0; k < ncols; k++)
			cols[k][kept] = cols[k][j];
		kept++;
	}
	return kept;
}

/*
 * A cycle of cuts is dropped when any of its cuts is among the slowest 1% of
 * that cut: a disturbed cut in the middle would cancel out of the sum of the
 * steps but not out of the two steps it sits between.
 */
static void mark_cycles_kept(const struct samples *s, bool *keep)
{
	unsigned int j;
	int k;

	for (j = 0; j < s->n; j++)
		keep[j] = true;
	for (k = 0; k <= BD_NSTEPS; k++) {
		double limit = bd_stats_keep_limit(s->prefix[k], s->n);

		for (j = 0; j < s->n; j++)
			if (s->prefix[k][j] > limit)
				keep[j] = false;
	}
}

/* an inline post is dropped when its total is among the slowest 1% */
static void mark_inline_kept(const struct samples *s, bool *keep)
{
	const double *total = s->path[BD_PATH_RAW_INLINE];
	double limit = bd_stats_keep_limit(total, s->n);
	unsigned int j;

	for (j = 0; j < s->n; j++)
		keep[j] = total[j] <= limit;
}

static double relative(double v, double ref)
{
	return (v - ref) / ref;
}

static int summarise(struct samples *s, unsigned int npoll, struct bd_result *r)
{
	double *cols[BD_NSTEPS + BD_NCATS + 1];
	unsigned int kept, kept_inline;
	bool *keep = malloc(s->n * sizeof(*keep));
	double four = 0;
	int k;

	if (!keep)
		return -ENOMEM;
	for (k = 0; k < BD_NSTEPS; k++)
		cols[k] = s->step[k];
	for (k = 0; k < BD_NCATS; k++)
		cols[BD_NSTEPS + k] = s->cat[k];
	cols[BD_NSTEPS + BD_NCATS] = s->path[BD_PATH_RAW_STEPS];
	mark_cycles_kept(s, keep);
	kept = keep_rows(keep, cols, BD_NSTEPS + BD_NCATS + 1, s->n);
	for (k = 0; k < BD_NSTEPS; k++)
		cols[k] = s->inline_step[k];
	cols[BD_NSTEPS] = s->path[BD_PATH_RAW_INLINE];
	mark_inline_kept(s, keep);
	kept_inline = keep_rows(keep, cols, BD_NSTEPS + 1, s->n);
	free(keep);
	for (k = 0; k < BD_NSTEPS; k++) {
		bd_stats_compute(s->step[k], kept, &r->step[k]);
		bd_stats_compute(s->inline_step[k], kept_inline,
				 &r->inline_step[k]);
	}
	for (k = 0; k < BD_NCATS; k++)
		bd_stats_compute(s->cat[k], kept, &r->cat[k]);
	for (k = 0; k < BD_NPATHS; k++) {
		bool poll = k == BD_PATH_RAW_POLL || k == BD_PATH_POLL_TD ||
			    k == BD_PATH_POLL_PLAIN;

		if (k == BD_PATH_RAW_STEPS)
			bd_stats_compute(s->path[k], kept, &r->path[k]);
		else if (k == BD_PATH_RAW_INLINE)
			bd_stats_compute(s->path[k], kept_inline, &r->path[k]);
		else
			bd_stats_compute_kept(s->path[k], poll ? npoll : s->n,
					      &r->path[k]);
	}
	/* means: they add up, where the timer's coarse steps make medians
	 * jump */
	for (k = 0; k < BD_POST_MISC; k++)
		four += r->cat[k].mean;
	r->misc_rest = r->path[BD_PATH_RAW_POST].mean - four;
	r->agreement = relative(r->path[BD_PATH_RAW_STEPS].mean,
				r->path[BD_PATH_RAW_POST].mean);
	r->agreement_median = relative(r->path[BD_PATH_RAW_STEPS].median,
				       r->path[BD_PATH_RAW_POST].median);
	r->agreement_inline = relative(r->path[BD_PATH_RAW_INLINE].mean,
				       r->path[BD_PATH_RAW_POST].mean);
	return 0;
}

int bd_measure(const struct bd_measure_opts *o, struct bd_result *r)
{
	struct bd_endpoints e;
	struct samples s;
	unsigned int npoll;
	int ret;

	memset(r, 0, sizeof(*r));
	r->emulated = getenv("MLX5EMU") != NULL;
	if (o->iters < 10 || o->signal_every < 1 ||
	    o->signal_every > BD_SQ_DEPTH / 2) {
		fprintf(stderr,
			"ib_write_breakdown: --iters >= 10 and --signal-every in 1..%d\n",
			BD_SQ_DEPTH / 2);
		return -EINVAL;
	}
	ret = bd_timer_init(&r->timer);
	if (ret)
		return ret;
	ret = samples_alloc(&s, o->iters);
	if (ret)
		goto out_samples;
	ret = bd_endpoints_open(&e, o->device);
	if (ret)
		goto out;
	ret = bd_measure_raw_post(&e, &r->timer, &s, o->signal_every);
	if (!ret)
		ret = bd_measure_verbs_post(&e, &r->timer, &s, o->signal_every);
	/* each poll waits for the NIC: fewer samples */
	npoll = o->iters / 4 < 10 ? 10 : o->iters / 4;
	s.n = npoll;
	if (!ret)
		ret = bd_measure_poll(&e, &r->timer, &s);
	s.n = o->iters;
	if (!ret)
		ret = summarise(&s, npoll, r);
	if (ret)
		fprintf(stderr, "ib_write_breakdown: measurement failed: %s\n",
			strerror(-ret));
out:
	bd_endpoints_close(&e);
out_samples:
	samples_free(&s);
	return ret;
}

static double not_negative(double v)
{
	/* a mean below zero is a step cheaper than the timer resolves */
	return v < 0 ? 0 : v;
}

void bd_result_to_model(const struct bd_result *r, struct bd_model *m)
{
	int k;

	for (k = 0; k < BD_POST_MISC; k++)
		bd_model_set(m, k, not_negative(r->cat[k].mean),
			     BD_SRC_MEASURED);
	/* misc is the rest, as in the paper */
	bd_model_set(m, BD_POST_MISC, not_negative(r->misc_rest),
		     BD_SRC_MEASURED);
	bd_model_set(m, BD_LLP_PROG,
		     not_negative(r->path[BD_PATH_RAW_POLL].mean),
		     BD_SRC_MEASURED);
}
