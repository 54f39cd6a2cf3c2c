// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receive WQEs at the CQE level, as libfabric's ofi_rxd relies on them
 * (issue 37, section 3): threads post receives at once to one RQ, or to
 * one SRQ that two UD QPs share, then datagrams arrive, each carrying its
 * sequence number in its payload and its immediate data. Every receive
 * WQE completes exactly once, with the wr_id it was posted with, in the
 * order it was posted, and holds the datagram of its turn; so again once
 * every WQE was posted anew.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu_test.h"

#define QKEY 0x5eed
#define THREADS 4
#define PER_THREAD 128
#define WQES (THREADS * PER_THREAD)
#define SLOT 64 /* bytes per receive: the GRH and the sequence number */
#define GRH 40

struct rig {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *tx_cq, *rx_cq;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	struct ibv_srq *srq; /* NULL: the receivers' own RQs */
	struct ibv_qp *tx, *rx[2];
	uint8_t *buf; /* WQES receive slots, then the send buffer */
	pthread_mutex_t lock; /* posting order is what this lock orders */
	uint64_t order[WQES]; /* wr_ids in the order they were posted */
	unsigned int posted;
};

static struct ibv_qp *ud_qp(struct rig *r, uint32_t depth)
{
	struct ibv_qp_init_attr a = {
		.send_cq = r->tx_cq,
		.recv_cq = r->rx_cq,
		.srq = r->srq,
		.cap = { .max_send_wr = depth,
			 .max_recv_wr = r->srq ? 0 : depth,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr m = { .qp_state = IBV_QPS_INIT,
				 .port_num = 1,
				 .qkey = QKEY };
	struct ibv_qp *qp = ibv_create_qp(r->pd, &a);

	assert_non_null(qp);
	assert_int_equal(ibv_modify_qp(qp, &m,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_QKEY),
			 0);
	m.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(qp, &m, IBV_QP_STATE), 0);
	m.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_SQ_PSN),
			 0);
	return qp;
}

static void rig_up(struct rig *r, bool srq)
{
	struct ibv_ah_attr aa = { .port_num = 1 };
	struct ibv_port_attr pa;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	r->ctx = emu_test_open();
	r->pd = ibv_alloc_pd(r->ctx);
	assert_non_null(r->pd);
	r->tx_cq = ibv_create_cq(r->ctx, 3 * WQES, NULL, NULL, 0);
	r->rx_cq = ibv_create_cq(r->ctx, WQES, NULL, NULL, 0);
	assert_non_null(r->tx_cq);
	assert_non_null(r->rx_cq);
	r->buf = calloc(WQES + 1, SLOT);
	assert_non_null(r->buf);
	r->mr = ibv_reg_mr(r->pd, r->buf, (WQES + 1) * SLOT,
			   IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(r->mr);
	if (srq) {
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = WQES,
							  .max_sge = 1 } };

		r->srq = ibv_create_srq(r->pd, &sa);
		assert_non_null(r->srq);
	}
	r->tx = ud_qp(r, WQES);
	r->rx[0] = ud_qp(r, WQES);
	r->rx[1] = srq ? ud_qp(r, WQES) : NULL;
	assert_int_equal(ibv_query_port(r->ctx, 1, &pa), 0);
	aa.dlid = pa.lid;
	r->ah = ibv_create_ah(r->pd, &aa);
	assert_non_null(r->ah);
}

static void rig_down(struct rig *r)
{
	assert_int_equal(ibv_destroy_ah(r->ah), 0);
	assert_int_equal(ibv_destroy_qp(r->tx), 0);
	assert_int_equal(ibv_destroy_qp(r->rx[0]), 0);
	if (r->rx[1])
		assert_int_equal(ibv_destroy_qp(r->rx[1]), 0);
	if (r->srq)
		assert_int_equal(ibv_destroy_srq(r->srq), 0);
	assert_int_equal(ibv_dereg_mr(r->mr), 0);
	assert_int_equal(ibv_destroy_cq(r->tx_cq), 0);
	assert_int_equal(ibv_destroy_cq(r->rx_cq), 0);
	assert_int_equal(ibv_dealloc_pd(r->pd), 0);
	assert_int_equal(ibv_close_device(r->ctx), 0);
	pthread_mutex_destroy(&r->lock);
	free(r->buf);
}

