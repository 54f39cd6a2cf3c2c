// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "endpoints.h"
#include "measure.h"

const struct bd_step_info bd_step_info[BD_NSTEPS] = {
	[BD_STEP_BUILD] = { "wqe-build", "WQE build (ctrl+raddr+inline)",
			    BD_CAT_DESC_SETUP },
	[BD_STEP_BARRIER] = { "barrier", "barrier (WQE before DBR)",
			      BD_CAT_DESC_BARRIER },
	[BD_STEP_DBR] = { "dbr-write", "doorbell-record write", BD_CAT_MISC },
	[BD_STEP_WC_START] = { "wc-start", "barrier / WC start",
			       BD_CAT_DB_BARRIER },
	[BD_STEP_BF_COPY] = { "bf-copy", "BlueFlame copy (64 bytes)",
			      BD_CAT_PIO_COPY },
	[BD_STEP_FLUSH] = { "flush", "flush (WC buffers out)",
			    BD_CAT_PIO_COPY },
	[BD_STEP_BF_TOGGLE] = { "bf-toggle", "BlueFlame half toggle",
				BD_CAT_MISC },
};

const char *const bd_cat_label[BD_NCATS] = {
	[BD_CAT_DESC_SETUP] = "message descriptor setup",
	[BD_CAT_DESC_BARRIER] = "barrier for message descriptor",
	[BD_CAT_DB_BARRIER] = "barrier for DoorBell counter",
	[BD_CAT_PIO_COPY] = "PIO copy (64 bytes)",
	[BD_CAT_MISC] = "misc in LLP_post",
};

const enum bd_comp bd_cat_comp[BD_NCATS] = {
	[BD_CAT_DESC_SETUP] = BD_DESC_SETUP,
	[BD_CAT_DESC_BARRIER] = BD_DESC_BARRIER,
	[BD_CAT_DB_BARRIER] = BD_DB_BARRIER,
	[BD_CAT_PIO_COPY] = BD_PIO_COPY,
	[BD_CAT_MISC] = BD_POST_MISC,
};

const char *const bd_path_key[BD_NPATHS] = {
	[BD_PATH_RAW_POST] = "raw-post",
	[BD_PATH_RAW_STEPS] = "raw-post-instrumented",
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
	[BD_PATH_RAW_STEPS] = "raw mlx5dv post, sum of timed steps",
	[BD_PATH_POST_SEND_TD] = "ibv_post_send, TD QP",
	[BD_PATH_POST_SEND_PLAIN] = "ibv_post_send, plain QP",
	[BD_PATH_WR_TD] = "ibv_wr_start..complete, TD QP",
	[BD_PATH_WR_PLAIN] = "ibv_wr_start..complete, plain QP",
	[BD_PATH_RAW_POLL] = "raw CQ poll, one CQE (LLP_prog)",
	[BD_PATH_POLL_TD] = "ibv_poll_cq, one CQE, TD CQ",
	[BD_PATH_POLL_PLAIN] = "ibv_poll_cq, one CQE, plain CQ",
};

#define WARMUP 1000

struct samples {
	double *step[BD_NSTEPS];
	double *empty_chain; /* the chain's interval around nothing */
	double *empty_pair;
	double *cat[BD_NCATS];
	double *path[BD_NPATHS];
	unsigned int n; /* per array */
};

static int samples_alloc(struct samples *s, unsigned int n)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (i = 0; i < BD_NSTEPS; i++)
		if (!(s->step[i] = calloc(n, sizeof(double))))
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

	for (i = 0; i < BD_NSTEPS; i++)
		free(s->step[i]);
	free(s->empty_pair);
	free(s->empty_chain);
	for (i = 0; i < BD_NCATS; i++)
		free(s->cat[i]);
	for (i = 0; i < BD_NPATHS; i++)
		free(s->path[i]);
}

