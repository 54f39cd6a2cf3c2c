// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SRQ, UD and UC through libibverbs and libmlx5 on the emulated device:
 * what an application sees in ibv_wc, the SRQ limit event and the
 * counters that let ibv_destroy_srq return, and the errors the control
 * path answers.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu_test.h"

#define GRH 40
#define QKEY 0x11223344
#define BUF 8192

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint16_t lid;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	struct ibv_port_attr pa;

	e->ctx = emu_test_open();
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	e->buf = calloc(1, BUF);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(e->mr);
	assert_int_equal(ibv_query_port(e->ctx, 1, &pa), 0);
	e->lid = pa.lid;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	assert_int_equal(ibv_dereg_mr(e->mr), 0);
	assert_int_equal(ibv_destroy_cq(e->cq), 0);
	assert_int_equal(ibv_dealloc_pd(e->pd), 0);
	assert_int_equal(ibv_close_device(e->ctx), 0);
	free(e->buf);
	free(e);
	return 0;
}

static struct ibv_qp *make_qp(struct env *e, enum ibv_qp_type type,
			      struct ibv_srq *srq)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.srq = srq,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = type,
		.sq_sig_all = 1,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = e->pd,
	};
	struct ibv_qp *qp;

	if (type == IBV_QPT_UD) {
		a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	}
	qp = ibv_create_qp_ex(e->ctx, &a);
	assert_non_null(qp);
	return qp;
}

/* RESET -> RTS toward dqpn (ignored for UD) */
static void bring_up(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	bool ud = qp->qp_type == IBV_QPT_UD;

	assert_int_equal(
		ibv_modify_qp(qp, &a,
			      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS)),
		0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = dqpn;
	a.ah_attr.dlid = e->lid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	assert_int_equal(
		ibv_modify_qp(
			qp, &a,
			ud ? IBV_QP_STATE :
			     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					(qp->qp_type == IBV_QPT_RC ?
						 IBV_QP_MAX_DEST_RD_ATOMIC |
							 IBV_QP_MIN_RNR_TIMER :
						 0)),
		0);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	assert_int_equal(ibv_modify_qp(qp, &a,
				       qp->qp_type == IBV_QPT_RC ?
					       IBV_QP_STATE | IBV_QP_SQ_PSN |
						       IBV_QP_TIMEOUT |
						       IBV_QP_RETRY_CNT |
						       IBV_QP_RNR_RETRY |
						       IBV_QP_MAX_QP_RD_ATOMIC :
					       IBV_QP_STATE | IBV_QP_SQ_PSN),
			 0);
}

static void post_recv_at(struct env *e, struct ibv_qp *qp, struct ibv_srq *srq,
			 uint64_t id, size_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (srq)
		assert_int_equal(ibv_post_srq_recv(srq, &wr, &bad), 0);
	else
		assert_int_equal(ibv_post_recv(qp, &wr, &bad), 0);
}

/* n completions, whatever their status */
static void poll_raw(struct env *e, struct ibv_wc *wc, int n)
{
	int got = 0, spins = 0;

	while (got < n && ++spins < 50000000) {
		int r = ibv_poll_cq(e->cq, n - got, wc + got);

		assert_true(r >= 0);
		got += r;
	}
	assert_int_equal(got, n);
}

/* n completions; they must all succeed */
static void poll_n(struct env *e, struct ibv_wc *wc, int n)
{
	int i;

	poll_raw(e, wc, n);
	for (i = 0; i < n; i++)
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
}

static void post_send_wr(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	assert_int_equal(ibv_post_send(qp, wr, &bad), 0);
}

/* an SRQ and two connected RC QPs: a sends, b receives through the SRQ */
struct srq_pair {
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
};

static void srq_pair_up(struct env *e, uint32_t max_wr, struct srq_pair *p)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = max_wr,
						  .max_sge = 1 } };

	p->srq = ibv_create_srq(e->pd, &sa);
	assert_non_null(p->srq);
	p->a = make_qp(e, IBV_QPT_RC, NULL);
	p->b = make_qp(e, IBV_QPT_RC, p->srq);
	bring_up(e, p->a, p->b->qp_num);
	bring_up(e, p->b, p->a->qp_num);
}

/* ibv_destroy_srq returns only if the events were counted right */
static void srq_pair_down(struct srq_pair *p)
{
	assert_int_equal(ibv_destroy_qp(p->b), 0);
	assert_int_equal(ibv_destroy_qp(p->a), 0);
	assert_int_equal(ibv_destroy_srq(p->srq), 0);
}

