// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * IBV_TD_INIT_ATTR_MAX_SHARING on the emulated device: a thread domain that
 * cannot have its level gets the next one, up to the level 3 pool, and the
 * levels granted are those ib_td_plan's model (reserve ladder) predicts for
 * the context's UAR budget; traffic over every one of them completes.
 * ENOMEM comes only once not even the pool's UAR can be had; freed UARs
 * serve level 1 again. Run with a --uar-limit, in both UAR modes, with and
 * without MLX5_SHUT_UP_BF.
 *
 *   ladder_test
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu_test.h"
#include "plan_model.h"
#include "td_ep.h"
#include "td_link.h"

/* more than any limit the tests set */
#define MAX_TDS 256
/* thread domains asked for beyond the budget */
#define EXTRA 16

struct ladder {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint32_t caps;
	long long budget; /* 4 KB UARs for thread domains */
	struct ibv_td *tds[MAX_TDS];
	uint32_t granted[MAX_TDS];
	unsigned int n;
};

static void free_tds(struct ladder *l)
{
	while (l->n)
		assert_int_equal(ibv_dealloc_td(l->tds[--l->n]), 0);
}

/* plain TDs of a level until ENOMEM, then freed; the count */
static unsigned int plain_capacity(struct ladder *l, uint32_t level)
{
	unsigned int n;

	for (l->n = 0; l->n < MAX_TDS; l->n++) {
		l->tds[l->n] = td_alloc(l->ctx, level);
		if (!l->tds[l->n])
			break;
	}
	assert_in_range(l->n, 1, MAX_TDS - 1);
	assert_int_equal(errno, ENOMEM);
	n = l->n;
	free_tds(l);
	return n;
}

static int setup(void **state)
{
	struct ibv_device_attr_ex attr = {};
	struct ladder *l = calloc(1, sizeof(*l));
	unsigned int n;

	assert_non_null(l);
	l->ctx = emu_test_open();
	l->pd = ibv_alloc_pd(l->ctx);
	assert_non_null(l->pd);
	assert_int_equal(ibv_query_device_ex(l->ctx, NULL, &attr), 0);
	l->caps = attr.td_sharing_caps;
	/* level 2 takes half a UAR in every mode: the budget, measured */
	for (n = 0; n < MAX_TDS; n++) {
		l->tds[n] = td_alloc(l->ctx, IBV_TD_SHARING_PAGE);
		if (!l->tds[n])
			break;
	}
	assert_in_range(n, 2, MAX_TDS - 1);
	assert_int_equal(errno, ENOMEM);
	l->n = n;
	free_tds(l);
	l->budget = (n + 1) / 2;
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	struct ladder *l = *state;

	free_tds(l);
	assert_int_equal(ibv_dealloc_pd(l->pd), 0);
	assert_int_equal(ibv_close_device(l->ctx), 0);
	free(l);
	return 0;
}

static struct plan_device model_device(const struct ladder *l)
{
	struct plan_device dev = {
		.mode = emu_test_static_mode() ? PLAN_UAR_STATIC :
						 PLAN_UAR_DYNAMIC,
		.uars_per_page = emu_test_env_uint("MLX5EMU_UARS_PER_PAGE", 1),
		/* MLX5_SHUT_UP_BF: level 1 non-cached, the others BlueFlame */
		.blueflame = true,
		.sharing_caps = l->caps,
		.legacy_pages = PLAN_UNKNOWN,
		.context_uars = PLAN_UNKNOWN,
		.device_uars = PLAN_UNKNOWN,
	};

	return dev;
}

/* n TDs asking level 1, else up to 3; the mix of levels granted */
static struct plan_mix fall_back(struct ladder *l, unsigned int n)
{
	struct plan_mix mix = { .known = true };
	unsigned int i;

	for (i = 0; i < n; i++) {
		l->tds[l->n] = td_alloc_max(l->ctx, IBV_TD_SHARING_NONE,
					    IBV_TD_SHARING_REGISTER,
					    &l->granted[l->n]);
		if (!l->tds[l->n]) {
			mix.failed++;
			continue;
		}
		assert_in_range(l->granted[l->n], 1, 3);
		mix.level[l->granted[l->n]]++;
		l->n++;
	}
	return mix;
}