/* one post with a stamp between every two steps, in ticks */
static void raw_post_steps(struct bd_raw_qp *r, struct samples *s, int j,
			   bool sig)
{
	uint64_t ts[BD_NSTEPS + 2];
	void *wqe;
	int k;

	ts[0] = bd_stamp();
	wqe = bd_raw_build(r, (uint64_t)j, sig);
	ts[1] = bd_stamp();
	bd_to_device_barrier();
	ts[2] = bd_stamp();
	bd_raw_dbr(r);
	ts[3] = bd_stamp();
	bd_wc_start();
	ts[4] = bd_stamp();
	bd_raw_bf_copy(r, wqe);
	ts[5] = bd_stamp();
	bd_flush_writes();
	ts[6] = bd_stamp();
	bd_raw_bf_toggle(r);
	ts[7] = bd_stamp();
	/* an interval around nothing, in the same chain: the stamps' cost */
	ts[8] = bd_stamp();
	if (j < 0)
		return;
	for (k = 0; k < BD_NSTEPS; k++)
		s->step[k][j] = (double)(ts[k + 1] - ts[k]);
	s->empty_chain[j] = (double)(ts[8] - ts[7]);
}

static void raw_post_whole(struct bd_raw_qp *r, struct samples *s, int j,
			   bool sig)
{
	uint64_t t0 = bd_stamp(), t1;

	bd_raw_post(r, (uint64_t)j, sig);
	t1 = bd_stamp();
	if (j >= 0)
		s->path[BD_PATH_RAW_POST][j] = (double)(t1 - t0);
}

static void empty_whole(struct samples *s, int j)
{
	uint64_t t0 = bd_stamp(), t1 = bd_stamp();

	if (j >= 0)
		s->empty_pair[j] = (double)(t1 - t0);
}

/* mean ticks of the kept 99% of v (sorts a copy) */
static double overhead_of(const double *v, unsigned int n)
{
	double *copy = malloc(n * sizeof(*v)), o;
	struct bd_stats st;

	if (!copy)
		return 0;
	memcpy(copy, v, n * sizeof(*v));
	bd_stats_compute_kept(copy, n, &st);
	o = st.mean;
	free(copy);
	return o;
}

/*
 * Ticks to ns, less the stamps' cost measured in the same loop (so under the
 * same load and clock as the samples): the chain's empty interval for each
 * step, the empty pair for the untimed post.
 */
static void raw_to_ns(struct samples *s, struct bd_timer *t)
{
	double chain = overhead_of(s->empty_chain, s->n),
	       pair = overhead_of(s->empty_pair, s->n);
	unsigned int j;
	int k;

	t->overhead_ticks = pair;
	t->overhead_ns = pair * t->ns_per_tick;
	for (j = 0; j < s->n; j++) {
		double sum = 0;

		for (k = 0; k < BD_NCATS; k++)
			s->cat[k][j] = 0;
		/* unclamped: below the timer's step only the mean tells */
		for (k = 0; k < BD_NSTEPS; k++) {
			double v = (s->step[k][j] - chain) * t->ns_per_tick;

			s->step[k][j] = v;
			s->cat[bd_step_info[k].cat][j] += v;
			sum += v;
		}
		s->path[BD_PATH_RAW_STEPS][j] = sum;
		s->path[BD_PATH_RAW_POST][j] =
			(s->path[BD_PATH_RAW_POST][j] - pair) * t->ns_per_tick;
	}
}

/*
 * Posts come in bursts, each after a pause that leaves the device idle. An
 * emulated NIC is a thread that reads the SQ and doorbell record and zeroes
 * the BlueFlame register through the CPU caches: while it runs it pulls
 * those lines away mid-post, which no real NIC does to WC memory. Between
 * bursts we wait for completions (untimed), never inside one.
 */
#define BURST BD_BURST
#define PAUSE_US BD_PAUSE_US

/*
 * The pause spins: a sleep would hand the core (and its caches) to other
 * processes and wake up cold.
 */
static void pause_spinning(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000 +
		       (t.tv_nsec - t0.tv_nsec) / 1000 <
	       PAUSE_US);
}

