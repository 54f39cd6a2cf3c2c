// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Thread domains of mixed sharing levels allocated and freed in random
 * order, 10 000 rounds. After every round the live TDs keep the placement
 * rules of their levels, and the BlueFlame UARs the context holds (as the
 * emulated kernel counts them) never exceed the most UARs its TDs ever
 * used at once, rounded up to whole mappings when a mapping holds several
 * 4 KB UARs: freed UARs are reused, never leaked or half-lost.
 *
 *   churn_test [rounds]
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
#include "rc_loop.h"
#include "td_ep.h"
#include "td_stat.h"

#define SLOTS 16

struct slot {
	unsigned int level; /* 0: free slot */
	struct ibv_td *td;
	struct ibv_pd *parent;
	struct ibv_qp *qp;
	uintptr_t reg;
};

static unsigned int rounds = 10000;

static void slot_fill(struct slot *s, struct ibv_pd *pd, struct ibv_cq *cq,
		      unsigned int level)
{
	struct ibv_parent_domain_init_attr pattr = { .pd = pd };

	s->td = td_alloc(pd->context, level);
	assert_non_null(s->td);
	pattr.td = s->td;
	s->parent = ibv_alloc_parent_domain(pd->context, &pattr);
	assert_non_null(s->parent);
	s->qp = rc_loop_create_qp(s->parent, cq, 4);
	assert_non_null(s->qp);
	s->reg = td_qp_bf_reg(s->qp);
	s->level = level;
}

static void slot_empty(struct slot *s)
{
	assert_int_equal(ibv_destroy_qp(s->qp), 0);
	assert_int_equal(ibv_dealloc_pd(s->parent), 0);
	assert_int_equal(ibv_dealloc_td(s->td), 0);
	memset(s, 0, sizeof(*s));
}

/* The placement rules, and how many distinct UARs the live TDs use. */
static unsigned int check_rules(const struct slot *slots)
{
	unsigned int i, j, used = 0, level3_uars = 0;

	for (i = 0; i < SLOTS; i++) {
		const struct slot *a = &slots[i];
		unsigned int sharers = 0;
		bool first = true;

		if (!a->level)
			continue;
		for (j = 0; j < SLOTS; j++) {
			const struct slot *b = &slots[j];

			if (j == i || !b->level || bf_page(b->reg) != bf_page(a->reg))
				continue;
			first &= j > i;
			sharers++;
			/* levels never mix on a UAR */
			if (b->level != a->level)
				fail_msg("level-%u and level-%u TDs share UAR %#lx",
					 a->level, b->level,
					 (unsigned long)bf_page(a->reg));
			if (a->level == IBV_TD_SHARING_PAGE && b->reg == a->reg)
				fail_msg("two level-2 TDs on one register");
		}
		if (a->level == IBV_TD_SHARING_NONE && sharers)
			fail_msg("a level-1 TD shares its UAR");
		if (a->level == IBV_TD_SHARING_PAGE && sharers > 1)
			fail_msg("%u level-2 TDs on one UAR", sharers + 1);
		if (first) {
			used++;
			level3_uars += a->level == IBV_TD_SHARING_REGISTER;
		}
	}
	if (level3_uars > 1)
		fail_msg("level-3 TDs spread over %u UARs", level3_uars);
	return used;
}

/* UARs come in whole mappings of upp 4 KB UARs */
static unsigned int whole_mappings(unsigned int uars, unsigned int upp)
{
	return (uars + upp - 1) / upp * upp;
}

static void churn(void **state)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct slot slots[SLOTS] = {};
	unsigned int upp = emu_test_env_uint("MLX5EMU_UARS_PER_PAGE", 1);
	unsigned int r, i, used, peak = 0, held, count[4] = {};

	(void)state;
	assert_non_null(pd);
	assert_non_null(cq);
	srandom(20181211);
	for (r = 0; r < rounds; r++) {
		struct slot *s = &slots[random() % SLOTS];

		if (s->level) {
			slot_empty(s);
		} else {
			slot_fill(s, pd, cq, IBV_TD_SHARING_NONE + random() % 3);
			count[s->level]++;
		}
		used = check_rules(slots);
		if (used > peak)
			peak = used;
		held = td_stat_held_uars();
		if (held > whole_mappings(peak, upp))
			fail_msg("round %u: the context holds %u UARs, its TDs never used more than %u",
				 r, held, peak);
	}
	for (i = 0; i < SLOTS; i++)
		if (slots[i].level)
			slot_empty(&slots[i]);
	held = td_stat_held_uars();
	assert_true(held <= whole_mappings(peak, upp));
	print_message("%u rounds (%u/%u/%u TDs at levels 1/2/3): peak %u UARs in use, %u held at the end\n",
		      rounds, count[1], count[2], count[3], peak, held);

	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(churn),
	};

	if (argc > 1)
		rounds = strtoul(argv[1], NULL, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
