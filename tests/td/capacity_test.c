// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * No sharing level starves another: after a burst of thread domains of any
 * level (or of DEVX BlueFlame UARs) is freed, every level gets as many as on
 * a fresh context. Run with a --uar-limit, so that each burst takes every
 * UAR the context may hold, with and without MLX5_SHUT_UP_BF (level 1 then
 * takes non-cached UARs, the other levels BlueFlame ones).
 *
 *   capacity_test
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_test.h"
#include "td_ep.h"

/* more than any limit the tests set; level 3 TDs never run out */
#define MAX_OBJS 512

/* TDs without a sharing attribute, of each enum ibv_td_sharing, and DEVX UARs */
enum kind {
	DEFAULT = IBV_TD_SHARING_DEFAULT,
	LEVEL1 = IBV_TD_SHARING_NONE,
	LEVEL2 = IBV_TD_SHARING_PAGE,
	LEVEL3 = IBV_TD_SHARING_REGISTER,
	DEVX_BF,
	NKINDS
};

static const char *const kind_name[NKINDS] = {
	[DEFAULT] = "default TDs",	   [LEVEL1] = "level-1 TDs",
	[LEVEL2] = "level-2 TDs",	   [LEVEL3] = "level-3 TDs",
	[DEVX_BF] = "DEVX BlueFlame UARs",
};

/* per kind, on a fresh context */
static unsigned int fresh[NKINDS];

/* the legacy interface cannot query a DEVX UAR's device index */
static unsigned int nkinds(void)
{
	return emu_test_static_mode() ? DEVX_BF : NKINDS;
}

static void *obj_alloc(struct ibv_context *ctx, enum kind k)
{
	if (k == DEVX_BF)
		return mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_BF);
	return td_alloc(ctx, k);
}

static void obj_free(enum kind k, void *obj)
{
	if (k == DEVX_BF)
		mlx5dv_devx_free_uar(obj);
	else
		assert_int_equal(ibv_dealloc_td(obj), 0);
}

/* Allocates objects of one kind until they run out, then frees them all. */
static unsigned int capacity(struct ibv_context *ctx, enum kind k)
{
	static void *objs[MAX_OBJS];
	unsigned int n, i;

	for (n = 0; n < MAX_OBJS; n++) {
		objs[n] = obj_alloc(ctx, k);
		if (!objs[n])
			break;
	}
	/* out of UARs, or level 1 without write-combining on legacy UARs */
	if (n < MAX_OBJS && errno != ENOMEM && errno != EOPNOTSUPP)
		fail_msg("%s: %s after %u", kind_name[k], strerror(errno), n);
	for (i = 0; i < n; i++)
		obj_free(k, objs[i]);
	return n;
}

static int measure_fresh(void **state)
{
	struct ibv_context *ctx;
	unsigned int k;

	(void)state;
	for (k = 0; k < nkinds(); k++) {
		ctx = emu_test_open();
		fresh[k] = capacity(ctx, k);
		assert_int_equal(ibv_close_device(ctx), 0);
		print_message("fresh context: %u %s\n", fresh[k], kind_name[k]);
	}
	/* the limit must bind, or the bursts prove nothing */
	assert_true(fresh[LEVEL2] < MAX_OBJS);
	return 0;
}

/* Returns how many kinds get fewer or more than on a fresh context. */
static unsigned int differ_from_fresh(struct ibv_context *ctx,
				      const char *after)
{
	unsigned int k, n, differ = 0;

	for (k = 0; k < nkinds(); k++) {
		n = capacity(ctx, k);
		if (n == fresh[k])
			continue;
		print_error("after %s: %u %s, a fresh context gets %u\n", after,
			    n, kind_name[k], fresh[k]);
		differ++;
	}
	return differ;
}

/* on a fresh context, a burst of one kind; then every kind, one after another */
static void after_each_burst(void **state)
{
	struct ibv_context *ctx;
	unsigned int k, n, differ = 0;
	char after[64];

	(void)state;
	for (k = 0; k < nkinds(); k++) {
		ctx = emu_test_open();
		n = capacity(ctx, k);
		snprintf(after, sizeof(after), "%u %s", n, kind_name[k]);
		differ += differ_from_fresh(ctx, after);
		assert_int_equal(ibv_close_device(ctx), 0);
	}
	assert_int_equal(differ, 0);
}

/*
 * All kinds at once, in turn until none gets more, freed in another order
 * than allocated: half-used UARs and the level-3 UAR go back too.
 */
static void after_mixed_burst(void **state)
{
	static struct {
		enum kind kind;
		void *obj;
	} held[NKINDS * MAX_OBJS];
	struct ibv_context *ctx = emu_test_open();
	bool more[NKINDS] = {};
	unsigned int k, i, n = 0, left;

	(void)state;
	for (k = 0; k < nkinds(); k++)
		more[k] = true;
	for (left = nkinds(); left;) {
		for (k = 0; k < nkinds(); k++) {
			if (!more[k])
				continue;
			held[n].obj = obj_alloc(ctx, k);
			if (!held[n].obj || k == LEVEL3) {
				/* level 3 takes one UAR whatever it holds */
				more[k] = false;
				left--;
			}
			if (held[n].obj)
				held[n++].kind = k;
		}
	}
	for (i = 0; i < n; i += 2)
		obj_free(held[i].kind, held[i].obj);
	for (i = 1; i < n; i += 2)
		obj_free(held[i].kind, held[i].obj);
	print_message("a mixed burst of %u objects, freed\n", n);
	k = differ_from_fresh(ctx, "a mixed burst");
	assert_int_equal(ibv_close_device(ctx), 0);
	assert_int_equal(k, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(after_each_burst),
		cmocka_unit_test(after_mixed_burst),
	};

	/* the default level is the built-in one */
	unsetenv("MLX5_UAR_SHARING");
	return cmocka_run_group_tests(tests, measure_fresh, NULL);
}