/* the pause, then one untimed post to bring the lines back in */
static int burst_start(struct bd_raw_qp *r, unsigned int sig_every)
{
	int ret = bd_raw_make_room(r, BURST + 1);

	if (ret)
		return ret;
	pause_spinning();
	bd_raw_post(r, 0, (uint16_t)(r->pi + 1) % sig_every == 0);
	return 0;
}

/* timed steps, untimed post and the stamps alone take turns, so that drift
 * and load hit them all alike */
static int measure_raw_post(struct bd_endpoints *e, struct bd_timer *t,
			    struct samples *s, unsigned int sig_every)
{
	struct bd_raw_qp *r = &e->raw;
	int i, n = WARMUP + (int)s->n, ret;

	for (i = 0; i < 2 * n; i++) {
		int j = i / 2 - WARMUP;
		bool sig;

		if (j >= 0 && (i - 2 * WARMUP) % BURST == 0) {
			ret = burst_start(r, sig_every);
			if (ret)
				return ret;
		} else if (j < 0) {
			ret = bd_raw_make_room(r, 1);
			if (ret)
				return ret;
		}
		sig = (uint16_t)(r->pi + 1) % sig_every == 0;
		bd_raw_warm(r);
		/* which goes first swaps every burst: each then rings both
		 * BlueFlame halves and uses odd and even WQE slots alike */
		if ((i ^ (i / BURST)) & 1) {
			empty_whole(s, j);
			raw_post_whole(r, s, j, sig);
		} else {
			raw_post_steps(r, s, j, sig);
		}
	}
	raw_to_ns(s, t);
	/* one signaled post more, then nothing is outstanding */
	bd_raw_post(r, 0, true);
	while (r->acked != r->pi) {
		ret = bd_raw_reap(r);
		if (ret < 0)
			return -EIO;
		if (!ret)
			sched_yield();
	}
	return 0;
}

struct verbs_wr {
	uint64_t value;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
};

static void verbs_wr_init(struct verbs_wr *w, const struct bd_endpoints *e)
{
	memset(w, 0, sizeof(*w));
	w->sge.addr = (uintptr_t)&w->value;
	w->sge.length = 8;
	w->wr.sg_list = &w->sge;
	w->wr.num_sge = 1;
	w->wr.opcode = IBV_WR_RDMA_WRITE;
	w->wr.wr.rdma.remote_addr = (uintptr_t)e->buf;
	w->wr.wr.rdma.rkey = e->mr->rkey;
}

/* one 8-byte inline RDMA WRITE, through ibv_post_send or ibv_wr_* */
static int verbs_post(struct bd_sender *s, struct verbs_wr *w, bool wr_api,
		      bool sig, const struct bd_timer *t, double *out)
{
	unsigned int flags = IBV_SEND_INLINE | (sig ? IBV_SEND_SIGNALED : 0);
	struct ibv_send_wr *bad;
	uint64_t t0, t1;
	int ret;

	w->value++;
	if (wr_api) {
		t0 = bd_stamp();
		ibv_wr_start(s->qpx);
		s->qpx->wr_flags = flags;
		ibv_wr_rdma_write(s->qpx, w->wr.wr.rdma.rkey,
				  w->wr.wr.rdma.remote_addr);
		ibv_wr_set_inline_data(s->qpx, &w->value, 8);
		ret = ibv_wr_complete(s->qpx);
		t1 = bd_stamp();
	} else {
		w->wr.send_flags = flags;
		t0 = bd_stamp();
		ret = ibv_post_send(s->qp, &w->wr, &bad);
		t1 = bd_stamp();
	}
	if (ret) {
		fprintf(stderr, "ib_write_breakdown: post: %s\n",
			strerror(ret));
		return -ret;
	}
	s->posted++;
	if (out)
		*out = bd_ticks_ns(t, t1 - t0);
	return 0;
}

/* one signaled post, then every signaled WQE's completion consumed */
static int sender_drain(struct bd_sender *s, struct verbs_wr *w,
			unsigned int sig_every)
{
	uint64_t want = s->posted / sig_every + 1,
		 got = s->completed / sig_every;
	struct ibv_wc wc;
	int n;

	n = verbs_post(s, w, false, true, NULL, NULL);
	if (n)
		return n;
	while (got < want) {
		n = ibv_poll_cq(s->cq, 1, &wc);
		if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
			return -EIO;
		if (!n)
			sched_yield();
		got += n;
		s->peek.ci += n;
	}
	s->posted = s->completed = 0;
	return 0;
}

