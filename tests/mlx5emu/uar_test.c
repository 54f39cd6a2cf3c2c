// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UAR attribution on the emulated device, with unpatched libmlx5
 * behaviour: static pages per context, where thread domains' QPs ring
 * (pages from `mlx5emu stat`, slots from mlx5dv's bf.reg), and what the
 * verb that needs one page too many returns.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_test.h"

#define NTD 16

/* an RC QP of depth wr each way, one SGE, cq for both queues; NULL: errno */
static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    uint32_t depth)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = depth,
			 .max_recv_wr = depth,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &qa);
}

static unsigned int static_pages_of_new_context(void)
{
	struct ibv_context *ctx = emu_test_open();
	struct emu_test_stat *st = malloc(sizeof(*st));
	unsigned int n, i;

	assert_non_null(st);
	emu_test_read_stat(st);
	n = emu_test_count_pages(st, st->last_ctx, "static");
	/* and libmlx5 has mapped every one of them */
	for (i = 0; i < st->npages; i++)
		if (st->pages[i].ctx == st->last_ctx)
			assert_int_equal(st->pages[i].mapped, 1);
	free(st);
	assert_int_equal(ibv_close_device(ctx), 0);
	return n;
}

/* the paper's figure: 16 bfregs -> 8 static UAR pages per context */
static void static_pages(void **state)
{
	(void)state;
	if (!emu_test_static_mode()) {
		assert_int_equal(static_pages_of_new_context(), 0);
		return;
	}
	unsetenv("MLX5_TOTAL_UUARS");
	assert_int_equal(static_pages_of_new_context(), 8);
	setenv("MLX5_TOTAL_UUARS", "32", 1);
	assert_int_equal(static_pages_of_new_context(), 16);
	unsetenv("MLX5_TOTAL_UUARS");
}

/*
 * Static mode, QPs without TD: the kernel hands out the 4 dedicated
 * high-class bfregs (12..15 of 16) first, then the least used medium ones
 * (1..11), and libmlx5 rings at 0x800/0xA00 of the bfreg's page.
 */
static void static_bfregs(void **state)
{
	static const int want[] = { 12, 13, 14, 15, 1,	2,  3, 4, 5,
				    6,	7,  8,	9,  10, 11, 1, 2 };
	unsigned int n = sizeof(want) / sizeof(want[0]), i;
	struct emu_test_stat *st = malloc(sizeof(*st));
	struct ibv_context *ctx;
	struct ibv_qp *qp[17];
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	(void)state;
	assert_non_null(st);
	if (!emu_test_static_mode()) {
		free(st);
		skip();
	}
	ctx = emu_test_open();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	assert_non_null(pd);
	assert_non_null(cq);
	for (i = 0; i < n; i++) {
		qp[i] = rc_qp(pd, cq, 16);
		assert_non_null(qp[i]);
	}
	emu_test_read_stat(st);
	for (i = 0; i < n; i++) {
		const struct emu_test_qp *q =
			emu_test_find_qp(st, qp[i]->qp_num);
		struct mlx5dv_qp dvqp = {};
		struct mlx5dv_obj obj = { .qp = { .in = qp[i], .out = &dvqp } };

		assert_non_null(q);
		assert_int_equal(q->bfreg, want[i]);
		assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
		assert_int_equal((uintptr_t)dvqp.bf.reg & 0xfff,
				 want[i] % 2 ? 0xa00 : 0x800);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
	free(st);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

/* past 512 records the attribution file is written by a helper, late */
static void many_qps(void **state)
{
	struct emu_test_stat *st = malloc(sizeof(*st));
	const struct timespec settle = { .tv_nsec = 300000000 };
	enum { N = 600 };
	struct ibv_qp **qp = calloc(N, sizeof(*qp));
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	unsigned int i;

	(void)state;
	assert_non_null(st);
	assert_non_null(qp);
	assert_non_null(cq);
	for (i = 0; i < N; i++) {
		qp[i] = rc_qp(pd, cq, 4);
		assert_non_null(qp[i]);
	}
	nanosleep(&settle, NULL);
	emu_test_read_stat(st);
	for (i = 0; i < N; i++)
		assert_non_null(emu_test_find_qp(st, qp[i]->qp_num));
	for (i = 0; i < N; i++)
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
	nanosleep(&settle, NULL);
	emu_test_read_stat(st);
	assert_int_equal(st->nqps, 0);
	free(qp);
	free(st);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

struct td_set {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_td *td[NTD];
	struct ibv_pd *pad[NTD];
	struct ibv_qp *qp[NTD];
};

static struct ibv_qp *td_qp(struct td_set *s, int i)
{
	struct ibv_parent_domain_init_attr pa = { .pd = s->pd, .td = s->td[i] };

	s->pad[i] = ibv_alloc_parent_domain(s->ctx, &pa);
	assert_non_null(s->pad[i]);
	s->qp[i] = rc_qp(s->pad[i], s->cq, 16);
	assert_non_null(s->qp[i]);
	return s->qp[i];
}

static void td_set_free(struct td_set *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (s->qp[i])
			assert_int_equal(ibv_destroy_qp(s->qp[i]), 0);
		if (s->pad[i])
			assert_int_equal(ibv_dealloc_pd(s->pad[i]), 0);
		assert_int_equal(ibv_dealloc_td(s->td[i]), 0);
	}
	assert_int_equal(ibv_destroy_cq(s->cq), 0);
	assert_int_equal(ibv_dealloc_pd(s->pd), 0);
	assert_int_equal(ibv_close_device(s->ctx), 0);
}

static void td_set_open(struct td_set *s)
{
	memset(s, 0, sizeof(*s));
	s->ctx = emu_test_open();
	s->pd = ibv_alloc_pd(s->ctx);
	assert_non_null(s->pd);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	assert_non_null(s->cq);
}

static uint32_t qp_slot(struct ibv_qp *qp)
{
	struct mlx5dv_qp dvqp = {};
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dvqp } };

	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	return (uintptr_t)dvqp.bf.reg & 0xfff;
}

