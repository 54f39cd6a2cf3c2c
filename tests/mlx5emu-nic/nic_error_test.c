// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The NIC core, errors: remote access, malformed and local, state changes. */
#include "nic_test.h"

static void test_remote_access_error(void **state)
{
	struct env *e = *state;
	/* readable, not writable: a WRITE must bounce */
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_READ, 1);
	uint64_t v = 0x1122334455667788ull;
	uint8_t zero[64] = {};
	struct post w = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = &v,
		.inl_len = 8,
	};

	sq_post(e, 0, &w); /* unsignaled: the error CQE comes anyway */
	w.signaled = true;
	sq_post(e, 0, &w); /* flushed */
	run_sq(e);
	assert_memory_equal(dst->va, zero, 64);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		   0);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 1);
	assert_int_equal(e->qp[0].state, NIC_QPS_ERR);
	assert_int_equal(e->qp[1].state, NIC_QPS_ERR);
	assert_int_equal(e->last_qp_event, NIC_EVENT_QP_ACCESS_ERR);

	/* out of bounds, wrong key byte, wrong PD: all refused */
	struct nic_mr *ok = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_mr *otherpd = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 2);
	uint64_t bad[3][2] = { { ok->iova + 60, ok->rkey },
			       { ok->iova, ok->rkey ^ 1 },
			       { otherpd->iova, otherpd->rkey } };
	for (int i = 0; i < 3; i++) {
		env_revive(e);
		w.raddr = bad[i][0];
		w.rkey = bad[i][1];
		post_run(e, &w);
		expect_err(e, 0, MLX5_CQE_REQ_ERR,
			   MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
			   e->sq_pi[0] - 1);
	}
	assert_memory_equal(ok->va, zero, 64);
	assert_memory_equal(otherpd->va, zero, 64);
}

static void test_malformed(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 1;
	struct post w = {
		.opcode = 0x77, /* no such opcode */
		.signaled = true,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = &v,
		.inl_len = 8,
	};
	int ds[] = { -1, 63, 5 };
	unsigned int i;

	post_run(e, &w);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   0);
	assert_int_equal(e->qp[0].sq_ci, e->sq_pi[0]);

	/* ds of 0, ds past the ring (63 units > 8 BBs), ds past what
	 * was posted, and an inline length past the WQE */
	w.opcode = MLX5_OPCODE_RDMA_WRITE;
	for (i = 0; i < 3; i++) {
		e->qp[0].state = NIC_QPS_RTS;
		w.force_ds = ds[i];
		post_run(e, &w);
		expect_err(e, 0, MLX5_CQE_REQ_ERR,
			   MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
			   (uint16_t)(e->sq_pi[0] - 1));
		assert_int_equal(e->qp[0].sq_ci, e->sq_pi[0]);
	}
	e->qp[0].state = NIC_QPS_RTS;
	w.force_ds = 0;
	w.inl_len = 8;
	sq_post(e, 0, &w);
	/* corrupt the inline byte_count to claim 900 bytes */
	{
		uint32_t bb = (e->sq_pi[0] - 1) & 7;
		uint32_t bc = htobe32(900 | MLX5_INLINE_SEG);

		memcpy(e->qp[0].sq + bb * 64 + 32, &bc, 4);
	}
	run_sq(e);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   (uint16_t)(e->sq_pi[0] - 1));
	/* a stale counter in the control segment */
	e->qp[0].state = NIC_QPS_RTS;
	sq_post(e, 0, &w);
	e->qp[0].sq[((e->sq_pi[0] - 1) & 7) * 64 + 2] ^= 0x5;
	run_sq(e);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   (uint16_t)(e->sq_pi[0] - 1));
	assert_int_equal(dst->va[0], 0);
}

static void test_local_errors(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 32, src->lkey ^ 0x3 };
	struct nic_sge r = { rbuf->iova, 16, rbuf->lkey };
	struct post w = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.sge = &s,
		.nsge = 1,
	};

	post_run(e, &w);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0);

	/* a SEND longer than the receive WQE: responder LOCAL_LENGTH,
	 * requester remote invalid request */
	env_revive(e);
	s.lkey = src->lkey;
	w.opcode = MLX5_OPCODE_SEND;
	w.raddr = 0;
	w.rkey = 0;
	post_recv(e, 1, &r, 1);
	post_recv(e, 1, &r, 1); /* flushed */
	post_run(e, &w);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, 1);
	/* qp[1] shares the test's CQ 1 */
	expect_err(e, 1, MLX5_CQE_RESP_ERR, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
		   0);
	expect_err(e, 1, MLX5_CQE_RESP_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 1);
	assert_null(cq_poll(e, 1));
}

