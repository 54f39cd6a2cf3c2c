// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A CQ polled without a lock (a thread domain's CQ, or one created with
 * IBV_CREATE_CQ_ATTR_SINGLE_THREADED) while a second thread posts RDMA
 * writes to a plain QP on that CQ, mostly into a full send queue, and now
 * and then destroys that QP and creates a new one. ibv_poll_cq() runs in
 * the first thread only.
 *
 * The poster destroys a QP the way ibv_create_cq_ex(3) asks: polling is
 * paused meanwhile (the CQ cleaning must be serialised with polling). It
 * first waits for the QP's work to complete: the emulated device may still
 * complete a WQE of a destroyed QP on the QP that reuses its number, with
 * an unpatched libmlx5 as well. Every completion the poller sees must
 * belong to the current QP, succeed, and come in posting order.
 *
 *   cq_lockfree_test td|flag|locked [rounds]
 *
 * "locked" is the control: a plain CQ, which takes its lock. Under
 * helgrind it draws the same reports in the SQ bookkeeping as the lock-free
 * CQs (see helgrind-dma.supp): the QP and the CQ have separate locks.
 *
 * A round fills the send queue until ibv_post_send() reports it full, then
 * retries until the poller has made room and a post succeeds again: every
 * round meets the full queue check while the CQ is being polled.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#else
#define VALGRIND_HG_DISABLE_CHECKING(addr, len) ((void)(addr), (void)(len))
#endif

#include "emu_test.h"
#include "rc_loop.h"
#include "td_ep.h"

#define SQ_DEPTH 1
/* the QP is replaced every rounds / 100 rounds, within these bounds */
#define RECYCLE_MIN 10
#define RECYCLE_MAX 1000

static const char *mode = "td";
static unsigned long rounds = 100000;

struct shared {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* under lock */
	bool pause_req, paused, stop;
	uint32_t qpn, gen;
	unsigned long completed;
	const char *error;
	char why[128];
};

struct rig {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_td *td;
	struct ibv_pd *parent;
	struct ibv_cq *cq; /* polled without a lock */
	struct ibv_cq *target_cq;
	struct ibv_qp *qp, *target;
	struct ibv_mr *src_mr, *dst_mr;
	uint64_t src, dst[64];
	struct shared sh;
};

static struct ibv_cq *create_lockfree_cq(struct rig *r)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 2 * SQ_DEPTH,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};

	if (!strcmp(mode, "td")) {
		struct ibv_parent_domain_init_attr pattr = { .pd = r->pd };

		r->td = td_alloc(r->ctx, IBV_TD_SHARING_DEFAULT);
		assert_non_null(r->td);
		pattr.td = r->td;
		r->parent = ibv_alloc_parent_domain(r->ctx, &pattr);
		assert_non_null(r->parent);
		attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
		attr.parent_domain = r->parent;
	} else if (!strcmp(mode, "flag")) {
		attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		attr.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	}
	return ibv_cq_ex_to_cq(ibv_create_cq_ex(r->ctx, &attr));
}

/*
 * Under helgrind: the device reads and writes these rings and doorbells by
 * DMA, which no race detector can follow, so they are left out.
 */
static void hide_dma_memory(struct ibv_qp *qp, struct ibv_cq *cq)
{
	struct mlx5dv_qp dqp = {};
	struct mlx5dv_cq dcq = {};
	struct mlx5dv_obj obj = {
		.qp = { .in = qp, .out = &dqp },
		.cq = { .in = cq, .out = &dcq },
	};

	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ), 0);
	VALGRIND_HG_DISABLE_CHECKING(dqp.sq.buf, dqp.sq.wqe_cnt * dqp.sq.stride);
	VALGRIND_HG_DISABLE_CHECKING(dqp.rq.buf, dqp.rq.wqe_cnt * dqp.rq.stride);
	VALGRIND_HG_DISABLE_CHECKING(dqp.dbrec, 2 * sizeof(*dqp.dbrec));
	VALGRIND_HG_DISABLE_CHECKING(dcq.buf, dcq.cqe_cnt * dcq.cqe_size);
	VALGRIND_HG_DISABLE_CHECKING(dcq.dbrec, 2 * sizeof(*dcq.dbrec));
}