/* one SEND of the first len bytes of the buffer */
static void send_once(struct env *e, struct ibv_qp *qp, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)e->buf, len, e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &s,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND };

	post_send_wr(qp, &wr);
}

/* the limit fires once; the event read is what DESTROY_SRQ reports */
static void srq_limit_event(void **state)
{
	struct env *e = *state;
	struct ibv_srq_attr attr = { .srq_limit = 3 };
	struct ibv_async_event ev;
	struct ibv_wc wc[2];
	struct srq_pair p;
	int i;

	srq_pair_up(e, 16, &p);
	for (i = 0; i < 5; i++)
		post_recv_at(e, NULL, p.srq, 100 + i, 1024 + 64 * i, 64);
	assert_int_equal(ibv_modify_srq(p.srq, &attr, IBV_SRQ_LIMIT), 0);
	memset(&attr, 0, sizeof(attr));
	assert_int_equal(ibv_query_srq(p.srq, &attr), 0);
	assert_int_equal(attr.srq_limit, 3);
	/* 5 -> 3 posted: not below the limit yet */
	for (i = 0; i < 3; i++) {
		send_once(e, p.a, 16);
		poll_n(e, wc, 2);
		if (i == 1) {
			assert_int_equal(ibv_query_srq(p.srq, &attr), 0);
			assert_int_equal(attr.srq_limit, 3);
		}
	}
	/* 2 left < 3: the event, and the limit reads 0 again */
	assert_int_equal(ibv_get_async_event(e->ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
	assert_ptr_equal(ev.element.srq, p.srq);
	ibv_ack_async_event(&ev);
	assert_int_equal(ibv_query_srq(p.srq, &attr), 0);
	assert_int_equal(attr.srq_limit, 0);
	/* a limit at or above the SRQ's size is refused */
	attr.srq_limit = 1 << 20;
	assert_int_equal(ibv_modify_srq(p.srq, &attr, IBV_SRQ_LIMIT), EINVAL);
	/* the SRQ is in use */
	assert_int_equal(ibv_destroy_srq(p.srq), EBUSY);
	srq_pair_down(&p);
}

/* an event nobody read does not hold up ibv_destroy_srq */
static void srq_unread_event(void **state)
{
	struct env *e = *state;
	struct ibv_srq_attr attr = { .srq_limit = 2 };
	struct ibv_wc wc[2];
	struct srq_pair p;

	srq_pair_up(e, 8, &p);
	post_recv_at(e, NULL, p.srq, 1, 1024, 64);
	post_recv_at(e, NULL, p.srq, 2, 1088, 64);
	assert_int_equal(ibv_modify_srq(p.srq, &attr, IBV_SRQ_LIMIT), 0);
	send_once(e, p.a, 8);
	poll_n(e, wc, 2);
	srq_pair_down(&p);
}

/*
 * A QP of an SRQ that enters the error state reports its last WQE, once,
 * whether the application moved it there or the NIC did; a QP without an
 * SRQ does not.
 */
static void srq_last_wqe_event(void **state)
{
	struct env *e = *state;
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_async_event ev;
	struct ibv_wc wc[2];
	struct srq_pair p;
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };

	srq_pair_up(e, 8, &p);
	post_recv_at(e, NULL, p.srq, 1, 1024, 64);
	send_once(e, p.a, 8);
	poll_n(e, wc, 2);
	assert_int_equal(ibv_modify_qp(p.b, &attr, IBV_QP_STATE), 0);
	assert_int_equal(ibv_get_async_event(e->ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev.element.qp, p.b);
	ibv_ack_async_event(&ev);
	/* again into error, and the QP without an SRQ: nothing more */
	assert_int_equal(ibv_modify_qp(p.b, &attr, IBV_QP_STATE), 0);
	assert_int_equal(ibv_modify_qp(p.a, &attr, IBV_QP_STATE), 0);
	assert_int_equal(poll(&pfd, 1, 100), 0);
	srq_pair_down(&p);
}

static void srq_errors(void **state)
{
	struct env *e = *state;
	struct ibv_device_attr da;
	struct ibv_srq_init_attr sa = { .attr = { .max_sge = 1 } };

	assert_int_equal(ibv_query_device(e->ctx, &da), 0);
	assert_true(da.max_srq > 0);
	assert_true(da.max_srq_sge >= 1);
	sa.attr.max_wr = da.max_srq_wr + 1;
	assert_null(ibv_create_srq(e->pd, &sa));
	assert_int_equal(errno, EINVAL);
}

/* UD between two QPs: data after the GRH room, wc fields, Q_Key, drops */
static void ud_traffic(void **state)
{
	struct env *e = *state;
	struct ibv_ah_attr aa = { .dlid = e->lid, .port_num = 1 };
	struct ibv_qp *a = make_qp(e, IBV_QPT_UD, NULL);
	struct ibv_qp *b = make_qp(e, IBV_QPT_UD, NULL);
	struct ibv_ah *ah = ibv_create_ah(e->pd, &aa);
	struct ibv_sge s = { (uintptr_t)e->buf, 100, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7,
		.sg_list = &s,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
	};
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_wc wc[2];
	int i;

	assert_non_null(ah);
	bring_up(e, a, 0);
	bring_up(e, b, 0);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	for (i = 0; i < 100; i++)
		e->buf[i] = i;
	memset(e->buf + 4096, 0xee, 256);
	/* nothing posted at b: dropped, no RNR wait */
	post_send_wr(a, &wr);
	poll_n(e, wc, 1);
	assert_int_equal(wc[0].opcode, IBV_WC_SEND);
	/* a wrong Q_Key: dropped too */
	post_recv_at(e, b, NULL, 55, 4096, 256);
	wr.wr.ud.remote_qkey = QKEY + 1;
	post_send_wr(a, &wr);
	poll_n(e, wc, 1);
	assert_int_equal(wc[0].wr_id, 7);
	/* the right one lands 40 bytes in; byte_len counts the GRH room */
	wr.wr.ud.remote_qkey = QKEY;
	post_send_wr(a, &wr);
	poll_n(e, wc, 2);
	if (wc[0].wr_id != 55)
		wc[0] = wc[1];
	assert_int_equal(wc[0].wr_id, 55);
	assert_int_equal(wc[0].opcode, IBV_WC_RECV);
	assert_int_equal(wc[0].byte_len, 100 + GRH);
	assert_int_equal(wc[0].src_qp, a->qp_num);
	assert_int_equal(wc[0].slid, e->lid);
	assert_int_equal(wc[0].wc_flags & IBV_WC_GRH, 0);
	assert_int_equal(e->buf[4096 + GRH - 1], 0xee);
	assert_memory_equal(e->buf + 4096 + GRH, e->buf, 100);
	/* QUERY_QP: the Q_Key, and the RQ as the device sized it */
	assert_int_equal(ibv_query_qp(b, &qa, IBV_QP_QKEY | IBV_QP_CAP, &qia),
			 0);
	assert_int_equal(qa.qkey, QKEY);
	assert_true(qa.cap.max_recv_wr >= 16);
	assert_int_equal(qa.cap.max_recv_wr & (qa.cap.max_recv_wr - 1), 0);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	assert_int_equal(ibv_destroy_ah(ah), 0);
}

/* UC: WRITE and SEND; a SEND with no receive is lost, not retried */
static void uc_traffic(void **state)
{
	struct env *e = *state;
	struct ibv_qp *a = make_qp(e, IBV_QPT_UC, NULL);
	struct ibv_qp *b = make_qp(e, IBV_QPT_UC, NULL);
	struct ibv_sge s = { (uintptr_t)e->buf, 32, e->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &s,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
	};
	struct ibv_wc wc[2];

	bring_up(e, a, b->qp_num);
	bring_up(e, b, a->qp_num);
	memcpy(e->buf, "unreliable connection, written..", 32);
	wr.wr.rdma.remote_addr = (uintptr_t)e->buf + 2048;
	wr.wr.rdma.rkey = e->mr->rkey;
	post_send_wr(a, &wr);
	poll_n(e, wc, 1);
	assert_memory_equal(e->buf + 2048, e->buf, 32);
	wr.opcode = IBV_WR_SEND;
	post_send_wr(a, &wr);
	poll_n(e, wc, 1);
	assert_int_equal(wc[0].opcode, IBV_WC_SEND);
	post_recv_at(e, b, NULL, 9, 3072, 64);
	post_send_wr(a, &wr);
	poll_n(e, wc, 2);
	assert_memory_equal(e->buf + 3072, e->buf, 32);
	/* RDMA READ is not a UC operation */
	wr.opcode = IBV_WR_RDMA_READ;
	post_send_wr(a, &wr);
	poll_raw(e, wc, 1);
	assert_int_equal(wc[0].status, IBV_WC_LOC_QP_OP_ERR);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(srq_limit_event, setup,
						teardown),
		cmocka_unit_test_setup_teardown(srq_unread_event, setup,
						teardown),
		cmocka_unit_test_setup_teardown(srq_last_wqe_event, setup,
						teardown),
		cmocka_unit_test_setup_teardown(srq_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(ud_traffic, setup, teardown),
		cmocka_unit_test_setup_teardown(uc_traffic, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
