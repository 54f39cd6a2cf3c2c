// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The NIC core, RC: writes, reads, sends, atomics, RNR and the send window. */
#include "nic_test.h"

static void test_inline_write(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct mlx5_cqe64 *cqe;
	struct post p = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova + 8,
		.rkey = dst->rkey,
		.inl = "12345678",
		.inl_len = 8,
	};

	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(dst->va + 8, "12345678", 8);
	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), 0);
	assert_int_equal(be32toh(cqe->srqn_uidx), 10);
	assert_int_equal(be32toh(cqe->sop_drop_qpn),
			 MLX5_OPCODE_RDMA_WRITE << 24 | 0x100);
	assert_int_equal(cqe->op_own & 0x0c, 0); /* never scattered */
	assert_null(cq_poll(e, 0));
}

/* 16 unsignaled + 1 signaled: one CQE with the signaled WQE's counter,
 * across SQ wrap-around and CQ owner-bit flips */
static void test_coalescing_and_wrap(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 4096, NIC_ACCESS_REMOTE_WRITE, 1);
	struct mlx5_cqe64 *cqe;
	unsigned int round, i;
	uint64_t val;

	for (round = 0; round < 40; round++) {
		for (i = 0; i < 6; i++) {
			val = round * 100 + i;
			struct post p = {
				.opcode = MLX5_OPCODE_RDMA_WRITE,
				.signaled = i == 5,
				.raddr = dst->iova + 8 * i,
				.rkey = dst->rkey,
				.inl = &val,
				.inl_len = 8,
			};
			sq_post(e, 0, &p);
		}
		assert_int_equal(run_sq(e), 6);
		memcpy(&val, dst->va + 40, 8);
		assert_int_equal(val, round * 100 + 5);
		cqe = poll_cqe(e, 0);
		assert_int_equal(be16toh(cqe->wqe_counter),
				 (uint16_t)(e->sq_pi[0] - 1));
		assert_null(cq_poll(e, 0));
	}
}

/* a 3-SGE WQE is 2 BBs: place it so data segments wrap at qend */
static void test_sgl_write_wraps(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 256, 0, 1);
	struct nic_mr *dst = add_mr(e, 256, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_sge sge[3];
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	for (i = 0; i < 256; i++)
		src->va[i] = i;
	for (i = 0; i < 3; i++) {
		sge[i].addr = src->iova + 50 * i;
		sge[i].len = 10 + i;
		sge[i].lkey = src->lkey;
	}
	e->sq_pi[0] = e->qp[0].sq_ci = e->qp[0].sq_sent = 7; /* last BB */
	struct post p = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova + 1,
		.rkey = dst->rkey,
		.sge = sge,
		.nsge = 3,
	};
	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(dst->va + 1, src->va, 10);
	assert_memory_equal(dst->va + 11, src->va + 50, 11);
	assert_memory_equal(dst->va + 22, src->va + 100, 12);
	assert_int_equal(dst->va[34], 0);
	cqe = poll_cqe(e, 0);
	assert_int_equal(be16toh(cqe->wqe_counter), 7);
	assert_int_equal(e->qp[0].sq_ci, 9);
}

static void test_inline_wraps(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 256, NIC_ACCESS_REMOTE_WRITE, 1);
	uint8_t data[100];
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = 0xa0 ^ i;
	/* 16-bit counters too */
	e->sq_pi[0] = e->qp[0].sq_ci = e->qp[0].sq_sent = 0x1237;
	struct post p = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = data,
		.inl_len = sizeof(data),
	};
	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(dst->va, data, sizeof(data));
	assert_non_null(cq_poll(e, 0));
}

/*
 * UCX's am_zcopy: an inline header, then pointer segments, in one WQE
 * that wraps around the end of the SQ. The NIC executes the segments in
 * order, as hardware does: the receiver sees header and data.
 */