static void assert_mix(const struct plan_mix *want, const struct plan_mix *got)
{
	unsigned int i;

	print_message(
		"levels 1/2/3/failed: predicted %u/%u/%u/%u, got %u/%u/%u/%u\n",
		want->level[1], want->level[2], want->level[3], want->failed,
		got->level[1], got->level[2], got->level[3], got->failed);
	for (i = 1; i <= 3; i++)
		assert_int_equal(want->level[i], got->level[i]);
	assert_int_equal(want->failed, got->failed);
}

/* pairs of the held TDs write to each other, both ways */
static void traffic(struct ladder *l)
{
	static struct td_link links[MAX_TDS];
	unsigned int i, n = l->n & ~1U;
	const char *err;

	for (i = 0; i < n; i++) {
		assert_int_equal(td_link_open(&links[i], l->pd, l->tds[i]), 0);
		if (i & 1)
			td_link_connect(&links[i - 1], &links[i]);
	}
	for (i = 0; i < n; i++) {
		err = td_link_write(&links[i], &links[i ^ 1], i);
		if (err)
			fail_msg("TD %u (level %u): %s", i, l->granted[i], err);
	}
	/* the links free their TDs */
	for (i = 0; i < n; i++)
		td_link_close(&links[i]);
	memmove(l->tds, l->tds + n, (l->n - n) * sizeof(l->tds[0]));
	l->n -= n;
}

/*
 * Every TD is allocated, the mix is the model's, traffic completes, and
 * after all are freed the same job gets the same mix again.
 */
static void mix_matches_plan(void **state)
{
	struct ladder *l = *state;
	struct plan_device dev = model_device(l);
	unsigned int t = l->budget + EXTRA, round;
	struct plan_mix want, got;

	want = plan_fallback(&dev, t, 0, l->budget, PLAN_LADDER_RESERVE);
	for (round = 0; round < 2; round++) {
		got = fall_back(l, t);
		assert_mix(&want, &got);
		assert_int_equal(got.failed, 0);
		if (!round)
			traffic(l);
		free_tds(l);
	}
}

/* Without the fallback, level 1 stops where the model says it does */
static void no_fallback_unchanged(void **state)
{
	struct ladder *l = *state;
	struct plan_device dev = model_device(l);
	long long want = plan_capacity(&dev, 1, 0, l->budget);
	unsigned int n;
	uint32_t granted;

	if (!(l->caps & (1 << IBV_TD_SHARING_NONE))) {
		assert_null(td_alloc(l->ctx, IBV_TD_SHARING_NONE));
		assert_int_equal(errno, EOPNOTSUPP);
		return;
	}
	for (l->n = 0; l->n < MAX_TDS; l->n++) {
		/* max_sharing 0: the level asked for only, written back */
		l->tds[l->n] =
			td_alloc_max(l->ctx, IBV_TD_SHARING_NONE, 0, &granted);
		if (!l->tds[l->n])
			break;
		assert_int_equal(granted, IBV_TD_SHARING_NONE);
	}
	assert_int_equal(errno, ENOMEM);
	n = l->n;
	assert_int_equal(n, want);
	free_tds(l);
	assert_int_equal(plain_capacity(l, IBV_TD_SHARING_NONE), want);
}

/* Level 3 exhausted: ENOMEM; a freed UAR goes to the pool, half to level 2 */
static void exhaustion(void **state)
{
	struct ladder *l = *state;
	uint32_t granted;
	struct ibv_td *td;

	for (l->n = 0; l->n < MAX_TDS; l->n++) {
		l->tds[l->n] = td_alloc(l->ctx, IBV_TD_SHARING_PAGE);
		if (!l->tds[l->n])
			break;
	}
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(l->n, 2 * l->budget);

	td = td_alloc_max(l->ctx, IBV_TD_SHARING_NONE, IBV_TD_SHARING_REGISTER,
			  &granted);
	assert_null(td);
	assert_int_equal(errno, ENOMEM);
	assert_null(td_alloc(l->ctx, IBV_TD_SHARING_REGISTER));
	assert_int_equal(errno, ENOMEM);

	/* half a UAR: level 2 before the pool */
	assert_int_equal(ibv_dealloc_td(l->tds[--l->n]), 0);
	l->tds[l->n] = td_alloc_max(l->ctx, IBV_TD_SHARING_NONE,
				    IBV_TD_SHARING_REGISTER, &granted);
	assert_non_null(l->tds[l->n++]);
	assert_int_equal(granted, IBV_TD_SHARING_PAGE);

	/* a whole UAR, the last one: the pool takes it, not level 1 */
	assert_int_equal(ibv_dealloc_td(l->tds[--l->n]), 0);
	assert_int_equal(ibv_dealloc_td(l->tds[--l->n]), 0);
	l->tds[l->n] = td_alloc_max(l->ctx, IBV_TD_SHARING_NONE,
				    IBV_TD_SHARING_REGISTER, &granted);
	assert_non_null(l->tds[l->n++]);
	assert_int_equal(granted, IBV_TD_SHARING_REGISTER);
	l->tds[l->n] = td_alloc_max(l->ctx, IBV_TD_SHARING_PAGE,
				    IBV_TD_SHARING_REGISTER, &granted);
	assert_non_null(l->tds[l->n++]);
	assert_int_equal(granted, IBV_TD_SHARING_REGISTER);
	free_tds(l);
}

