// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the emulated kernel checks in a command before it keeps anything,
 * without libibverbs: every pointer (the command, its response, ioctl
 * attributes, rings, doorbell records, MRs) answers EFAULT when it does
 * not point at memory of the right kind, as umem and doorbell pinning do;
 * and a process gets no more QPs than max_qp says, all in its QPN slot.
 *   cmd_check_test [pointers|native|qp_limit]   (native: --transport=ioctl)
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
#define FIRST_QPN 0x100 /* of each process's slot: the low ones are taken */

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

/*
 * A native create method (--transport=ioctl) whose response attribute
 * cannot be written fails with EFAULT and keeps nothing, as the kernel
 * aborts the new object when its copy-out fails.
 */
static void native_out_pointers(void **state)
{
	struct raw_ctx *r = *state;
	struct native_create_cq_cmd c;
	char *mem = r->mem;
	void *ro = raw_readonly_page();
	uint32_t first;

	raw_native_create_cq_cmd(&c, mem + 8 * RAW_PAGE, mem + 9 * RAW_PAGE, 63,
				 r);
	assert_int_equal(raw_ioctl(r->fd, &c), 0);
	first = raw_native_cq_handle(&c);
	/* the CQE count out, then the driver's response, unwritable */
	raw_native_create_cq_cmd(&c, mem + 10 * RAW_PAGE, mem + 11 * RAW_PAGE,
				 63, r);
	c.attr[4].data = (uintptr_t)ro;
	assert_int_equal(raw_ioctl(r->fd, &c), EFAULT);
	raw_native_create_cq_cmd(&c, mem + 10 * RAW_PAGE, mem + 11 * RAW_PAGE,
				 63, r);
	c.attr[6].data = (uintptr_t)ro;
	assert_int_equal(raw_ioctl(r->fd, &c), EFAULT);
	/* nothing was kept: the next CQ takes the next handle */
	raw_native_create_cq_cmd(&c, mem + 10 * RAW_PAGE, mem + 11 * RAW_PAGE,
				 63, r);
	assert_int_equal(raw_ioctl(r->fd, &c), 0);
	assert_int_equal(raw_native_cq_handle(&c), first + 1);
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

static void query_device(const struct raw_ctx *r,
			 struct ib_uverbs_query_device_resp *dev)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_query_device core;
	} q = {
		.hdr = { .command = IB_USER_VERBS_CMD_QUERY_DEVICE,
			 .in_words = sizeof(q) / 4,
			 .out_words =
				 sizeof(struct ib_uverbs_query_device_resp) /
				 4 },
	};

	q.core.response = (uintptr_t)dev;
	assert_int_equal(raw_write(r->fd, &q, sizeof(q)), 0);
}

/* max_qp QPs, all in this process's QPN slot, then ENOMEM */
static void qp_limit(void **state)
{
	struct raw_ctx *r = *state;
	struct ib_uverbs_query_device_resp dev;
	struct create_qp_resp resp;
	struct create_qp_cmd qp;
	uint32_t n = 0, slot = 0;
	int err;

	query_device(r, &dev);
	/* every QP on the same rings: only the count matters here */
	qp = raw_create_qp_cmd(&resp, r, (char *)r->mem + 4 * RAW_PAGE,
			       (char *)r->mem + RAW_PAGE, 1, 1);
	for (;;) {
		err = raw_write(r->fd, &qp, sizeof(qp));
		if (err)
			break;
		if (!n)
			slot = resp.core.qpn >> 16;
		assert_int_equal(resp.core.qpn >> 16, slot);
		n++;
		assert_true(n <= dev.max_qp);
	}
	assert_int_equal(err, ENOMEM);
	assert_int_equal(n, dev.max_qp);
}

/* the QPNs max_qp QPs can take stay in the process's slot (prefix) */
static void max_qp_in_slot(void **state)
{
	struct raw_ctx *r = *state;
	struct ib_uverbs_query_device_resp dev;
	struct create_qp_resp resp;
	struct create_qp_cmd qp;

	query_device(r, &dev);
	qp = raw_create_qp_cmd(&resp, r, (char *)r->mem + 4 * RAW_PAGE,
			       (char *)r->mem + RAW_PAGE, 1, 1);
	assert_int_equal(raw_write(r->fd, &qp, sizeof(qp)), 0);
	assert_true(dev.max_qp >= 1000);
	/* QPNs from 0x100 of the slot up, in rising order (cyclic) */
	assert_true((resp.core.qpn & 0xffff) >= FIRST_QPN);
	assert_true(FIRST_QPN + dev.max_qp <= 0x10000);
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

int main(int argc, char **argv)
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
		cmocka_unit_test_setup_teardown(max_qp_in_slot, ctx_setup,
						ctx_teardown),
	};
	const struct CMUnitTest native[] = {
		cmocka_unit_test_setup_teardown(native_out_pointers, ctx_setup,
						ctx_teardown),
	};
	const struct CMUnitTest limit[] = {
		cmocka_unit_test_setup_teardown(qp_limit, ctx_setup,
						ctx_teardown),
	};

	if (argc > 1 && !strcmp(argv[1], "native"))
		return cmocka_run_group_tests(native, NULL, NULL);
	if (argc > 1 && !strcmp(argv[1], "qp_limit"))
		return cmocka_run_group_tests(limit, NULL, NULL);
	return cmocka_run_group_tests(pointers, NULL, NULL);
}