/*
 * The dynamic-UAR pattern of today's libmlx5 (contract 3.10): the NC page
 * at open, two plain QPs pairing on one BF page, two TDs pairing on the
 * next one.
 */
static void dynamic_pattern(void **state)
{
	struct emu_test_stat *st = malloc(sizeof(*st));
	struct ibv_td_init_attr ta = {};
	const struct emu_test_qp *q[4];
	uint32_t nc = 0;
	struct ibv_qp *qp[2];
	struct td_set s;
	unsigned int i;

	(void)state;
	assert_non_null(st);
	if (emu_test_static_mode()) {
		free(st);
		skip();
	}
	td_set_open(&s);
	for (i = 0; i < 2; i++) {
		qp[i] = rc_qp(s.pd, s.cq, 16);
		assert_non_null(qp[i]);
	}
	for (i = 0; i < 2; i++) {
		s.td[i] = ibv_alloc_td(s.ctx, &ta);
		assert_non_null(s.td[i]);
		td_qp(&s, i);
	}
	emu_test_read_stat(st);
	for (i = 0; i < st->npages; i++)
		if (st->pages[i].ctx == st->last_ctx &&
		    !strcmp(st->pages[i].kind, "nc"))
			nc = st->pages[i].page_id;
	assert_int_not_equal(nc, 0);
	assert_int_equal(emu_test_count_pages(st, st->last_ctx, "bf"), 2);
	q[0] = emu_test_find_qp(st, qp[0]->qp_num);
	q[1] = emu_test_find_qp(st, qp[1]->qp_num);
	q[2] = emu_test_find_qp(st, s.qp[0]->qp_num);
	q[3] = emu_test_find_qp(st, s.qp[1]->qp_num);
	for (i = 0; i < 4; i++)
		assert_non_null(q[i]);
	/* plain QPs: the first BF page, 0x800 then 0xA00 */
	assert_int_equal(q[0]->uar, nc + 1);
	assert_int_equal(q[1]->uar, nc + 1);
	assert_int_equal(qp_slot(qp[0]), 0x800);
	assert_int_equal(qp_slot(qp[1]), 0xa00);
	/* TDs: the next page, paired the same way */
	assert_int_equal(q[2]->uar, nc + 2);
	assert_int_equal(q[3]->uar, nc + 2);
	assert_int_equal(qp_slot(s.qp[0]), 0x800);
	assert_int_equal(qp_slot(s.qp[1]), 0xa00);
	for (i = 0; i < 2; i++)
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
	free(st);
	td_set_free(&s, 2);
}

