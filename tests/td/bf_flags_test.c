// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MLX5DV_QP_BF_NEED_LOCK (mlx5dv_init_obj with MLX5DV_QP_MASK_BF_FLAGS)
 * reports libmlx5's lock policy for a QP's BlueFlame register: set where
 * libmlx5 serializes its writes with a lock (level-3 thread domains, plain
 * QPs on a shared register), clear where it writes without one (level-1
 * and level-2 thread domains, and everything under MLX5_SINGLE_THREADED,
 * level 3 too).
 *
 *   bf_flags_test default|single-threaded
 *
 * single-threaded: the test runs with MLX5_SINGLE_THREADED=1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_test.h"
#include "rc_loop.h"
#include "td_ep.h"

/* more than the registers plain QPs get before they share (16) */
#define NQPS 24

static bool single_threaded;

struct bf_info {
	uintptr_t reg;
	uint32_t size;
	bool need_lock;
};

static struct bf_info qp_bf(struct ibv_qp *qp)
{
	struct mlx5dv_qp dv = { .comp_mask = MLX5DV_QP_MASK_BF_FLAGS };
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dv } };
	struct bf_info bf;

	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	assert_true(dv.comp_mask & MLX5DV_QP_MASK_BF_FLAGS);
	bf.reg = (uintptr_t)dv.bf.reg;
	bf.size = dv.bf.size;
	bf.need_lock = dv.bf_flags & MLX5DV_QP_BF_NEED_LOCK;
	return bf;
}

/* a QP of a TD of this level: the flag is the lock libmlx5 takes */
static void check_level(struct ibv_context *ctx, uint32_t level, bool need_lock)
{
	struct ibv_parent_domain_init_attr pa = {};
	struct ibv_td *td = td_alloc(ctx, level);
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *parent;
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp;
	struct bf_info bf;

	assert_non_null(td);
	assert_non_null(pd);
	assert_non_null(cq);
	pa.pd = pd;
	pa.td = td;
	parent = ibv_alloc_parent_domain(ctx, &pa);
	assert_non_null(parent);
	qp = rc_loop_create_qp(parent, cq, 16);
	assert_non_null(qp);
	bf = qp_bf(qp);
	assert_true(bf.size > 0);
	if (bf.need_lock != need_lock)
		fail_msg("level %u: NEED_LOCK %d, expected %d", level,
			 bf.need_lock, need_lock);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(parent), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_dealloc_td(td), 0);
}

static void test_td_levels(void **state)
{
	struct ibv_context *ctx = *state;

	check_level(ctx, IBV_TD_SHARING_NONE, false);
	check_level(ctx, IBV_TD_SHARING_PAGE, false);
	/* the shared register's lock, unless MLX5_SINGLE_THREADED drops it */
	check_level(ctx, IBV_TD_SHARING_REGISTER, !single_threaded);
}

/* plain QPs: two on one register take its lock, unless single-threaded */
static void test_plain_qps(void **state)
{
	struct ibv_context *ctx = *state;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp[NQPS];
	struct bf_info bf[NQPS];
	unsigned int i, j, shared = 0;

	assert_non_null(pd);
	assert_non_null(cq);
	for (i = 0; i < NQPS; i++) {
		qp[i] = rc_loop_create_qp(pd, cq, 16);
		assert_non_null(qp[i]);
		bf[i] = qp_bf(qp[i]);
	}
	for (i = 0; i < NQPS; i++) {
		if (single_threaded && bf[i].need_lock)
			fail_msg("QP %u: NEED_LOCK under MLX5_SINGLE_THREADED",
				 i);
		for (j = i + 1; j < NQPS; j++) {
			if (bf[i].reg != bf[j].reg || !bf[i].size)
				continue;
			shared++;
			if (!single_threaded &&
			    !(bf[i].need_lock && bf[j].need_lock))
				fail_msg(
					"QPs %u and %u share a register without NEED_LOCK",
					i, j);
		}
	}
	assert_true(shared > 0);
	for (i = 0; i < NQPS; i++)
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
}

static int open_ctx(void **state)
{
	*state = emu_test_open();
	return *state ? 0 : -1;
}

static int close_ctx(void **state)
{
	return ibv_close_device(*state);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_td_levels),
		cmocka_unit_test(test_plain_qps),
	};

	if (argc != 2 || (strcmp(argv[1], "default") &&
			  strcmp(argv[1], "single-threaded"))) {
		fprintf(stderr,
			"usage: bf_flags_test default|single-threaded\n");
		return 2;
	}
	single_threaded = !strcmp(argv[1], "single-threaded");
	return cmocka_run_group_tests(tests, open_ctx, close_ctx);
}