/* Freed level-1 UARs serve level 1 again once the pool exists */
static void regrow(void **state)
{
	struct ladder *l = *state;
	struct plan_mix got;
	unsigned int i, ones = 0;
	uint32_t granted;

	if (!(l->caps & (1 << IBV_TD_SHARING_NONE)))
		skip();
	got = fall_back(l, l->budget + EXTRA);
	assert_int_equal(got.failed, 0);
	assert_true(got.level[3] > 0);
	for (i = 0; i < l->n; i++) {
		if (l->granted[i] != IBV_TD_SHARING_NONE)
			continue;
		assert_int_equal(ibv_dealloc_td(l->tds[i]), 0);
		l->tds[i] = NULL;
		ones++;
	}
	for (i = 0; i < l->n; i++) {
		if (l->tds[i])
			continue;
		l->tds[i] = td_alloc_max(l->ctx, IBV_TD_SHARING_NONE,
					 IBV_TD_SHARING_REGISTER, &granted);
		assert_non_null(l->tds[i]);
		assert_int_equal(granted, IBV_TD_SHARING_NONE);
	}
	assert_true(ones > 0);
	free_tds(l);
}

static void errnos(void **state)
{
	struct ladder *l = *state;
	struct ibv_td_init_attr attr = {
		.comp_mask = IBV_TD_INIT_ATTR_MAX_SHARING,
		.max_sharing = IBV_TD_SHARING_REGISTER,
	};
	static const uint32_t bad[][2] = {
		{ IBV_TD_SHARING_REGISTER, IBV_TD_SHARING_NONE },
		{ IBV_TD_SHARING_PAGE, IBV_TD_SHARING_NONE },
		{ IBV_TD_SHARING_NONE, IBV_TD_SHARING_REGISTER + 1 },
		{ IBV_TD_SHARING_NONE, UINT32_MAX },
	};
	struct ibv_td *td;
	uint32_t granted;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_null(
			td_alloc_max(l->ctx, bad[i][0], bad[i][1], &granted));
		assert_int_equal(errno, EINVAL);
	}
	/* an unknown level stays EOPNOTSUPP, an unknown bit EINVAL */
	assert_null(
		td_alloc_max(l->ctx, IBV_TD_SHARING_REGISTER + 1, 0, &granted));
	assert_int_equal(errno, EOPNOTSUPP);
	attr.comp_mask |= IBV_TD_INIT_ATTR_MAX_SHARING << 1;
	assert_null(ibv_alloc_td(l->ctx, &attr));
	assert_int_equal(errno, EINVAL);

	/* the default, granted as the level it is */
	attr.comp_mask = IBV_TD_INIT_ATTR_MAX_SHARING;
	attr.sharing = 77; /* not read without IBV_TD_INIT_ATTR_SHARING */
	td = ibv_alloc_td(l->ctx, &attr);
	assert_non_null(td);
	assert_int_equal(attr.sharing, IBV_TD_SHARING_PAGE);
	assert_int_equal(ibv_dealloc_td(td), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errnos),
		cmocka_unit_test(no_fallback_unchanged),
		cmocka_unit_test(mix_matches_plan),
		cmocka_unit_test(exhaustion),
		cmocka_unit_test(regrow),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