static int measure_verbs_post(struct bd_endpoints *e, const struct bd_timer *t,
			      struct samples *smp, unsigned int sig_every)
{
	static const struct {
		enum bd_sender_kind src;
		bool wr_api;
		enum bd_path path;
	} runs[] = {
		{ BD_SENDER_TD, false, BD_PATH_POST_SEND_TD },
		{ BD_SENDER_PLAIN, false, BD_PATH_POST_SEND_PLAIN },
		{ BD_SENDER_TD, true, BD_PATH_WR_TD },
		{ BD_SENDER_PLAIN, true, BD_PATH_WR_PLAIN },
	};
	struct verbs_wr w;
	int i, k, ret, n = WARMUP + (int)smp->n;

	verbs_wr_init(&w, e);
	for (i = 0; i < n; i++) {
		int j = i - WARMUP;

		/* bursts after a pause, as for the raw post: each sender
		 * posts BURST per burst, after one untimed post */
		if (j >= 0 && j % (BURST / 2) == 0) {
			for (k = BD_SENDER_TD; k <= BD_SENDER_PLAIN; k++) {
				ret = bd_sender_make_room(&e->src[k], sig_every,
							  BURST + 2);
				if (ret)
					return ret;
			}
			pause_spinning();
			for (k = 0; k < 4 && !ret; k++) {
				struct bd_sender *s = &e->src[runs[k].src];

				ret = verbs_post(s, &w, runs[k].wr_api,
						 (s->posted + 1) % sig_every ==
							 0,
						 t, NULL);
			}
			if (ret)
				return ret;
		}
		for (k = 0; k < 4; k++) {
			struct bd_sender *s = &e->src[runs[k].src];
			bool sig = (s->posted + 1) % sig_every == 0;

			ret = j >= 0 ? 0 : bd_sender_make_room(s, sig_every, 1);
			if (!ret)
				ret = verbs_post(
					s, &w, runs[k].wr_api, sig, t,
					j >= 0 ? &smp->path[runs[k].path][j] :
						 NULL);
			if (ret)
				return ret;
		}
	}
	for (k = BD_SENDER_TD; k <= BD_SENDER_PLAIN; k++) {
		ret = sender_drain(&e->src[k], &w, sig_every);
		if (ret)
			return ret;
	}
	return 0;
}

static void wait_ready(const struct bd_raw_cq *c)
{
	while (!bd_raw_cqe_ready(c))
		sched_yield();
}

/* LLP_prog and ibv_poll_cq: one signaled write, its CQE timed once there */
static int measure_poll(struct bd_endpoints *e, const struct bd_timer *t,
			struct samples *smp)
{
	struct bd_raw_qp *r = &e->raw;
	struct verbs_wr w;
	struct ibv_wc wc;
	uint64_t t0, t1;
	uint16_t counter;
	int i, k, n, ret, total = (int)smp->n + WARMUP / 10;

	verbs_wr_init(&w, e);
	for (i = 0; i < total; i++) {
		int j = i - WARMUP / 10;

		bd_raw_post(r, (uint64_t)i, true);
		wait_ready(&r->cq);
		t0 = bd_stamp();
		n = bd_raw_poll(&r->cq, &counter);
		t1 = bd_stamp();
		if (n != 1)
			return -EIO;
		r->acked = counter + 1;
		if (j >= 0)
			smp->path[BD_PATH_RAW_POLL][j] =
				bd_ticks_ns(t, t1 - t0);

		for (k = BD_SENDER_TD; k <= BD_SENDER_PLAIN; k++) {
			struct bd_sender *s = &e->src[k];

			ret = verbs_post(s, &w, false, true, t, NULL);
			if (ret)
				return ret;
			wait_ready(&s->peek);
			t0 = bd_stamp();
			n = ibv_poll_cq(s->cq, 1, &wc);
			t1 = bd_stamp();
			if (n != 1 || wc.status != IBV_WC_SUCCESS)
				return -EIO;
			s->peek.ci++;
			s->completed++;
			if (j >= 0)
				smp->path[k == BD_SENDER_TD ?
						  BD_PATH_POLL_TD :
						  BD_PATH_POLL_PLAIN][j] =
					bd_ticks_ns(t, t1 - t0);
		}
	}
	return 0;
}

