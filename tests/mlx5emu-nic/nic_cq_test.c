// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The NIC core, CQ: overflow stalls and arming. */
#include "nic_test.h"

static void test_cq_overflow_stalls(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 5;
	struct post w = inline_write(dst, &v);
	unsigned int i, n = 0;

	e->cq[0].ncqe = 4;
	for (i = 0; i < 6; i++)
		sq_post(e, 0, &w);
	assert_int_equal(run_sq(e), 4);
	assert_true(e->cq[0].stalls == 0); /* checked before executing */
	assert_int_equal(e->qp[0].sq_ci, 4);
	while (cq_poll(e, 0))
		n++;
	assert_int_equal(n, 4);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 2);
}

static void test_arming(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge r = { rbuf->iova, 64, rbuf->lkey };
	uint64_t v = 5;
	struct post w = inline_write(dst, &v);

	e->qp[1].rcq = &e->cq[0]; /* responder CQEs next to requester's */
	/* not armed: no event */
	post_run(e, &w);
	assert_int_equal(e->events, 0);
	/* armed with a CQE already waiting at ci: fires at once, once */
	cq_arm(e, 0, false); /* the very first arm writes 0 */
	assert_true(nic_cq_poll_arm(&e->dev, &e->cq[0]));
	assert_false(nic_cq_poll_arm(&e->dev, &e->cq[0]));
	assert_int_equal(e->events, 1);
	assert_non_null(cq_poll(e, 0));
	/* armed on an empty CQ: fires when a CQE appears */
	cq_arm(e, 0, false);
	assert_false(nic_cq_poll_arm(&e->dev, &e->cq[0]));
	post_run(e, &w);
	assert_int_equal(e->events, 2);
	assert_non_null(cq_poll(e, 0));
	/* solicited only: a plain CQE does not fire, a solicited one does */
	cq_arm(e, 0, true);
	post_run(e, &w);
	assert_int_equal(e->events, 2);
	post_recv(e, 1, &r, 1);
	w.opcode = MLX5_OPCODE_SEND;
	w.solicited = true;
	w.raddr = 0;
	w.rkey = 0;
	post_run(e, &w);
	assert_int_equal(e->events, 3);
}

int nic_cq_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cq_overflow_stalls,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_arming, env_setup,
						env_teardown),
	};

	return cmocka_run_group_tests_name("cq", tests, NULL, NULL);
}
