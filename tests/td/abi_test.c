// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The sharing attribute across library versions, both ways round:
 *
 *  - built against unpatched 65.0 headers (OLD_HEADERS), the program runs
 *    unchanged on the patched libraries: its TDs get the default placement
 *    (two per UAR) and move data;
 *  - built against the patched headers and run on an unpatched library, a
 *    request for a sharing level, or for the fallback of
 *    IBV_TD_INIT_ATTR_MAX_SHARING, fails with EINVAL (nothing written
 *    back), and
 *    ibv_query_device_ex() reports no levels (td_sharing_caps 0).
 *
 *   abi_test old-app-on-new-library | new-app-on-old-library
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_test.h"

#ifdef OLD_HEADERS
#include "rc_loop.h"

static uintptr_t qp_bf_reg(struct ibv_qp *qp)
{
	struct mlx5dv_qp dv = {};
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dv } };

	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	return (uintptr_t)dv.bf.reg;
}

/* A TD's QP writes into a target QP; returns the BlueFlame register used. */
static uintptr_t td_write(struct ibv_pd *pd, struct ibv_td *td)
{
	static char src[64] = "written over a thread domain", dst[64];
	struct ibv_parent_domain_init_attr pattr = { .pd = pd, .td = td };
	struct ibv_context *ctx = pd->context;
	struct ibv_pd *parent = ibv_alloc_parent_domain(ctx, &pattr);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_cq *tcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = rc_loop_create_qp(parent, cq, 16);
	struct ibv_qp *target = rc_loop_create_qp(pd, tcq, 16);
	struct ibv_mr *mr = ibv_reg_mr(pd, dst, sizeof(dst),
				       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = sizeof(src) };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.wr.rdma = { .remote_addr = (uintptr_t)dst, .rkey = mr->rkey },
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	uintptr_t reg;

	assert_non_null(qp);
	assert_non_null(target);
	rc_loop_connect(qp, target);
	memset(dst, 0, sizeof(dst));
	assert_int_equal(ibv_post_send(qp, &wr, &bad), 0);
	while (!ibv_poll_cq(cq, 1, &wc))
		;
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(dst, src, sizeof(src));
	reg = qp_bf_reg(qp);

	assert_int_equal(ibv_destroy_qp(target), 0);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(ibv_destroy_cq(tcq), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(parent), 0);
	return reg;
}

static void old_app_on_new_library(void **state)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_td_init_attr attr = {}; /* the 65.0 layout: comp_mask only */
	struct ibv_td *a, *b;
	uintptr_t ra, rb;

	(void)state;
	assert_int_equal(sizeof(attr), sizeof(uint32_t));
	a = ibv_alloc_td(ctx, &attr);
	b = ibv_alloc_td(ctx, &attr);
	assert_non_null(a);
	assert_non_null(b);
	ra = td_write(pd, a);
	rb = td_write(pd, b);
	/* today's placement: a pair on one UAR, at 0x800 and 0xA00 */
	assert_int_equal(ra & ~0xfffUL, rb & ~0xfffUL);
	assert_int_equal((ra & 0xfff) ^ (rb & 0xfff), 0x800 ^ 0xa00);
	assert_int_equal(ibv_dealloc_td(a), 0);
	assert_int_equal(ibv_dealloc_td(b), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}
#else
static void new_app_on_old_library(void **state)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_td_init_attr attr = {
		.comp_mask = IBV_TD_INIT_ATTR_SHARING,
		.sharing = IBV_TD_SHARING_NONE,
	};
	struct ibv_device_attr_ex attr_ex;

	(void)state;
	errno = 0;
	assert_null(ibv_alloc_td(ctx, &attr));
	assert_int_equal(errno, EINVAL);

	/* the fallback too, and nothing is written back */
	attr.comp_mask =
		IBV_TD_INIT_ATTR_SHARING | IBV_TD_INIT_ATTR_MAX_SHARING;
	attr.max_sharing = IBV_TD_SHARING_REGISTER;
	errno = 0;
	assert_null(ibv_alloc_td(ctx, &attr));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(attr.sharing, IBV_TD_SHARING_NONE);
	attr.comp_mask = IBV_TD_INIT_ATTR_MAX_SHARING;
	assert_null(ibv_alloc_td(ctx, &attr));
	assert_int_equal(errno, EINVAL);

	/* an unpatched library reports no levels: the field stays 0 */
	memset(&attr_ex, 0xff, sizeof(attr_ex));
	assert_int_equal(ibv_query_device_ex(ctx, NULL, &attr_ex), 0);
	assert_int_equal(attr_ex.td_sharing_caps, 0);

	/* and the plain request still works */
	attr.comp_mask = 0;
	assert_int_equal(ibv_dealloc_td(ibv_alloc_td(ctx, &attr)), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
#ifdef OLD_HEADERS
		cmocka_unit_test(old_app_on_new_library),
#else
		cmocka_unit_test(new_app_on_old_library),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
