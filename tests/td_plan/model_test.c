// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_td_plan's model against what libmlx5 with the series does, counted by
 * hand from providers/mlx5/verbs.c (mlx5_attach_dedicated_uar() and the
 * lists behind it) and measured on mlx5emu (tests/td_plan/emu_test.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "plan_model.h"

/* a dynamic-mode context of mlx5emu's defaults: the doorbell UAR at open */
static struct plan_device dynamic_dev(long long context_uars)
{
	return (struct plan_device){
		.mode = PLAN_UAR_DYNAMIC,
		.uars_per_page = 1,
		.open_uars = 1,
		.blueflame = true,
		.sharing_caps = 0xf,
		.legacy_pages = PLAN_UNKNOWN,
		.context_uars = context_uars,
		.device_uars = PLAN_UNKNOWN,
	};
}

/* static mode: MLX5_TOTAL_UUARS=16 maps 8 pages, 1024 dynamic bfregs */
static struct plan_device static_dev(long long context_uars)
{
	struct plan_device d = dynamic_dev(context_uars);

	d.mode = PLAN_UAR_STATIC;
	d.open_uars = 8;
	d.legacy_pages = 512;
	return d;
}

static const struct plan_job one_rank_16 = { .ranks = 1,
					     .threads = 16,
					     .contexts = 1,
					     .devx_uars = 0 };

static void test_context_uars_per_level(void **state)
{
	struct plan_device d = dynamic_dev(PLAN_UNKNOWN);

	(void)state;
	assert_int_equal(plan_context_uars(&d, 1, 16, 0), 17);
	assert_int_equal(plan_context_uars(&d, 2, 16, 0), 9);
	assert_int_equal(plan_context_uars(&d, 2, 15, 0), 9);
	assert_int_equal(plan_context_uars(&d, 3, 16, 0), 2);
	assert_int_equal(plan_context_uars(&d, 3, 0, 0), 1);
	/* DEVX UARs pair with each other and with level-2 TDs */
	assert_int_equal(plan_context_uars(&d, 1, 4, 3), 1 + 4 + 2);
	assert_int_equal(plan_context_uars(&d, 2, 3, 1), 1 + 2);
	assert_int_equal(plan_context_uars(&d, 3, 8, 2), 1 + 1 + 1);
}

/* the measurements: --uar-limit=12 and 8 */
static void test_capacity_uar_limit(void **state)
{
	struct plan_device d = dynamic_dev(12);
	struct plan_result r;

	(void)state;
	assert_int_equal(
		plan_compute(&d, &one_rank_16, PLAN_LADDER_RESERVE, &r), 0);
	assert_int_equal(r.context_budget, 11);
	assert_int_equal(r.level[1].context_capacity, 11);
	assert_int_equal(r.level[1].context_fit, PLAN_FIT_NO);
	assert_int_equal(r.level[2].context_capacity, 22);
	assert_int_equal(r.level[2].context_fit, PLAN_FIT_YES);
	assert_int_equal(r.level[3].context_capacity, PLAN_UNBOUNDED);

	d = dynamic_dev(8);
	plan_compute(&d, &one_rank_16, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[2].context_capacity, 14);
	assert_int_equal(r.level[2].context_fit, PLAN_FIT_NO);
	assert_int_equal(r.level[3].context_fit, PLAN_FIT_YES);
}

static void test_unknown_stays_unknown(void **state)
{
	struct plan_device d = dynamic_dev(PLAN_UNKNOWN);
	struct plan_result r;

	(void)state;
	plan_compute(&d, &one_rank_16, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.context_budget, PLAN_UNKNOWN);
	assert_int_equal(r.level[1].context_capacity, PLAN_UNKNOWN);
	assert_int_equal(r.level[1].context_fit, PLAN_FIT_UNKNOWN);
	assert_int_equal(r.level[1].node_fit, PLAN_FIT_UNKNOWN);
	assert_false(r.fallback.known);
	assert_int_equal(r.best_split_l1, PLAN_UNKNOWN);
}

/* a mapping of 4 UARs: the context allocates them 4 at a time */
static void test_uars_per_page(void **state)
{
	struct plan_device d = dynamic_dev(12);

	(void)state;
	d.uars_per_page = 4;
	d.open_uars = 4;
	assert_int_equal(plan_context_uars(&d, 1, 5, 0), 4 + 8);
	assert_int_equal(plan_context_uars(&d, 2, 5, 0), 4 + 4);
	assert_int_equal(plan_context_budget(&d, &one_rank_16), 8);
	assert_int_equal(plan_capacity(&d, 1, 0, 8), 8);
	assert_int_equal(plan_capacity(&d, 2, 0, 8), 16);
	/* 13 UARs leave 9 after open, 8 of them in whole mappings */
	d.context_uars = 13;
	assert_int_equal(plan_context_budget(&d, &one_rank_16), 8);
}

static void test_static_mode(void **state)
{
	struct plan_device d = static_dev(PLAN_UNKNOWN);
	struct plan_result r;

	(void)state;
	plan_compute(&d, &one_rank_16, PLAN_LADDER_RESERVE, &r);
	/* the dynamic range bounds a context even when nothing else does */
	assert_int_equal(r.context_budget, 512);
	assert_int_equal(r.level[1].context_capacity, 512);
	assert_int_equal(r.level[1].context_uars, 8 + 16);
	assert_int_equal(r.level[2].context_uars, 8 + 8);

	d = static_dev(12);
	plan_compute(&d, &one_rank_16, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].context_capacity, 4);
	assert_int_equal(r.level[2].context_capacity, 8);

	/* no dynamic range: the legacy interface gives TDs nothing */
	d = static_dev(PLAN_UNKNOWN);
	d.legacy_pages = 0;
	d.sharing_caps = 0;
	assert_false(plan_level_supported(&d, 1));
	assert_false(plan_level_supported(&d, 2));
}

