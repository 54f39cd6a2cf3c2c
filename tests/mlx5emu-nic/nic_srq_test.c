// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The NIC core, the shared receive queue: linked WQEs and the limit event. */
#include "nic_test.h"

/* the NIC follows the links, not the indices; wqe_counter says which */
static void test_srq_linked_list(void **state)
{
	static const uint16_t next[SRQ_WQES] = { 5, 7, 3, 1, 0, 2, 4, 6 };
	static const uint16_t order[] = { 0, 5, 2, 3 };
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 256, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 4, src->lkey };
	struct post p = send_of(&s);
	struct mlx5_cqe64 *cqe;
	struct nic_srq srq;
	uint32_t db;
	unsigned int i;

	srq_attach(e, &srq, &db, next);
	for (i = 0; i < 4; i++) {
		struct nic_sge r = { rbuf->iova + 64 * i, 64, rbuf->lkey };

		srq_post(&srq, &db, order[i], &r);
	}
	assert_int_equal(nic_srq_posted(&srq), 4);
	for (i = 0; i < 4; i++) {
		memset(src->va, 'a' + i, 4);
		assert_int_equal(post_run(e, &p), 1);
		cqe = poll_cqe(e, 1);
		assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
		assert_int_equal(be16toh(cqe->wqe_counter), order[i]);
		/* cqe_version 1: the QP's user index, not the SRQN */
		assert_int_equal(be32toh(cqe->srqn_uidx), 11);
		assert_int_equal(rbuf->va[64 * i + 3], 'a' + i);
		poll_cqe(e, 0);
	}
	/* none left: RC waits (RNR), the WQE is not lost */
	sq_post(e, 0, &p);
	sq_ring(e, 0);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
	assert_null(cq_poll(e, 1));
	free(srq.buf);
}

/* limit 2 with 4 posted: the event comes once, at the 3rd message */
static void test_srq_limit_event(void **state)
{
	static const uint16_t next[SRQ_WQES] = { 1, 2, 3, 4, 5, 6, 7, 0 };
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 4, src->lkey };
	struct nic_sge r = { rbuf->iova, 64, rbuf->lkey };
	struct post p = send_of(&s);
	struct nic_srq srq;
	unsigned int i, events[5] = { 0, 0, 1, 1, 1 };
	uint32_t db;

	srq_attach(e, &srq, &db, next);
	for (i = 0; i < 4; i++)
		srq_post(&srq, &db, i, &r);
	srq.limit = 2;
	for (i = 0; i < 4; i++) {
		assert_int_equal(post_run(e, &p), 1);
		assert_int_equal(srq_events, events[i]);
		poll_cqe(e, 0);
		poll_cqe(e, 1);
	}
	assert_int_equal(srq.limit, 0); /* disarmed */
	/* a QP error does not flush the SRQ's WQEs */
	srq_post(&srq, &db, 4, &r);
	nic_qp_error(&e->qp[1]);
	assert_null(cq_poll(e, 1));
	assert_int_equal(nic_srq_posted(&srq), 1);
	free(srq.buf);
}

int nic_srq_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_srq_linked_list, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_srq_limit_event, env_setup,
						env_teardown),
	};

	return cmocka_run_group_tests_name("srq", tests, NULL, NULL);
}
