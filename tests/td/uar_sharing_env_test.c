// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MLX5_UAR_SHARING takes exactly the values mlx5dv(7) documents, 0, 1 and
 * 2; anything else is ignored with a warning, and thread domains allocated
 * without a level then pair up on UARs as by default. Which level a context
 * took is read off where two such thread domains land; the warning off the
 * verbs log (VERBS_LOG_FILE).
 *
 *   uar_sharing_env_test
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"
#include "rc_loop.h"
#include "td_ep.h"

#define WARNING "Ignoring MLX5_UAR_SHARING="

static char log_path[] = "/tmp/uar_sharing_env_test.XXXXXX";

static const struct {
	const char *value;
	unsigned int level; /* 0: ignored, with a warning */
} cases[] = {
	{ "0", 2 },
	{ "1", 1 },
	{ "2", 2 },
	{ "3", 0 }, /* level 3 only through the API */
	{ "4", 0 },
	{ "-1", 0 },
	/* strtoul() would wrap these to 1 and 2 */
	{ "-18446744073709551615", 0 },
	{ "-18446744073709551614", 0 },
	{ "18446744073709551617", 0 },
	{ " 1", 0 },
	{ "+1", 0 },
	{ "01", 0 },
	{ "00", 0 },
	{ "1 ", 0 },
	{ "0x1", 0 },
	{ "1.0", 0 },
	{ "", 0 },
	{ "bogus", 0 },
};

static unsigned int warnings(void)
{
	char line[512];
	unsigned int n = 0;
	FILE *f;

	/* libibverbs writes the log through a stdio stream of its own */
	fflush(NULL);
	f = fopen(log_path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, WARNING) != NULL;
	fclose(f);
	return n;
}

/* the BlueFlame register of a QP of a new thread domain without a level */
static uintptr_t default_td_reg(struct ibv_pd *pd, struct ibv_cq *cq,
				struct ibv_td **td, struct ibv_pd **parent,
				struct ibv_qp **qp)
{
	struct ibv_parent_domain_init_attr pattr = { .pd = pd };

	*td = td_alloc(pd->context, IBV_TD_SHARING_DEFAULT);
	assert_non_null(*td);
	pattr.td = *td;
	*parent = ibv_alloc_parent_domain(pd->context, &pattr);
	assert_non_null(*parent);
	*qp = rc_loop_create_qp(*parent, cq, 4);
	assert_non_null(*qp);
	return td_qp_bf_reg(*qp);
}

/* the level two thread domains without one get under the environment */
static unsigned int default_level(void)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *parent[2];
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_td *td[2];
	struct ibv_qp *qp[2];
	uintptr_t reg[2];
	unsigned int i;

	assert_non_null(pd);
	assert_non_null(cq);
	for (i = 0; i < 2; i++)
		reg[i] = default_td_reg(pd, cq, &td[i], &parent[i], &qp[i]);
	for (i = 0; i < 2; i++) {
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
		assert_int_equal(ibv_dealloc_pd(parent[i]), 0);
		assert_int_equal(ibv_dealloc_td(td[i]), 0);
	}
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);

	if (bf_page(reg[0]) != bf_page(reg[1]))
		return 1;
	/* a pair: each on its own register */
	assert_int_not_equal(reg[0], reg[1]);
	return 2;
}

static void strict_values(void **state)
{
	unsigned int i, before, level, warned, bad = 0;
	unsigned int want_level, want_warned;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setenv("MLX5_UAR_SHARING", cases[i].value, 1);
		before = warnings();
		level = default_level();
		warned = warnings() - before;
		want_level = cases[i].level ?: 2;
		want_warned = !cases[i].level;
		print_message(
			"MLX5_UAR_SHARING=\"%s\": level %u, %u warnings\n",
			cases[i].value, level, warned);
		if (level == want_level && warned == want_warned)
			continue;
		print_error(
			"MLX5_UAR_SHARING=\"%s\": want level %u and %u warnings\n",
			cases[i].value, want_level, want_warned);
		bad++;
	}
	assert_int_equal(bad, 0);
}

static int remove_log(void **state)
{
	(void)state;
	unlink(log_path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strict_values),
	};
	int fd;

	/* before libibverbs reads its log settings, at the first device list */
	fd = mkstemp(log_path);
	if (fd < 0)
		return 1;
	close(fd);
	setenv("VERBS_LOG_LEVEL", "2", 1); /* warnings */
	setenv("VERBS_LOG_FILE", log_path, 1);
	return cmocka_run_group_tests(tests, NULL, remove_log);
}