/* 16 TDs today: 8 UAR pages, two QPs per page at 0x800 and 0xA00 */
static void td_placement(void **state)
{
	struct ibv_td_init_attr ta = {};
	struct emu_test_stat *st = malloc(sizeof(*st));
	uint32_t pages[NTD], slots[NTD];
	unsigned int npages = 0, i, j;
	struct td_set s;

	(void)state;
	assert_non_null(st);
	td_set_open(&s);
	for (i = 0; i < NTD; i++) {
		s.td[i] = ibv_alloc_td(s.ctx, &ta);
		assert_non_null(s.td[i]);
		td_qp(&s, i);
	}
	emu_test_read_stat(st);
	for (i = 0; i < NTD; i++) {
		struct mlx5dv_qp dvqp = {};
		struct mlx5dv_obj obj = { .qp = { .in = s.qp[i],
						  .out = &dvqp } };
		const struct emu_test_qp *q =
			emu_test_find_qp(st, s.qp[i]->qp_num);

		assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
		slots[i] = (uintptr_t)dvqp.bf.reg & 0xfff;
		assert_true(slots[i] == 0x800 || slots[i] == 0xa00);
		assert_non_null(q);
		pages[i] = q->uar;
		/* a TD's page is never a static one */
		for (j = 0; j < st->npages; j++)
			if (st->pages[j].page_id == q->page_id)
				assert_string_not_equal(st->pages[j].kind,
							"static");
	}
	for (i = 0; i < NTD; i++) {
		unsigned int same = 0, other = NTD;

		for (j = 0; j < NTD; j++) {
			if (pages[j] != pages[i])
				continue;
			same++;
			if (j != i)
				other = j;
		}
		assert_int_equal(same, 2);
		assert_int_not_equal(slots[i], slots[other]);
		for (j = 0; j < i && pages[j] != pages[i]; j++)
			;
		if (j == i)
			npages++;
	}
	assert_int_equal(npages, 8);
	print_message("%u TDs' QPs on %u UAR pages, 2 per page (0x800/0xa00)\n",
		      NTD, npages);
	free(st);
	td_set_free(&s, NTD);
}

/*
 * --uar-limit=N: TDs take pages until the context holds N UARs; the TD
 * that needs one more fails as the kernel fails it, and a new context
 * works again once the old one is closed.
 */
static void uar_limit(void **state)
{
	unsigned int limit = emu_test_env_uint("MLX5EMU_UAR_LIMIT", 0);
	unsigned int dyn_bfregs = emu_test_env_uint("MLX5EMU_DYN_BFREGS", 1024);
	bool is_static = emu_test_static_mode();
	/* pages every context holds before the first TD */
	unsigned int base = is_static ? 8 : 1;
	unsigned int tds_ok, expect_errno, i, round;
	const char *kernel_answer;
	struct emu_test_stat *st = malloc(sizeof(*st));
	struct ibv_td_init_attr ta = {};
	struct ibv_td *extra;
	struct td_set s;

	(void)state;
	assert_non_null(st);
	if (!limit && (!is_static || dyn_bfregs >= 1024)) {
		free(st);
		skip();
	}
	if (limit) {
		assert_true(limit > base && (limit - base) * 2 <= NTD);
		tds_ok = (limit - base) * 2;
		/* firmware "limits exceeded" -> ENOMEM, from mmap (static)
		 * or from the UAR_OBJ_ALLOC ioctl (dynamic) */
		expect_errno = ENOMEM;
		kernel_answer = is_static ? "mmap_alloc_wc:ENOMEM" :
					    "uar_obj_alloc:ENOMEM";
	} else {
		/* ALLOC_WC index past num_dyn_bfregs: the kernel's EINVAL */
		tds_ok = dyn_bfregs;
		expect_errno = EINVAL;
		kernel_answer = "mmap_alloc_wc:EINVAL";
	}
	for (round = 0; round < 2; round++) {
		td_set_open(&s);
		for (i = 0; i < tds_ok; i++) {
			s.td[i] = ibv_alloc_td(s.ctx, &ta);
			assert_non_null(s.td[i]);
			td_qp(&s, i);
		}
		errno = 0;
		extra = ibv_alloc_td(s.ctx, &ta);
		assert_null(extra);
		i = errno;
		emu_test_read_stat(st);
		print_message(
			"round %u: TD %u fails with %s; kernel refused %u (%s)\n",
			round, tds_ok + 1, strerror(i), st->refused,
			st->last_refused);
		if (st->refused) {
			/* the emulated kernel answered as mlx5_ib does;
			 * the fork's libmlx5 reports any of it as ENOMEM */
			assert_string_equal(st->last_refused, kernel_answer);
			assert_true(i == expect_errno || i == ENOMEM);
		} else {
			/* a libmlx5 that knows the bound never asks */
			assert_int_equal(limit, 0);
			assert_int_equal(i, ENOMEM);
		}
		/* the device recovers when the context goes away */
		td_set_free(&s, tds_ok);
	}
	free(st);
}