/* wr_id: thread << 32 | its n-th receive; the slot is where it lands */
static void post_one(struct rig *r, uint64_t id, unsigned int slot)
{
	struct ibv_sge s = { (uintptr_t)r->buf + (size_t)slot * SLOT, SLOT,
			     r->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret;

	pthread_mutex_lock(&r->lock);
	ret = r->srq ? ibv_post_srq_recv(r->srq, &wr, &bad) :
		       ibv_post_recv(r->rx[0], &wr, &bad);
	if (!ret)
		r->order[r->posted++] = id;
	pthread_mutex_unlock(&r->lock);
	assert_int_equal(ret, 0);
}

struct poster {
	struct rig *r;
	unsigned int t;
};

static void *poster_run(void *arg)
{
	struct poster *p = arg;
	unsigned int i;

	for (i = 0; i < PER_THREAD; i++)
		post_one(p->r, (uint64_t)p->t << 32 | i, p->t * PER_THREAD + i);
	return NULL;
}

/* THREADS threads post PER_THREAD receives each, all at once */
static void post_all(struct rig *r)
{
	struct poster p[THREADS];
	pthread_t th[THREADS];
	unsigned int t;

	r->posted = 0;
	for (t = 0; t < THREADS; t++) {
		p[t] = (struct poster){ r, t };
		assert_int_equal(
			pthread_create(&th[t], NULL, poster_run, &p[t]), 0);
	}
	for (t = 0; t < THREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	assert_int_equal(r->posted, WQES);
}

/* one completion of cq */
static void poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)))
		;
	assert_int_equal(n, 1);
	assert_int_equal(wc->status, IBV_WC_SUCCESS);
}

/* the slot a wr_id was posted for */
static unsigned int slot_of(uint64_t id)
{
	return (id >> 32) * PER_THREAD + (uint32_t)id;
}

/*
 * WQES datagrams, one at a time, to the receivers in turn; datagram i
 * must complete the i-th WQE posted, once, with its payload.
 */
static void send_all(struct rig *r)
{
	uint32_t *seq = (uint32_t *)(r->buf + (size_t)WQES * SLOT);
	struct ibv_sge s = { (uintptr_t)seq, 4, r->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1 }, *bad;
	bool seen[WQES] = { false };
	struct ibv_wc wc;
	unsigned int i;
	uint32_t got;

	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	wr.wr.ud.ah = r->ah;
	wr.wr.ud.remote_qkey = QKEY;
	for (i = 0; i < WQES; i++) {
		struct ibv_qp *to = r->rx[1] && (i & 1) ? r->rx[1] : r->rx[0];

		*seq = i;
		wr.wr_id = i;
		wr.imm_data = htobe32(i);
		wr.wr.ud.remote_qpn = to->qp_num;
		assert_int_equal(ibv_post_send(r->tx, &wr, &bad), 0);
		poll_one(r->tx_cq, &wc);
		poll_one(r->rx_cq, &wc);
		assert_int_equal(wc.opcode, IBV_WC_RECV);
		assert_int_equal(wc.qp_num, to->qp_num);
		assert_true(wc.wc_flags & IBV_WC_WITH_IMM);
		assert_int_equal(be32toh(wc.imm_data), i);
		assert_int_equal(wc.byte_len, GRH + 4);
		/* the i-th posted, never before */
		assert_true(wc.wr_id == r->order[i]);
		assert_false(seen[slot_of(wc.wr_id)]);
		seen[slot_of(wc.wr_id)] = true;
		memcpy(&got, r->buf + (size_t)slot_of(wc.wr_id) * SLOT + GRH,
		       4);
		assert_int_equal(got, i);
	}
	/* nothing more: no WQE completed twice */
	assert_int_equal(ibv_poll_cq(r->rx_cq, 1, &wc), 0);
}

static void order_holds(bool srq)
{
	struct rig r;
	int round;

	rig_up(&r, srq);
	for (round = 0; round < 2; round++) {
		post_all(&r);
		send_all(&r);
	}
	rig_down(&r);
}

static void test_rq_threads_post(void **state)
{
	(void)state;
	order_holds(false);
}

static void test_srq_two_qps_threads_post(void **state)
{
	(void)state;
	order_holds(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rq_threads_post),
		cmocka_unit_test(test_srq_two_qps_threads_post),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
