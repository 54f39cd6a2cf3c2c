// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Where thread domains land at each sharing level, seen from both sides:
 * the application's view (mlx5dv_init_obj's bf.reg) and the emulated
 * kernel's (which HW UAR each QP was created on, `mlx5emu stat`). Traffic
 * flows over every TD, from 16 threads at once.
 *
 *   placement_test level1|level2|level3 [ntd]
 *
 * levelN is enum ibv_td_sharing N: IBV_TD_SHARING_NONE, _PAGE, _REGISTER.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"
#include "td_ep.h"
#include "td_stat.h"

#define MAX_TD 64

static unsigned int level, ntd = 16;
static struct td_ep eps[MAX_TD];
static unsigned int rung[MAX_TD]; /* registers the NIC saw each TD's QP ring */

static void *drive(void *arg)
{
	struct td_ep *ep = arg;

	return (void *)td_ep_traffic(ep, 200, (unsigned int)(ep - eps));
}

/* every TD's endpoint moves data, all threads at once */
static void traffic_from_all_threads(void)
{
	pthread_t th[MAX_TD];
	unsigned int i;
	void *err;

	for (i = 0; i < ntd; i++)
		assert_int_equal(pthread_create(&th[i], NULL, drive, &eps[i]), 0);
	for (i = 0; i < ntd; i++) {
		assert_int_equal(pthread_join(th[i], &err), 0);
		if (err)
			fail_msg("TD %u: %s", i, (const char *)err);
	}
}

static unsigned int distinct_pages(void)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < ntd; i++) {
		for (j = 0; j < i; j++)
			if (bf_page(eps[j].bf_reg) == bf_page(eps[i].bf_reg))
				break;
		n += j == i;
	}
	return n;
}

/*
 * Two TDs share a UAR in the application's view exactly when the emulated
 * kernel bound their QPs to the same HW UAR; and no QP outside the TDs (the
 * targets, anything else) is bound to a TD's UAR.
 */
static void views_agree(const struct emu_test_stat *st)
{
	const struct emu_test_qp *qi, *qj;
	unsigned int i, j, k;

	for (i = 0; i < ntd; i++) {
		qi = emu_test_find_qp(st, eps[i].qp->qp_num);
		assert_non_null(qi);
		for (j = 0; j < ntd; j++) {
			qj = emu_test_find_qp(st, eps[j].qp->qp_num);
			assert_non_null(qj);
			assert_int_equal(qi->uar == qj->uar,
					 bf_page(eps[i].bf_reg) ==
						 bf_page(eps[j].bf_reg));
		}
		for (k = 0; k < st->nqps; k++) {
			for (j = 0; j < ntd; j++)
				if (st->qps[k].qpn == eps[j].qp->qp_num)
					break;
			if (j == ntd && st->qps[k].uar == qi->uar)
				fail_msg("QP 0x%x (no TD) rings TD %u's UAR 0x%x",
					 st->qps[k].qpn, i, qi->uar);
		}
	}
}

/* TD QPs' mappings: with N 4 KB UARs per mmap, one mapping serves N TDs */
static unsigned int distinct_mappings(const struct emu_test_stat *st)
{
	const struct emu_test_qp *qi, *qj;
	unsigned int i, j, n = 0;

	for (i = 0; i < ntd; i++) {
		qi = emu_test_find_qp(st, eps[i].qp->qp_num);
		for (j = 0; j < i; j++) {
			qj = emu_test_find_qp(st, eps[j].qp->qp_num);
			if (qj->page_id == qi->page_id)
				break;
		}
		n += j == i;
	}
	return n;
}

/*
 * The NIC's view: each TD's QP rang the HW UAR the kernel bound it to, on
 * the register (or its other half) that libmlx5 reports as bf.reg. The ring
 * records reach the attribution file within about a second.
 */
static void doorbells_agree(const struct emu_test_stat *st)
{
	unsigned int i, tries, slots, want;
	uint32_t uar;

	for (i = 0; i < ntd; i++) {
		for (tries = 0; !td_stat_rings(eps[i].qp->qp_num, &uar, &slots);
		     tries++) {
			if (tries == 30)
				fail_msg("no doorbell of TD %u's QP was seen", i);
			usleep(100000);
		}
		assert_int_equal(uar, emu_test_find_qp(st, eps[i].qp->qp_num)->uar);
		/* BlueFlame alternates between the two halves of a register */
		want = 3u << ((bf_slot(eps[i].bf_reg) - 0x800) / 0x100);
		if (slots & ~want)
			fail_msg("TD %u rang slots %#x, bf.reg is +%#x", i, slots,
				 bf_slot(eps[i].bf_reg));
		rung[i] = slots;
	}
}

static void placement(void **state)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct emu_test_stat *st = malloc(sizeof(*st));
	unsigned int upp = emu_test_env_uint("MLX5EMU_UARS_PER_PAGE", 1);
	unsigned int i, j, pages;

	(void)state;
	assert_non_null(pd);
	assert_non_null(st);
	for (i = 0; i < ntd; i++)
		assert_int_equal(td_ep_open(&eps[i], pd, level), 0);

	traffic_from_all_threads();
	emu_test_read_stat(st);
	views_agree(st);
	doorbells_agree(st);

	pages = distinct_pages();
	switch (level) {
	case IBV_TD_SHARING_NONE:
		/* a UAR of its own, rung through its first register */
		assert_int_equal(pages, ntd);
		for (i = 0; i < ntd; i++)
			assert_int_equal(bf_slot(eps[i].bf_reg), 0x800);
		assert_int_equal(distinct_mappings(st), (ntd + upp - 1) / upp);
		break;
	case IBV_TD_SHARING_PAGE:
		/* pairs: one TD at 0x800, the other at 0xA00 */
		assert_int_equal(pages, (ntd + 1) / 2);
		for (i = 0; i < ntd; i++)
			for (j = 0; j < i; j++)
				if (bf_page(eps[i].bf_reg) == bf_page(eps[j].bf_reg))
					assert_int_equal(bf_slot(eps[i].bf_reg) ^
								 bf_slot(eps[j].bf_reg),
							 0x800 ^ 0xa00);
		break;
	case IBV_TD_SHARING_REGISTER:
		assert_int_equal(pages, 1);
		break;
	}
	print_message("level %u: %u TDs on %u UARs in %u mappings, 200 RDMA writes per TD from %u threads at once\n",
		      level, ntd, pages, distinct_mappings(st), ntd);
	for (i = 0; i < ntd; i++)
		print_message("  TD %2u: QP 0x%x on HW UAR 0x%x, bf.reg +0x%x, doorbells seen at +0x%x%s\n",
			      i, eps[i].qp->qp_num,
			      emu_test_find_qp(st, eps[i].qp->qp_num)->uar,
			      bf_slot(eps[i].bf_reg),
			      0x800 + 0x100 * (__builtin_ffs(rung[i]) - 1),
			      rung[i] & (rung[i] - 1) ? " and the other half" : "");

	for (i = 0; i < ntd; i++)
		td_ep_close(&eps[i]);
	free(st);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(placement),
	};

	if (argc < 2 || sscanf(argv[1], "level%u", &level) != 1 || !level ||
	    level > 3) {
		fprintf(stderr, "usage: %s level1|level2|level3 [ntd]\n", argv[0]);
		return 2;
	}
	if (argc > 2)
		ntd = strtoul(argv[2], NULL, 0);
	if (!ntd || ntd > MAX_TD)
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