static void test_inline_then_pointers(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 256, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 256, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_mr *dst = add_mr(e, 256, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_sge s[2] = { { src->iova, 40, src->lkey },
				{ src->iova + 100, 25, src->lkey } };
	struct nic_sge r = { rbuf->iova, 256, rbuf->lkey };
	const char hdr[] = "header-of-21-bytes!!"; /* 21 with the NUL */
	uint8_t want[256];
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	for (i = 0; i < 256; i++)
		src->va[i] = i ^ 0x5a;
	memcpy(want, hdr, sizeof(hdr));
	memcpy(want + sizeof(hdr), src->va, 40);
	memcpy(want + sizeof(hdr) + 40, src->va + 100, 25);

	e->sq_pi[0] = e->qp[0].sq_ci = e->qp[0].sq_sent = 7; /* last BB */
	struct post p = send_of(s);
	p.nsge = 2;
	p.inl = hdr;
	p.inl_len = sizeof(hdr);
	post_recv(e, 1, &r, 1);
	assert_int_equal(post_run(e, &p), 1);
	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
	cqe = poll_cqe(e, 1);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
	assert_int_equal(be32toh(cqe->byte_cnt), sizeof(hdr) + 65);
	assert_memory_equal(rbuf->va, want, sizeof(hdr) + 65);

	/* the same as an RDMA WRITE */
	p.opcode = MLX5_OPCODE_RDMA_WRITE;
	p.raddr = dst->iova + 3;
	p.rkey = dst->rkey;
	assert_int_equal(post_run(e, &p), 1);
	assert_non_null(cq_poll(e, 0));
	assert_memory_equal(dst->va + 3, want, sizeof(hdr) + 65);
	assert_int_equal(dst->va[3 + sizeof(hdr) + 65], 0);

	/* a pointer segment that fails its lkey check fails the WQE */
	s[1].lkey ^= 0x3;
	p.opcode = MLX5_OPCODE_SEND;
	p.raddr = 0;
	p.rkey = 0;
	post_recv(e, 1, &r, 1);
	post_run(e, &p);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
		   (uint16_t)(e->sq_pi[0] - 2));
}

static void test_send_recv_rnr(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 20, src->lkey };
	struct nic_sge r[2] = { { rbuf->iova, 8, rbuf->lkey },
				{ rbuf->iova + 32, 32, rbuf->lkey } };
	struct mlx5_cqe64 *cqe;

	memcpy(src->va, "abcdefghijklmnopqrst", 20);
	struct post p = {
		.opcode = MLX5_OPCODE_SEND_IMM,
		.signaled = true,
		.solicited = true,
		.imm = htobe32(0x1234),
		.sge = &s,
		.nsge = 1,
	};
	sq_post(e, 0, &p);
	sq_ring(e, 0);
	/* no receive posted: held, nothing completes */
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
	assert_null(cq_poll(e, 0));
	assert_true(e->qp[0].rnr_waits > 0);

	post_recv(e, 1, r, 2);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 1);
	assert_memory_equal(rbuf->va, "abcdefgh", 8);
	assert_memory_equal(rbuf->va + 32, "ijklmnopqrst", 12);

	cqe = poll_cqe(e, 1);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND_IMM);
	assert_true(cqe->op_own & 2); /* solicited */
	assert_int_equal(be32toh(cqe->byte_cnt), 20);
	assert_int_equal(cqe->imm_inval_pkey, htobe32(0x1234));
	assert_int_equal(be32toh(cqe->flags_rqpn) & 0xffffff, 0x100);
	assert_int_equal(be16toh(cqe->slid), 7);
	assert_int_equal(be32toh(cqe->srqn_uidx), 11);
	assert_int_equal(be16toh(cqe->wqe_counter), 0);

	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
}

static void test_read(void **state)
{
	struct env *e = *state;
	struct nic_mr *remote = add_mr(e, 64, NIC_ACCESS_REMOTE_READ, 1);
	struct nic_mr *local = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { local->iova + 4, 16, local->lkey };
	struct mlx5_cqe64 *cqe;

	memcpy(remote->va, "0123456789ABCDEFGHIJ", 20);
	struct post p = {
		.opcode = MLX5_OPCODE_RDMA_READ,
		.signaled = true,
		.raddr = remote->iova + 2,
		.rkey = remote->rkey,
		.sge = &s,
		.nsge = 1,
	};
	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(local->va + 4, "23456789ABCDEFGH", 16);
	cqe = poll_cqe(e, 0);
	assert_int_equal(be32toh(cqe->byte_cnt), 16);
	assert_int_equal(be32toh(cqe->sop_drop_qpn) >> 24,
			 MLX5_OPCODE_RDMA_READ);
}

/* pipelined requests: nothing retires before its answer; an RNR answer
 * sends the WQE again in a new epoch and stale answers are ignored */