/* A plain QP (no thread domain) on the lock-free CQ, connected to a target */
static void open_qp(struct rig *r)
{
	r->qp = rc_loop_create_qp(r->pd, r->cq, SQ_DEPTH);
	assert_non_null(r->qp);
	r->target = rc_loop_create_qp(r->pd, r->target_cq, SQ_DEPTH);
	assert_non_null(r->target);
	rc_loop_connect(r->qp, r->target);
	hide_dma_memory(r->qp, r->cq);
	hide_dma_memory(r->target, r->target_cq);
}

static void close_qp(struct rig *r)
{
	assert_int_equal(ibv_destroy_qp(r->qp), 0);
	assert_int_equal(ibv_destroy_qp(r->target), 0);
}

static void set_error(struct shared *sh, const char *what, const struct ibv_wc *wc)
{
	pthread_mutex_lock(&sh->lock);
	if (!sh->error) {
		snprintf(sh->why, sizeof(sh->why),
			 "%s: status %d opcode %d qpn 0x%x wr_id 0x%llx", what,
			 wc->status, wc->opcode, wc->qp_num,
			 (unsigned long long)wc->wr_id);
		sh->error = sh->why;
	}
	sh->stop = true;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
}

/*
 * The poller: ibv_poll_cq() without a lock. It takes the test's mutex only
 * to see a pause or stop request and to publish its count, never around the
 * poll itself.
 */
static void *poll_thread(void *arg)
{
	struct rig *r = arg;
	struct shared *sh = &r->sh;
	uint32_t qpn, gen;
	uint32_t expect = 0;
	struct ibv_wc wc[8];
	unsigned long done = 0;
	int i, n;

	pthread_mutex_lock(&sh->lock);
	qpn = sh->qpn;
	gen = sh->gen;
	for (;;) {
		if (done)
			pthread_cond_broadcast(&sh->cond);
		sh->completed += done;
		done = 0;
		if (sh->stop)
			break;
		if (sh->pause_req) {
			sh->paused = true;
			pthread_cond_broadcast(&sh->cond);
			while (sh->pause_req && !sh->stop)
				pthread_cond_wait(&sh->cond, &sh->lock);
			sh->paused = false;
			qpn = sh->qpn;
			gen = sh->gen;
			expect = 0;
			continue;
		}
		pthread_mutex_unlock(&sh->lock);

		n = ibv_poll_cq(r->cq, 8, wc);
		if (n < 0) {
			set_error(sh, "ibv_poll_cq failed", &(struct ibv_wc){});
			return NULL;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].opcode != IBV_WC_RDMA_WRITE) {
				set_error(sh, "failed completion", &wc[i]);
				return NULL;
			}
			if (wc[i].qp_num != qpn || wc[i].wr_id >> 32 != gen) {
				fprintf(stderr, "expected qpn 0x%x gen %u seq %u\n",
					qpn, gen, expect);
				set_error(sh, "completion of another QP", &wc[i]);
				return NULL;
			}
			if ((uint32_t)wc[i].wr_id != expect) {
				set_error(sh, "completion out of order", &wc[i]);
				return NULL;
			}
			expect++;
		}
		done = n;
		pthread_mutex_lock(&sh->lock);
	}
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}

/*
 * The poster looks at the poller only now and then, to stop early: its
 * mutex would otherwise order the two threads for a race detector.
 */
static bool poller_failed(struct shared *sh)
{
	bool failed;

	pthread_mutex_lock(&sh->lock);
	failed = sh->error;
	pthread_mutex_unlock(&sh->lock);
	return failed;
}

/* Replaces the QP while the poller waits, as the CQ's contract asks. */
static void recycle_qp(struct rig *r, unsigned long posted)
{
	struct shared *sh = &r->sh;

	pthread_mutex_lock(&sh->lock);
	while (sh->completed < posted && !sh->stop)
		pthread_cond_wait(&sh->cond, &sh->lock);
	sh->pause_req = true;
	while (!sh->paused && !sh->stop)
		pthread_cond_wait(&sh->cond, &sh->lock);
	if (!sh->stop) {
		close_qp(r);
		open_qp(r);
		sh->qpn = r->qp->qp_num;
		sh->gen++;
	}
	sh->pause_req = false;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
}

