// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The NIC core, UD delivery and drops, UC. */
#include "nic_test.h"

/* delivery: GRH room, CQE fields, both AV sizes, the QP's own Q_Key */
static void test_ud_delivery(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 256, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 10, src->lkey };
	struct nic_sge r = { rbuf->iova, 128, rbuf->lkey };
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	make_ud(e, 0x11112222);
	memcpy(src->va, "datagram!!", 10);
	for (i = 0; i < 3; i++) {
		struct post p =
			ud_send(&s, 0x101, 7,
				i == 2 ? NIC_QKEY_FROM_QP : 0x11112222, i == 1);

		memset(rbuf->va, 0xaa, 128);
		post_recv(e, 1, &r, 1);
		assert_int_equal(post_run(e, &p), 1);
		/* the first 40 bytes are the GRH's, left alone */
		assert_int_equal(rbuf->va[0], 0xaa);
		assert_int_equal(rbuf->va[NIC_GRH_LEN - 1], 0xaa);
		assert_memory_equal(rbuf->va + NIC_GRH_LEN, "datagram!!", 10);
		cqe = poll_cqe(e, 1);
		assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
		assert_int_equal(be32toh(cqe->byte_cnt), 10 + NIC_GRH_LEN);
		/* source QPN, no GRH flag (bits 28-29), SL 0 */
		assert_int_equal(be32toh(cqe->flags_rqpn), 0x100);
		assert_int_equal(be16toh(cqe->slid), 7);
		assert_int_equal(be16toh(cqe->wqe_counter), i);
		cqe = poll_cqe(e, 0);
		assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
	}
}

/*
 * ud_mlx5's zero-copy fragments: datagram segment (48 bytes), an inline
 * header, then a pointer to the payload; the receiver gets both.
 */
static void test_ud_inline_then_pointer(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 2048, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 4096, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 2000, src->lkey };
	struct nic_sge r = { rbuf->iova, 4096, rbuf->lkey };
	struct post p = ud_send(&s, 0x101, 7, 0x5555, true);
	const char hdr[12] = "neth+am-hdr";
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	make_ud(e, 0x5555);
	for (i = 0; i < 2000; i++)
		src->va[i] = i * 7;
	p.inl = hdr;
	p.inl_len = sizeof(hdr);
	post_recv(e, 1, &r, 1);
	assert_int_equal(post_run(e, &p), 1);
	cqe = poll_cqe(e, 1);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
	assert_int_equal(be32toh(cqe->byte_cnt),
			 NIC_GRH_LEN + sizeof(hdr) + 2000);
	assert_memory_equal(rbuf->va + NIC_GRH_LEN, hdr, sizeof(hdr));
	assert_memory_equal(rbuf->va + NIC_GRH_LEN + sizeof(hdr), src->va,
			    2000);
	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
}

/* what UD cannot deliver is dropped; the sender still completes */
static void test_ud_drops(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 8192, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 256, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 10, src->lkey };
	struct nic_sge r = { rbuf->iova, 128, rbuf->lkey };
	struct nic_sge big = { src->iova, NIC_UD_MTU + 1, src->lkey };
	struct post bad[] = {
		ud_send(&s, 0x101, 7, 0x1234, false), /* wrong Q_Key */
		ud_send(&s, 0x101, 9, 0x5555, false), /* no such LID */
		ud_send(&s, 0x177, 7, 0x5555, false), /* no such QP */
	};
	struct post p = ud_send(&s, 0x101, 7, 0x5555, false);
	struct post rd = ud_send(&s, 0x101, 7, 0x5555, false);
	unsigned int i;

	make_ud(e, 0x5555);
	/* no receive WQE: no RNR wait, the message is gone */
	assert_int_equal(post_run(e, &p), 1);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_null(cq_poll(e, 0));
	post_recv(e, 1, &r, 1);
	for (i = 0; i < 3; i++) {
		assert_int_equal(post_run(e, &bad[i]), 1);
		assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	}
	assert_null(cq_poll(e, 0));
	/* the receive WQE is still there for a good one */
	assert_int_equal(post_run(e, &p), 1);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(be16toh(poll_cqe(e, 1)->wqe_counter), 0);
	/* the device counted each by its fate (the fabric counts no QP) */
	assert_int_equal(e->dev.ud[NIC_UD_NO_WQE], 1);
	assert_int_equal(e->dev.ud[NIC_UD_QKEY], 1);
	assert_int_equal(e->dev.ud[NIC_UD_DELIVERED], 1);
	/* beyond the MTU, or an RC-only opcode: the sender's error */
	p.sge = &big;
	post_run(e, &p);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
		   5);
	e->qp[0].state = NIC_QPS_RTS;
	rd.opcode = MLX5_OPCODE_RDMA_READ;
	post_run(e, &rd);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   6);
}

/* UC: WRITE and SEND without answers; what fails is dropped */
static void test_uc(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 8, src->lkey };
	struct nic_sge r = { rbuf->iova, 64, rbuf->lkey };
	struct post w = send_of(&s);
	struct post p = send_of(&s);

	w.opcode = MLX5_OPCODE_RDMA_WRITE;
	w.raddr = dst->iova;
	w.rkey = dst->rkey;
	e->qp[0].type = e->qp[1].type = NIC_QPT_UC;
	memcpy(src->va, "unreliab", 8);
	assert_int_equal(post_run(e, &w), 1);
	assert_memory_equal(dst->va, "unreliab", 8);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	/* a bad rkey: dropped, both QPs stay up */
	w.rkey ^= 0x100;
	assert_int_equal(post_run(e, &w), 1);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(e->qp[1].state, NIC_QPS_RTS);
	/* no receive WQE: dropped, not retried */
	assert_int_equal(post_run(e, &p), 1);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_null(cq_poll(e, 0));
	post_recv(e, 1, &r, 1);
	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(rbuf->va, "unreliab", 8);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(poll_cqe(e, 1)->op_own >> 4, MLX5_CQE_RESP_SEND);
	assert_int_equal(e->qp[1].state, NIC_QPS_RTS);
}

int nic_ud_uc_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ud_delivery, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_ud_inline_then_pointer,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_ud_drops, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_uc, env_setup,
						env_teardown),
	};

	return cmocka_run_group_tests_name("ud_uc", tests, NULL, NULL);
}