static void test_pipeline_rnr(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 9;
	struct post w = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = &v,
		.inl_len = 8,
	};
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	e->dev.ops = &t_ops_remote;
	memset(&remote_peer, 0, sizeof(remote_peer));
	remote_peer.on = true;
	e->qp[0].req_psn = 100;
	for (i = 0; i < 3; i++) {
		w.signaled = i == 2;
		sq_post(e, 0, &w);
	}
	assert_int_equal(run_sq(e), 3); /* in flight */
	assert_int_equal(remote_peer.n, 3);
	assert_int_equal(remote_peer.psn[2], 102);
	assert_null(cq_poll(e, 0));
	/* the first is RNR'd, the others were dropped by the responder */
	nic_req_answer(&e->qp[0], remote_peer.epoch[0], 100, NIC_NAK_RNR, NULL,
		       0);
	nic_req_answer(&e->qp[0], remote_peer.epoch[1], 101, NIC_NAK_SEQ, NULL,
		       0);
	/* this pass goes back; the next one sends again (RNR timer) */
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 3);
	assert_int_equal(remote_peer.n, 6);
	assert_int_equal(remote_peer.psn[3], 100);
	assert_true(remote_peer.epoch[3] != remote_peer.epoch[0]);
	/* a stale answer from the old epoch changes nothing */
	nic_req_answer(&e->qp[0], remote_peer.epoch[2], 102, NIC_NAK_SEQ, NULL,
		       0);
	for (i = 3; i < 6; i++)
		nic_req_answer(&e->qp[0], remote_peer.epoch[i],
			       remote_peer.psn[i], NIC_ACK, NULL, 0);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 3);
	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), 2);
	assert_null(cq_poll(e, 0));
	remote_peer.on = false;
}

static void test_atomics(void **state)
{
	struct env *e = *state;
	struct nic_mr *tgt = add_mr(e, 64, NIC_ACCESS_REMOTE_ATOMIC, 1);
	struct nic_mr *res = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { res->iova, 8, res->lkey };
	struct post p = {
		.opcode = MLX5_OPCODE_ATOMIC_FA,
		.signaled = true,
		.raddr = tgt->iova + 8,
		.rkey = tgt->rkey,
		.sge = &s,
		.nsge = 1,
		.atomic = true,
		.swap_add = 40,
	};
	struct mlx5_cqe64 *cqe;
	uint64_t v;

	e->qp[1].access |= NIC_ACCESS_REMOTE_ATOMIC;
	/* host order throughout: what IBV_ATOMIC_HCA promises on mlx5 */
	v = 2;
	memcpy(tgt->va + 8, &v, 8);
	sq_post(e, 0, &p);
	p.opcode = MLX5_OPCODE_ATOMIC_CS; /* 42 -> 7 */
	p.compare = 42;
	p.swap_add = 7;
	s.addr += 8;
	assert_int_equal(post_run(e, &p), 2);
	memcpy(&v, res->va, 8);
	assert_int_equal(v, 2); /* the old value */
	memcpy(&v, res->va + 8, 8);
	assert_int_equal(v, 42);
	memcpy(&v, tgt->va + 8, 8);
	assert_int_equal(v, 7);
	/* a compare that misses returns memory and leaves it alone */
	p.compare = 1;
	p.swap_add = 99;
	s.addr += 8;
	assert_int_equal(post_run(e, &p), 1);
	memcpy(&v, res->va + 16, 8);
	assert_int_equal(v, 7);
	memcpy(&v, tgt->va + 8, 8);
	assert_int_equal(v, 7);
	poll_cqe(e, 0);
	cqe = poll_cqe(e, 0);
	assert_int_equal(be32toh(cqe->byte_cnt), 8);
	cqe = poll_cqe(e, 0);
	/* misaligned: invalid request, target untouched */
	p.raddr = tgt->iova + 4;
	post_run(e, &p);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, 3);
	memcpy(&v, tgt->va + 8, 8);
	assert_int_equal(v, 7);
}

/* rnr_retry 1: one more try after the RNR timer, then RNR_RETRY_EXC */
static void test_rnr_retry_exceeded(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_sge s = { src->iova, 8, src->lkey };
	struct post p = {
		.opcode = MLX5_OPCODE_SEND,
		.signaled = true,
		.sge = &s,
		.nsge = 1,
	};
	unsigned int spins = 0;

	e->qp[0].rnr_retry = 1;
	post_run(e, &p);
	assert_int_equal(e->qp[0].state, NIC_QPS_RTS);
	assert_true(e->qp[0].hold_until != 0);
	/* held for the timer: nothing goes out meanwhile */
	while (e->qp[0].state == NIC_QPS_RTS && ++spins < 100000000)
		nic_sq_process(&e->qp[0], 64);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR,
		   0);
	assert_int_equal(e->qp[0].rnr_waits, 1);
}

int nic_rc_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_inline_then_pointers,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_inline_write, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_coalescing_and_wrap,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_sgl_write_wraps, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_inline_wraps, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_send_recv_rnr, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_read, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_pipeline_rnr, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_atomics, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_rnr_retry_exceeded,
						env_setup, env_teardown),
	};

	return cmocka_run_group_tests_name("rc", tests, NULL, NULL);
}