/* drop the posts whose timed total is in the slowest 1%, all steps alike */
static unsigned int keep_steps(struct samples *s)
{
	double limit = bd_stats_keep_limit(s->path[BD_PATH_RAW_STEPS], s->n);
	unsigned int j, kept = 0;
	int k;

	for (j = 0; j < s->n; j++) {
		if (s->path[BD_PATH_RAW_STEPS][j] > limit)
			continue;
		for (k = 0; k < BD_NSTEPS; k++)
			s->step[k][kept] = s->step[k][j];
		for (k = 0; k < BD_NCATS; k++)
			s->cat[k][kept] = s->cat[k][j];
		s->path[BD_PATH_RAW_STEPS][kept] =
			s->path[BD_PATH_RAW_STEPS][j];
		kept++;
	}
	return kept;
}

static void summarise(struct samples *s, unsigned int npoll,
		      struct bd_result *r)
{
	unsigned int kept;
	double four = 0;
	int k;

	kept = keep_steps(s);
	for (k = 0; k < BD_NSTEPS; k++)
		bd_stats_compute(s->step[k], kept, &r->step[k]);
	for (k = 0; k < BD_NCATS; k++)
		bd_stats_compute(s->cat[k], kept, &r->cat[k]);
	for (k = 0; k < BD_NPATHS; k++) {
		bool poll = k == BD_PATH_RAW_POLL || k == BD_PATH_POLL_TD ||
			    k == BD_PATH_POLL_PLAIN;

		if (k == BD_PATH_RAW_STEPS)
			bd_stats_compute(s->path[k], kept, &r->path[k]);
		else
			bd_stats_compute_kept(s->path[k], poll ? npoll : s->n,
					      &r->path[k]);
	}
	/* means: they add up, where the timer's coarse steps make medians
	 * jump */
	for (k = 0; k < BD_CAT_MISC; k++)
		four += r->cat[k].mean;
	r->misc_rest = r->path[BD_PATH_RAW_POST].mean - four;
	r->agreement = (r->path[BD_PATH_RAW_STEPS].mean -
			r->path[BD_PATH_RAW_POST].mean) /
		       r->path[BD_PATH_RAW_POST].mean;
	/* the typical post, either way: load and cache misses lengthen the
	 * untimed post's tail more, as the stamps hide part of its stalls */
	r->agreement_median = (r->path[BD_PATH_RAW_STEPS].median -
			       r->path[BD_PATH_RAW_POST].median) /
			      r->path[BD_PATH_RAW_POST].median;
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
	ret = measure_raw_post(&e, &r->timer, &s, o->signal_every);
	if (!ret)
		ret = measure_verbs_post(&e, &r->timer, &s, o->signal_every);
	/* each poll waits for the NIC: fewer samples */
	npoll = o->iters / 4 < 10 ? 10 : o->iters / 4;
	s.n = npoll;
	if (!ret)
		ret = measure_poll(&e, &r->timer, &s);
	s.n = o->iters;
	if (!ret)
		summarise(&s, npoll, r);
	else
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

	for (k = 0; k < BD_CAT_MISC; k++)
		bd_model_set(m, bd_cat_comp[k], not_negative(r->cat[k].mean),
			     BD_SRC_MEASURED);
	/* misc is the rest, as in the paper */
	bd_model_set(m, BD_POST_MISC, not_negative(r->misc_rest),
		     BD_SRC_MEASURED);
	bd_model_set(m, BD_LLP_PROG,
		     not_negative(r->path[BD_PATH_RAW_POLL].mean),
		     BD_SRC_MEASURED);
}