static void test_reset_and_states(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 5;
	struct post w = inline_write(dst, &v);

	/* RTR executes nothing from the SQ */
	e->qp[0].state = NIC_QPS_RTR;
	assert_int_equal(post_run(e, &w), 0);
	/* a responder not in RTR/RTS drops: transport retries exceeded */
	e->qp[0].state = NIC_QPS_RTS;
	e->qp[1].state = NIC_QPS_INIT;
	nic_sq_process(&e->qp[0], 64);
	assert_int_equal(e->qp[0].state, NIC_QPS_RTS); /* still retrying */
	assert_true(e->qp[0].retries > 0);
	while (e->qp[0].state == NIC_QPS_RTS)
		nic_sq_process(&e->qp[0], 64);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, 0);
	/* app moves to ERR: everything posted is flushed */
	sq_post(e, 0, &w);
	sq_post(e, 0, &w);
	sq_ring(e, 0);
	nic_qp_flush(&e->qp[0]);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 1);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 2);
	/* RESET zeroes the counters, as libmlx5 zeroes the DBRs */
	nic_qp_reset(&e->qp[0]);
	e->dbrec[0][0] = e->dbrec[0][1] = 0;
	e->sq_pi[0] = 0;
	assert_int_equal(e->qp[0].sq_ci, 0);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
}

/* resize SQ 0 to nbb basic blocks and CQ 0 to ncqe entries */
static void grow_rings(struct env *e, uint32_t nbb, uint32_t ncqe)
{
	struct nic_cq *cq = &e->cq[0];
	uint32_t i;

	free(e->qp[0].sq);
	e->qp[0].sq_bbs = nbb;
	e->qp[0].sq = aligned_alloc(64, nbb * 64);
	memset(e->qp[0].sq, 0xee, nbb * 64);
	free(cq->buf);
	cq->ncqe = ncqe;
	cq->buf = aligned_alloc(64, ncqe * 64);
	memset(cq->buf, 0, ncqe * 64);
	for (i = 0; i < ncqe; i++)
		cq->buf[i * 64 + 63] = 0xf0;
	nic_cq_init(cq);
}

/*
 * A full window (NIC_WINDOW signaled WQEs waiting for a remote answer)
 * and a malformed WQE behind them in the same doorbell: the error waits
 * for room like any WQE, so every WQE in flight completes once, in
 * order, and the error comes last.
 */
static void test_error_behind_full_window(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 7;
	struct post w = inline_write(dst, &v);
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	grow_rings(e, 2 * NIC_WINDOW, 2 * NIC_WINDOW);
	e->dev.ops = &t_ops_remote;
	memset(&remote_peer, 0, sizeof(remote_peer));
	remote_peer.on = true;
	for (i = 0; i < NIC_WINDOW; i++)
		sq_post(e, 0, &w);
	w.opcode = 0x77; /* no such opcode */
	sq_post(e, 0, &w);
	sq_ring(e, 0);
	nic_sq_process(&e->qp[0], 2 * NIC_WINDOW);
	assert_int_equal(remote_peer.n, NIC_WINDOW);
	for (i = 0; i < NIC_WINDOW; i++)
		nic_req_answer(&e->qp[0], remote_peer.epoch[i],
			       remote_peer.psn[i], NIC_ACK, NULL, 0);
	for (i = 0; i < 4; i++)
		nic_sq_process(&e->qp[0], 2 * NIC_WINDOW);
	for (i = 0; i < NIC_WINDOW; i++) {
		cqe = poll_cqe(e, 0);
		assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
		assert_int_equal(be16toh(cqe->wqe_counter), i);
	}
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   NIC_WINDOW);
	assert_null(cq_poll(e, 0));
	remote_peer.on = false;
}

/*
 * A QP created without a send queue (max_send_wr 0): a doorbell record
 * moved by hand is ignored, as hardware ignores it, in RTS and in ERR.
 */
static void test_no_send_queue(void **state)
{
	struct env *e = *state;

	free(e->qp[0].sq);
	e->qp[0].sq = NULL;
	e->qp[0].sq_bbs = 0;
	e->dbrec[0][1] = htobe32(5);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
	assert_null(cq_poll(e, 0));
	nic_qp_error(&e->qp[0]);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
	assert_null(cq_poll(e, 0));
}

/*
 * A flush steps over whole WQEs, the ones it cannot execute too: a WQE of
 * two basic blocks whose opcode the NIC does not know (LOCAL_INV, say) is
 * one flushed completion, and the WQE after it keeps its own counter.
 */
static void test_flush_whole_wqes(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint8_t data[40] = {};
	uint64_t v = 7;
	struct post odd = {
		.opcode = 0x77, /* no such opcode */
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = data,
		.inl_len = sizeof(data),
	};
	struct post w = inline_write(dst, &v);

	sq_post(e, 0, &odd); /* 5 units: 2 basic blocks */
	assert_int_equal(e->sq_pi[0], 2);
	w.signaled = true;
	sq_post(e, 0, &w);
	sq_ring(e, 0);
	nic_qp_flush(&e->qp[0]);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 2);
	assert_null(cq_poll(e, 0));
	assert_int_equal(e->qp[0].sq_ci, 3);
}

int nic_errors_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_remote_access_error,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_malformed, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_local_errors, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_reset_and_states,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_error_behind_full_window,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_no_send_queue, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_flush_whole_wqes,
						env_setup, env_teardown),
	};

	return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