static void test_fallback_ladders(void **state)
{
	struct plan_device d = dynamic_dev(12);
	struct plan_mix m;

	(void)state;
	/* the last UAR becomes the level-3 pool */
	m = plan_fallback(&d, 16, 0, 11, PLAN_LADDER_RESERVE);
	assert_true(m.known);
	assert_int_equal(m.level[1], 10);
	assert_int_equal(m.level[2], 0);
	assert_int_equal(m.level[3], 6);
	assert_int_equal(m.failed, 0);
	/* taken literally, level 1 leaves nothing for 2 and 3 */
	m = plan_fallback(&d, 16, 0, 11, PLAN_LADDER_LITERAL);
	assert_int_equal(m.level[1], 11);
	assert_int_equal(m.level[3], 0);
	assert_int_equal(m.failed, 5);
	/* in budget, everyone gets level 1 with either ladder */
	m = plan_fallback(&d, 16, 0, 40, PLAN_LADDER_RESERVE);
	assert_int_equal(m.level[1], 16);
	/* an odd DEVX UAR leaves half a UAR for a level-2 TD */
	m = plan_fallback(&d, 4, 1, 3, PLAN_LADDER_RESERVE);
	assert_int_equal(m.level[1], 1);
	assert_int_equal(m.level[2], 1);
	assert_int_equal(m.level[3], 2);
	/* no UAR at all: ENOMEM for everyone */
	m = plan_fallback(&d, 3, 0, 0, PLAN_LADDER_RESERVE);
	assert_int_equal(m.failed, 3);
}

/* a device without level 1 falls back at once */
static void test_fallback_without_level1(void **state)
{
	struct plan_device d = dynamic_dev(12);
	struct plan_mix m;

	(void)state;
	d.sharing_caps = 1 << 0 | 1 << 2 | 1 << 3;
	assert_int_equal(plan_capacity(&d, 1, 0, 11), 0);
	m = plan_fallback(&d, 16, 0, 11, PLAN_LADDER_RESERVE);
	assert_int_equal(m.level[1], 0);
	assert_int_equal(m.level[2], 16);
}

/* without BlueFlame levels 2 and 3 ring the doorbell UAR of the context */
static void test_no_blueflame(void **state)
{
	struct plan_device d = dynamic_dev(12);
	struct plan_mix m;

	(void)state;
	d.blueflame = false;
	assert_int_equal(plan_context_uars(&d, 1, 16, 0), 17);
	assert_int_equal(plan_context_uars(&d, 2, 16, 0), 1);
	assert_int_equal(plan_context_uars(&d, 3, 16, 0), 1);
	assert_int_equal(plan_capacity(&d, 2, 0, 11), PLAN_UNBOUNDED);
	m = plan_fallback(&d, 16, 0, 11, PLAN_LADDER_RESERVE);
	assert_int_equal(m.level[1], 11);
	assert_int_equal(m.level[2], 5);
}