/*
 * The other rows of the README's table: in static mode a limit below the
 * static pages fails ibv_open_device; in dynamic mode plain QPs need BF
 * UAR objects too, two QPs per page.
 */
static void uar_limit_open_qp(void **state)
{
	unsigned int limit = emu_test_env_uint("MLX5EMU_UAR_LIMIT", 0);
	struct emu_test_stat *st;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_qp *qp[3];
	struct td_set s;
	unsigned int i;

	(void)state;
	if (!limit)
		skip();
	if (emu_test_static_mode()) {
		assert_true(limit < 8);
		list = ibv_get_device_list(NULL);
		assert_non_null(list);
		errno = 0;
		ctx = ibv_open_device(list[0]);
		assert_null(ctx);
		assert_int_equal(errno, ENOMEM);
		ibv_free_device_list(list);
		return;
	}
	/* NC page + one BF page: the third plain QP needs a second one */
	assert_int_equal(limit, 2);
	st = malloc(sizeof(*st));
	assert_non_null(st);
	td_set_open(&s);
	for (i = 0; i < 2; i++) {
		qp[i] = rc_qp(s.pd, s.cq, 16);
		assert_non_null(qp[i]);
	}
	qp[2] = rc_qp(s.pd, s.cq, 16);
	assert_null(qp[2]);
	assert_int_equal(errno, ENOMEM);
	emu_test_read_stat(st);
	assert_string_equal(st->last_refused, "uar_obj_alloc:ENOMEM");
	for (i = 0; i < 2; i++)
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
	free(st);
	td_set_free(&s, 0);
}

/*
 * --device-uars=N: the function runs out of UARs for everybody. A second
 * context cannot even get its first pages until the first one is closed.
 */
static void device_uars(void **state)
{
	unsigned int total = emu_test_env_uint("MLX5EMU_DEVICE_UARS", 0);
	bool is_static = emu_test_static_mode();
	unsigned int base = is_static ? 8 : 1, tds, i;
	struct ibv_td_init_attr ta = {};
	struct ibv_device **list;
	struct ibv_context *other;
	struct ibv_td *extra;
	struct td_set s;

	(void)state;
	if (!total)
		skip();
	assert_true(total > base && (total - base) * 2 <= NTD);
	tds = (total - base) * 2;
	td_set_open(&s);
	for (i = 0; i < tds; i++) {
		s.td[i] = ibv_alloc_td(s.ctx, &ta);
		assert_non_null(s.td[i]);
	}
	extra = ibv_alloc_td(s.ctx, &ta);
	assert_null(extra);
	assert_int_equal(errno, ENOMEM);

	list = ibv_get_device_list(NULL);
	assert_non_null(list);
	errno = 0;
	other = ibv_open_device(list[0]);
	if (other) {
		/* unpatched libmlx5 in dynamic mode opens without its doorbell
		 * page (ibv_req_notify_cq would fault); the fork refuses */
		assert_false(is_static);
		print_message("second context opened without a doorbell UAR\n");
		assert_int_equal(ibv_close_device(other), 0);
	} else {
		print_message("second context: %s\n", strerror(errno));
		assert_int_equal(errno, ENOMEM);
	}
	for (i = 0; i < tds; i++)
		assert_int_equal(ibv_dealloc_td(s.td[i]), 0);
	td_set_free(&s, 0);

	/* the device recovered: a new context gets every page again */
	td_set_open(&s);
	for (i = 0; i < tds; i++) {
		s.td[i] = ibv_alloc_td(s.ctx, &ta);
		assert_non_null(s.td[i]);
	}
	for (i = 0; i < tds; i++)
		assert_int_equal(ibv_dealloc_td(s.td[i]), 0);
	td_set_free(&s, 0);
	ibv_free_device_list(list);
}

int main(int argc, char **argv)
{
	/* the fork's default sharing level is today's; keep it so */
	unsetenv("MLX5_UAR_SHARING");
	/* HW UAR indices are device-wide across a fabric: use one of our
	 * own so that concurrent runs do not take the pages we count */
	if (!getenv("MLX5EMU_FABRIC")) {
		char name[64];

		snprintf(name, sizeof(name), "uar-test.%d", getpid());
		setenv("MLX5EMU_FABRIC", name, 1);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(static_pages),
		cmocka_unit_test(static_bfregs),
		cmocka_unit_test(many_qps),
		cmocka_unit_test(dynamic_pattern),
		cmocka_unit_test(td_placement),
		cmocka_unit_test(uar_limit),
		cmocka_unit_test(device_uars),
		cmocka_unit_test(uar_limit_open_qp),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
