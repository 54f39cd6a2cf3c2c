// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_resize_cq through libmlx5 on the emulated device: no completion is
 * lost or reordered across a resize, whether the NIC wrote it before or
 * after; a ring too small for the unpolled CQEs is refused with EINVAL and
 * leaves the CQ as it was; an armed CQ raises no event for the resize.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_test.h"
#include "rc_loop.h"

#define DEPTH 64
#define SLOT 64 /* bytes of the target buffer per write */

struct env {
	struct ibv_context *ctx;
	struct ibv_comp_channel *channel;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t next_id; /* wr_id of the next write */
	uint64_t polled; /* wr_id the next completion must carry */
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	e->ctx = emu_test_open();
	e->channel = ibv_create_comp_channel(e->ctx);
	e->pd = ibv_alloc_pd(e->ctx);
	/* 3 asked for: a ring of 4 */
	e->cq = ibv_create_cq(e->ctx, 3, NULL, e->channel, 0);
	assert_non_null(e->cq);
	e->buf = calloc(DEPTH, SLOT);
	e->mr = ibv_reg_mr(e->pd, e->buf, DEPTH * SLOT,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(e->mr);
	e->a = rc_loop_create_qp(e->pd, e->cq, DEPTH);
	e->b = rc_loop_create_qp(e->pd, e->cq, DEPTH);
	assert_non_null(e->a);
	assert_non_null(e->b);
	rc_loop_connect(e->a, e->b);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	assert_int_equal(ibv_destroy_qp(e->a), 0);
	assert_int_equal(ibv_destroy_qp(e->b), 0);
	assert_int_equal(ibv_dereg_mr(e->mr), 0);
	assert_int_equal(ibv_destroy_cq(e->cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(e->channel), 0);
	assert_int_equal(ibv_dealloc_pd(e->pd), 0);
	assert_int_equal(ibv_close_device(e->ctx), 0);
	free(e->buf);
	free(e);
	return 0;
}

/* n signaled 8-byte inline writes from a into the buffer, wr_id in order */
static void post_writes(struct env *e, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t id = e->next_id++;
		struct ibv_sge sge = { (uintptr_t)&id, sizeof(id), 0 };
		struct ibv_send_wr wr = {
			.wr_id = id,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
			.wr.rdma = { (uintptr_t)e->buf + (id % DEPTH) * SLOT,
				     e->mr->rkey },
		}, *bad;

		assert_int_equal(ibv_post_send(e->a, &wr, &bad), 0);
	}
}

/* n completions, in the order posted, each for its own data */
static void poll_writes(struct env *e, unsigned int n)
{
	unsigned long spins = 0;
	struct ibv_wc wc;

	while (n) {
		int got = ibv_poll_cq(e->cq, 1, &wc);

		assert_true(got >= 0);
		if (!got) {
			assert_true(++spins < 200000000UL);
			continue;
		}
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.opcode, IBV_WC_RDMA_WRITE);
		assert_int_equal(wc.wr_id, e->polled);
		assert_memory_equal(e->buf + (e->polled % DEPTH) * SLOT,
				    &e->polled, sizeof(e->polled));
		e->polled++;
		n--;
	}
}

/* until the NIC has written the CQE of ring index idx (nothing consumed) */
static void wait_for_cqe(struct env *e, uint32_t idx)
{
	struct mlx5dv_cq dv = {};
	struct mlx5dv_obj obj = { .cq = { .in = e->cq, .out = &dv } };
	struct timespec pause = { .tv_nsec = 100000 };
	volatile struct mlx5_cqe64 *cqe;
	unsigned int tries;

	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	cqe = (void *)((uint8_t *)dv.buf +
		       (idx & (dv.cqe_cnt - 1)) * dv.cqe_size + dv.cqe_size -
		       64);
	for (tries = 0; tries < 100000; tries++) {
		uint8_t op_own = cqe->op_own;

		if (op_own >> 4 != MLX5_CQE_INVALID &&
		    (op_own & MLX5_CQE_OWNER_MASK) == !!(idx & dv.cqe_cnt))
			return;
		nanosleep(&pause, NULL);
	}
	fail_msg("CQE %u never written", idx);
}

/* CQEs written before and after growing come out whole and in order */
static void grow_with_unpolled(void **state)
{
	struct env *e = *state;

	assert_int_equal(e->cq->cqe, 3);
	post_writes(e, 3);
	wait_for_cqe(e, 1);
	assert_int_equal(ibv_resize_cq(e->cq, 40), 0);
	assert_true(e->cq->cqe >= 40);
	post_writes(e, 30);
	poll_writes(e, 33);
	/* and the ring goes round more than once */
	post_writes(e, 40);
	poll_writes(e, 40);
	post_writes(e, 40);
	poll_writes(e, 40);
}

/* too small for what is not polled: EINVAL, and nothing changes */
static void shrink_below_unpolled(void **state)
{
	struct env *e = *state;

	assert_int_equal(ibv_resize_cq(e->cq, 15), 0);
	assert_int_equal(e->cq->cqe, 15);
	post_writes(e, 8);
	wait_for_cqe(e, 7);
	assert_int_equal(ibv_resize_cq(e->cq, 3), EINVAL);
	assert_int_equal(e->cq->cqe, 15);
	poll_writes(e, 8);
	/* once polled, the same shrink is fine */
	assert_int_equal(ibv_resize_cq(e->cq, 3), 0);
	assert_int_equal(e->cq->cqe, 3);
	post_writes(e, 3);
	poll_writes(e, 3);
	post_writes(e, 3);
	poll_writes(e, 3);
}

/* an armed CQ fires for the next completion, not for the resize */
static void armed_across_resize(void **state)
{
	struct env *e = *state;
	struct pollfd pfd = { .fd = e->channel->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	post_writes(e, 2);
	poll_writes(e, 2);
	assert_int_equal(ibv_req_notify_cq(e->cq, 0), 0);
	assert_int_equal(ibv_resize_cq(e->cq, 31), 0);
	assert_int_equal(poll(&pfd, 1, 100), 0);
	post_writes(e, 1);
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	assert_int_equal(ibv_get_cq_event(e->channel, &ev_cq, &ev_ctx), 0);
	assert_ptr_equal(ev_cq, e->cq);
	ibv_ack_cq_events(e->cq, 1);
	poll_writes(e, 1);
}

static void bad_sizes(void **state)
{
	struct env *e = *state;
	struct ibv_device_attr da;

	assert_int_equal(ibv_query_device(e->ctx, &da), 0);
	assert_int_equal(ibv_resize_cq(e->cq, da.max_cqe + 1), EINVAL);
	assert_int_equal(ibv_resize_cq(e->cq, -1), EINVAL);
	assert_int_equal(e->cq->cqe, 3);
	post_writes(e, 3);
	poll_writes(e, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(grow_with_unpolled, setup,
						teardown),
		cmocka_unit_test_setup_teardown(shrink_below_unpolled, setup,
						teardown),
		cmocka_unit_test_setup_teardown(armed_across_resize, setup,
						teardown),
		cmocka_unit_test_setup_teardown(bad_sizes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