static void test_device_share(void **state)
{
	struct plan_device d = dynamic_dev(PLAN_UNKNOWN);
	struct plan_job job = one_rank_16;
	struct plan_result r;

	(void)state;
	d.device_uars = 100;
	job.ranks = 4;
	/* (100 - 4 doorbell UARs) / 4 contexts */
	assert_int_equal(plan_context_budget(&d, &job), 24);
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].node_uars, 4 * 17);
	assert_int_equal(r.level[1].node_fit, PLAN_FIT_YES);
	assert_int_equal(r.level[1].context_fit, PLAN_FIT_UNKNOWN);
	job.ranks = 6;
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].node_fit, PLAN_FIT_NO);
	assert_int_equal(r.level[2].node_fit, PLAN_FIT_YES);
	/* the context limit is the smaller one */
	d.context_uars = 10;
	assert_int_equal(plan_context_budget(&d, &job), 9);
}

/* the node's TDs: the device's UARs after every open, first come */
static void test_node_capacity(void **state)
{
	struct plan_device d = dynamic_dev(PLAN_UNKNOWN);
	struct plan_job job = { .ranks = 4, .threads = 16, .contexts = 1 };
	struct plan_result r;

	(void)state;
	d.device_uars = 30;
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].node_capacity, 26);
	assert_int_equal(r.level[2].node_capacity, 52);
	assert_int_equal(r.level[3].node_capacity, PLAN_UNBOUNDED);
	/* each context's own limit bounds it too */
	d.context_uars = 5;
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].node_capacity, 16);
	/* 2 DEVX UARs a rank take a UAR of each rank */
	d.context_uars = PLAN_UNKNOWN;
	job.devx_uars = 2;
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].node_capacity, 22);
	assert_int_equal(r.level[2].node_capacity, 44);
	/* no device figure: unknown */
	d.device_uars = PLAN_UNKNOWN;
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].node_capacity, PLAN_UNKNOWN);
}

static void test_contexts_and_split(void **state)
{
	struct plan_device d = dynamic_dev(PLAN_UNKNOWN);
	struct plan_job job = { .ranks = 2, .threads = 10, .contexts = 3 };
	struct plan_result r;

	(void)state;
	assert_int_equal(plan_context_share(10, 3, 0), 4);
	assert_int_equal(plan_context_share(10, 3, 1), 3);
	assert_int_equal(plan_context_share(10, 3, 2), 3);
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].context_uars, 5);
	assert_int_equal(r.level[1].rank_uars, 5 + 4 + 4);
	assert_int_equal(r.level[1].node_uars, 2 * 13);
	job.contexts = 0;
	assert_int_not_equal(plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r),
			     0);
}

static void test_best_split(void **state)
{
	struct plan_device d = dynamic_dev(12);
	struct plan_result r;

	(void)state;
	plan_compute(&d, &one_rank_16, PLAN_LADDER_RESERVE, &r);
	/* 6 + 10 / 2 = 11 UARs; 7 + ceil(9 / 2) would be 12 */
	assert_int_equal(r.best_split_l1, 6);
	d = dynamic_dev(4);
	plan_compute(&d, &one_rank_16, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.best_split_l1, PLAN_UNKNOWN);
	assert_true(r.fallback.known);
}

/* PF_LOG_BAR_SIZE: log2 of the BAR in MiB, its first 4 KB not a UAR */
static void test_bar_size(void **state)
{
	struct plan_device d = dynamic_dev(PLAN_UNKNOWN);
	struct plan_job job = { .ranks = 1, .threads = 8190, .contexts = 1 };
	struct plan_result r;

	(void)state;
	/* 8191 UARs + the initialization segment: 32 MiB */
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level[1].node_uars, 8191);
	assert_int_equal(r.level1_log_bar_mb, 5);
	job.threads = 8191;
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level1_log_bar_mb, 6);
	job.threads = 1;
	plan_compute(&d, &job, PLAN_LADDER_RESERVE, &r);
	assert_int_equal(r.level1_log_bar_mb, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_context_uars_per_level),
		cmocka_unit_test(test_capacity_uar_limit),
		cmocka_unit_test(test_unknown_stays_unknown),
		cmocka_unit_test(test_uars_per_page),
		cmocka_unit_test(test_static_mode),
		cmocka_unit_test(test_fallback_ladders),
		cmocka_unit_test(test_fallback_without_level1),
		cmocka_unit_test(test_no_blueflame),
		cmocka_unit_test(test_device_share),
		cmocka_unit_test(test_node_capacity),
		cmocka_unit_test(test_contexts_and_split),
		cmocka_unit_test(test_best_split),
		cmocka_unit_test(test_bar_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
