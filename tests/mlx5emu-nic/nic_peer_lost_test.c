// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The NIC core, a peer process that goes away: as on an HCA, nothing
 * fails at once; what was answered stands, the rest is sent again after
 * the ACK timeout and fails with RETRY_EXC_ERR once the retries are used.
 */
#include "nic_test.h"

#define SPINS_MAX 100000000u

/* QP 0 talks to a peer in another process; returns a WRITE of *v to it */
static struct post peer_setup(struct env *e, uint8_t retry_cnt,
			      const uint64_t *v)
{
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);

	e->dev.ops = &t_ops_remote;
	memset(&remote_peer, 0, sizeof(remote_peer));
	remote_peer.on = true;
	e->qp[0].req_psn = 100;
	e->qp[0].retry_cnt = retry_cnt;
	return inline_write(dst, v);
}

/* run the requester until the QP leaves RTS */
static void run_until_error(struct env *e)
{
	unsigned int spins = 0;

	while (e->qp[0].state == NIC_QPS_RTS && ++spins < SPINS_MAX)
		nic_sq_process(&e->qp[0], 64);
	assert_int_not_equal(e->qp[0].state, NIC_QPS_RTS);
}

/*
 * The peer answers the first WRITE and closes: that answer stands, the
 * second WRITE is not failed at once but sent again after the ACK
 * timeout, and fails only when its retry went unanswered too.
 */
static void test_answered_then_closed(void **state)
{
	struct env *e = *state;
	uint64_t v = 9;
	struct post w = peer_setup(e, 1, &v);
	struct mlx5_cqe64 *cqe;

	sq_post(e, 0, &w);
	post_run(e, &w);
	assert_int_equal(remote_peer.n, 2);
	nic_req_answer(&e->qp[0], remote_peer.epoch[0], 100, NIC_ACK, NULL, 0);
	nic_req_lost(&e->qp[0]);
	/* the answer read before the close completes the first */
	nic_sq_process(&e->qp[0], 64);
	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), 0);
	/* the second waits for its ACK timer: no error yet */
	assert_null(cq_poll(e, 0));
	assert_int_equal(e->qp[0].state, NIC_QPS_RTS);
	assert_true(e->qp[0].peer_lost);
	run_until_error(e);
	/* sent once more, in a new epoch, before it failed */
	assert_int_equal(remote_peer.n, 3);
	assert_int_equal(remote_peer.psn[2], 101);
	assert_int_not_equal(remote_peer.epoch[2], remote_peer.epoch[1]);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, 1);
	remote_peer.on = false;
}

/*
 * Nobody holds the peer's slot (its connect is refused): each try is a
 * lost packet and holds the requester until the ACK timer; the oldest
 * fails after retry_cnt + 1 tries, what follows it is flushed unsent.
 */
static void test_unreachable_peer(void **state)
{
	struct env *e = *state;
	uint64_t v = 9;
	struct post w = peer_setup(e, 2, &v);

	remote_peer.unreachable = true;
	sq_post(e, 0, &w);
	post_run(e, &w);
	/* the first went nowhere: the second is held back, nothing failed */
	assert_int_equal(remote_peer.n, 1);
	assert_true(e->qp[0].peer_lost);
	assert_null(cq_poll(e, 0));
	nic_sq_process(&e->qp[0], 64);
	assert_int_equal(remote_peer.n, 1);
	run_until_error(e);
	assert_int_equal(remote_peer.n, 3);
	assert_int_equal(remote_peer.psn[2], 100);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, 0);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 1);
	remote_peer.on = false;
}

/* timeout 0 is "forever" on an HCA: a lost peer still gets a bound */
static void test_lost_peer_timeout_zero(void **state)
{
	struct env *e = *state;
	uint64_t v = 9;
	struct post w = peer_setup(e, 0, &v);

	e->qp[0].timeout = 0;
	post_run(e, &w);
	nic_req_lost(&e->qp[0]);
	nic_sq_process(&e->qp[0], 64);
	assert_null(cq_poll(e, 0));
	assert_true(e->qp[0].ack_due != 0);
	remote_peer.on = false;
}

int nic_peer_lost_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_answered_then_closed,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_unreachable_peer,
						env_setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_lost_peer_timeout_zero,
						env_setup, env_teardown),
	};

	return cmocka_run_group_tests_name("peer_lost", tests, NULL, NULL);
}
