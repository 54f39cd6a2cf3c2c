// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs calls timed whole: ibv_post_send and ibv_wr_* on a QP of a
 * thread domain and on a plain QP, and polling one completion, raw
 * (LLP_prog) and through ibv_poll_cq on a TD CQ and a plain CQ.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "measure_internal.h"

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

int bd_measure_verbs_post(struct bd_endpoints *e, const struct bd_timer *t,
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
			bd_pause_spinning();
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
int bd_measure_poll(struct bd_endpoints *e, const struct bd_timer *t,
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