static void post_into_full_queue(void **state)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct shared *sh;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
	}, *bad;
	unsigned long i, posted = 0, full = 0, recycled = 0;
	unsigned long recycle_every =
		rounds / 100 < RECYCLE_MIN ? RECYCLE_MIN :
		rounds / 100 > RECYCLE_MAX ? RECYCLE_MAX : rounds / 100;
	uint32_t seq = 0, gen = 0;
	pthread_t poller;
	int ret;

	(void)state;
	assert_non_null(r);
	sh = &r->sh;
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->cond, NULL);
	r->ctx = emu_test_open();
	r->pd = ibv_alloc_pd(r->ctx);
	assert_non_null(r->pd);
	r->cq = create_lockfree_cq(r);
	assert_non_null(r->cq);
	r->target_cq = ibv_create_cq(r->ctx, 2 * SQ_DEPTH, NULL, NULL, 0);
	assert_non_null(r->target_cq);
	r->src_mr = ibv_reg_mr(r->pd, &r->src, sizeof(r->src),
			       IBV_ACCESS_LOCAL_WRITE);
	r->dst_mr = ibv_reg_mr(r->pd, r->dst, sizeof(r->dst),
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(r->src_mr);
	assert_non_null(r->dst_mr);
	open_qp(r);
	sh->qpn = r->qp->qp_num;
	sge = (struct ibv_sge){ .addr = (uintptr_t)&r->src,
				.length = sizeof(r->src),
				.lkey = r->src_mr->lkey };
	wr.wr.rdma.rkey = r->dst_mr->rkey;
	assert_int_equal(pthread_create(&poller, NULL, poll_thread, r), 0);

	for (i = 0; i < rounds; i++) {
		bool was_full = false;

		if (i && i % recycle_every == 0) {
			if (poller_failed(sh))
				break;
			recycle_qp(r, posted);
			gen++;
			seq = 0;
			recycled++;
		}
		/* until the queue was full and then took one more */
		for (;;) {
			r->src = posted;
			wr.wr_id = (uint64_t)gen << 32 | seq;
			wr.wr.rdma.remote_addr = (uintptr_t)&r->dst[posted % 64];
			ret = ibv_post_send(r->qp, &wr, &bad);
			if (!ret) {
				seq++;
				posted++;
				if (was_full)
					break;
			} else if (ret == ENOMEM) {
				was_full = true;
				if (++full % 1024 == 0 && poller_failed(sh))
					break;
				sched_yield();
			} else {
				fail_msg("ibv_post_send: %s", strerror(ret));
			}
		}
	}

	pthread_mutex_lock(&sh->lock);
	sh->stop = true;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	assert_int_equal(pthread_join(poller, NULL), 0);
	if (sh->error)
		fail_msg("%s", sh->error);
	print_message("%s CQ: %lu rounds, %lu posted, %lu into a full queue, %lu completions polled, %lu QPs replaced\n",
		      mode, rounds, posted, full, sh->completed, recycled);
	/* every round met a full queue and got room from the poller */
	assert_true(full >= rounds);
	assert_true(sh->completed >= rounds - recycled * SQ_DEPTH);

	close_qp(r);
	assert_int_equal(ibv_dereg_mr(r->src_mr), 0);
	assert_int_equal(ibv_dereg_mr(r->dst_mr), 0);
	assert_int_equal(ibv_destroy_cq(r->target_cq), 0);
	assert_int_equal(ibv_destroy_cq(r->cq), 0);
	if (r->parent)
		assert_int_equal(ibv_dealloc_pd(r->parent), 0);
	if (r->td)
		assert_int_equal(ibv_dealloc_td(r->td), 0);
	assert_int_equal(ibv_dealloc_pd(r->pd), 0);
	assert_int_equal(ibv_close_device(r->ctx), 0);
	pthread_cond_destroy(&sh->cond);
	pthread_mutex_destroy(&sh->lock);
	free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(post_into_full_queue),
	};

	if (argc > 1)
		mode = argv[1];
	if (argc > 2)
		rounds = strtoul(argv[2], NULL, 0);
	if (strcmp(mode, "td") && strcmp(mode, "flag") &&
	    strcmp(mode, "locked")) {
		fprintf(stderr, "usage: %s td|flag|locked [rounds]\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
