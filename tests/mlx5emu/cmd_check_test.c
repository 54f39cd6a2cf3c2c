// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the emulated kernel checks in a command before it keeps anything,
 * without libibverbs: every pointer (the command, its response, ioctl
 * attributes, rings, doorbell records, MRs) answers EFAULT when it does
 * not point at memory of the right kind, as umem and doorbell pinning do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "raw_cmd.h"

#define UNMAPPED ((void *)0x1000) /* below mmap_min_addr */

/* ALLOC_PD: the handle, or -errno */
static int64_t alloc_pd(int fd, uint32_t *resp)
{
	uint32_t r[2];
	struct alloc_pd_cmd pd = raw_alloc_pd_cmd(resp ? resp : r);
	int err = raw_write(fd, &pd, sizeof(pd));

	if (err)
		return -err;
	return (resp ? resp : r)[0];
}

static void command_and_response(void **state)
{
	struct raw_ctx *r = *state;
	uint32_t *ro = raw_readonly_page();
	uint32_t *none = raw_noaccess_page();
	void *volatile null = NULL; /* not a constant: the compiler knows */
	int64_t first, next;

	first = alloc_pd(r->fd, NULL);
	assert_true(first >= 0);
	/* the command itself */
	assert_int_equal(write(r->fd, null, 16), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(write(r->fd, none, 16), -1);
	assert_int_equal(errno, EFAULT);
	/* the response: nothing mapped, read-only, no access */
	assert_int_equal(alloc_pd(r->fd, UNMAPPED), -EFAULT);
	assert_int_equal(alloc_pd(r->fd, ro), -EFAULT);
	assert_int_equal(alloc_pd(r->fd, none), -EFAULT);
	assert_int_equal(alloc_pd(r->fd, (uint32_t *)((char *)ro - 4)),
			 -EFAULT);
	/* and nothing was kept: the next PD takes the next handle */
	next = alloc_pd(r->fd, NULL);
	assert_int_equal(next, first + 1);
}

static void ioctl_pointers(void **state)
{
	struct raw_ctx *r = *state;
	struct uar_alloc_out o;
	struct uar_alloc_cmd c = raw_uar_alloc_cmd(0, &o);
	void *ro = raw_readonly_page();
	/* profile W answers ENOTTY to any ioctl, as a write-only kernel */
	int want = r->dynamic ? EFAULT : ENOTTY;
	unsigned int i;

	assert_int_equal(ioctl(r->fd, RDMA_VERBS_IOCTL, NULL), -1);
	assert_int_equal(errno, want);
	assert_int_equal(ioctl(r->fd, RDMA_VERBS_IOCTL, UNMAPPED), -1);
	assert_int_equal(errno, want);
	/* a header the kernel could read, attributes it could not write */
	mprotect(ro, RAW_PAGE, PROT_READ | PROT_WRITE);
	memcpy(ro, &c, sizeof(c));
	mprotect(ro, RAW_PAGE, PROT_READ);
	assert_int_equal(ioctl(r->fd, RDMA_VERBS_IOCTL, ro), -1);
	assert_int_equal(errno, want);
	if (!r->dynamic)
		return;
	/* each out pointer of UAR_OBJ_ALLOC, bad in turn */
	for (i = 2; i < 5; i++) {
		c = raw_uar_alloc_cmd(0, &o);
		c.attr[i].data = i == 2 ? 0x1000 : (uintptr_t)ro;
		assert_int_equal(raw_ioctl(r->fd, &c), EFAULT);
	}
	c = raw_uar_alloc_cmd(0, &o);
	assert_int_equal(raw_ioctl(r->fd, &c), 0);
}

static void rings_and_doorbells(void **state)
{
	struct raw_ctx *r = *state;
	char *mem = r->mem;
	void *ro = raw_readonly_page();
	void *none = raw_noaccess_page();
	struct create_cq_resp cq_resp;
	struct create_qp_resp qp_resp;
	struct create_cq_cmd cq;
	struct create_qp_cmd qp;
	/* CQ rings and doorbell records the NIC would write */
	struct {
		void *buf, *db;
	} bad_cq[] = { { UNMAPPED, mem + 2 * RAW_PAGE },
		       { ro, mem + 2 * RAW_PAGE },
		       { none, mem + 2 * RAW_PAGE },
		       { mem + 2 * RAW_PAGE, UNMAPPED },
		       { mem + 2 * RAW_PAGE, ro },
		       /* 256 CQEs do not fit before the end of mem */
		       { mem + 63 * RAW_PAGE, mem } };
	unsigned int i;

	for (i = 0; i < sizeof(bad_cq) / sizeof(bad_cq[0]); i++) {
		cq = raw_create_cq_cmd(&cq_resp, bad_cq[i].buf, bad_cq[i].db,
				       i == 5 ? 255 : 63, r);
		assert_int_equal(raw_write(r->fd, &cq, sizeof(cq)), EFAULT);
	}
	cq = raw_create_cq_cmd(&cq_resp, mem + 2 * RAW_PAGE, mem + 3 * RAW_PAGE,
			       63, r);
	assert_int_equal(raw_write(r->fd, &cq, sizeof(cq)), 0);

	/* QP rings the NIC reads: missing, no access, or shorter than
	 * the sizes say (1024 send WQEs = 16 pages from the last page) */
	qp = raw_create_qp_cmd(&qp_resp, r, UNMAPPED, mem + RAW_PAGE, 16, 16);
	assert_int_equal(raw_write(r->fd, &qp, sizeof(qp)), EFAULT);
	qp = raw_create_qp_cmd(&qp_resp, r, none, mem + RAW_PAGE, 16, 16);
	assert_int_equal(raw_write(r->fd, &qp, sizeof(qp)), EFAULT);
	qp = raw_create_qp_cmd(&qp_resp, r, mem + 63 * RAW_PAGE, mem + RAW_PAGE,
			       1024, 16);
	assert_int_equal(raw_write(r->fd, &qp, sizeof(qp)), EFAULT);
	qp = raw_create_qp_cmd(&qp_resp, r, mem + 4 * RAW_PAGE, none, 16, 16);
	assert_int_equal(raw_write(r->fd, &qp, sizeof(qp)), EFAULT);
	/* read-only rings are fine: the NIC only reads them */
	qp = raw_create_qp_cmd(&qp_resp, r, ro, mem + RAW_PAGE, 16, 16);
	assert_int_equal(raw_write(r->fd, &qp, sizeof(qp)), 0);
}

static void memory_regions(void **state)
{
	struct raw_ctx *r = *state;
	void *ro = raw_readonly_page();
	uint32_t resp[3];
	struct reg_mr_cmd mr;

	mr = raw_reg_mr_cmd(resp, r->pd, UNMAPPED, RAW_PAGE, 0);
	assert_int_equal(raw_write(r->fd, &mr, sizeof(mr)), EFAULT);
	/* read-only memory: only for an MR nobody may write */
	mr = raw_reg_mr_cmd(resp, r->pd, ro, RAW_PAGE,
			    IB_UVERBS_ACCESS_LOCAL_WRITE);
	assert_int_equal(raw_write(r->fd, &mr, sizeof(mr)), EFAULT);
	mr = raw_reg_mr_cmd(resp, r->pd, ro, RAW_PAGE,
			    IB_UVERBS_ACCESS_REMOTE_READ);
	assert_int_equal(raw_write(r->fd, &mr, sizeof(mr)), 0);
	/* past the end of the mapping */
	mr = raw_reg_mr_cmd(resp, r->pd, (char *)r->mem + RAW_PAGE,
			    64 * RAW_PAGE, 0);
	assert_int_equal(raw_write(r->fd, &mr, sizeof(mr)), EFAULT);
}

static int ctx_setup(void **state)
{
	struct raw_ctx *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	assert_int_equal(raw_open(r), 0);
	*state = r;
	return 0;
}

static int ctx_teardown(void **state)
{
	raw_close(*state);
	free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest pointers[] = {
		cmocka_unit_test_setup_teardown(command_and_response, ctx_setup,
						ctx_teardown),
		cmocka_unit_test_setup_teardown(ioctl_pointers, ctx_setup,
						ctx_teardown),
		cmocka_unit_test_setup_teardown(rings_and_doorbells, ctx_setup,
						ctx_teardown),
		cmocka_unit_test_setup_teardown(memory_regions, ctx_setup,
						ctx_teardown),
	};
	return cmocka_run_group_tests(pointers, NULL, NULL);
}
