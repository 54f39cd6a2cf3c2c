// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Mutated real commands against the emulated kernel edge: each iteration
 * takes one of the commands libibverbs and libmlx5 send (write and ioctl),
 * flips bytes of it and replaces its pointers (response, rings, doorbell
 * records, MR start, ioctl attributes) with raw, unchecked ones: NULL,
 * unmapped, no-access, read-only, past the end of a mapping, kernel
 * addresses, or good ones. The emulator must answer each with success or
 * an errno, and never crash. A fixed seed makes every run the same;
 * FUZZ_ITERATIONS (default 10000) sets the length.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "raw_cmd.h"

#define MAX_CMD 512
#define MAX_PTRS 8
#define REOPEN_EVERY 200 /* a fresh context now and then: no exhaustion */

struct tmpl {
	const char *name;
	bool ioctl;
	size_t len;
	uint8_t bytes[MAX_CMD];
	unsigned int nptrs;
	uint16_t ptr_off[MAX_PTRS]; /* the pointer fields */
};

static struct tmpl tmpls[32];
static unsigned int ntmpls;
static uint64_t rng;
static uint8_t *arena; /* where good pointers go: RAW_MEM_PAGES + guard */
static uint64_t pool[16];
static unsigned int npool;

static uint64_t rnd(void)
{
	/* xorshift64 */
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct tmpl *add(const char *name, bool is_ioctl, const void *cmd,
			size_t len)
{
	struct tmpl *t = &tmpls[ntmpls++];

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->ioctl = is_ioctl;
	t->len = len;
	memcpy(t->bytes, cmd, len);
	return t;
}

static void ptr(struct tmpl *t, size_t off)
{
	t->ptr_off[t->nptrs++] = off;
}

/* a good pointer into the arena: page p */
static uint8_t *at(unsigned int p)
{
	return arena + (size_t)p * RAW_PAGE;
}

#define HDR sizeof(struct ib_uverbs_cmd_hdr)

static void write_cmd(const char *name, uint32_t cmd, const void *core,
		      size_t core_len, const void *drv, size_t drv_len,
		      size_t out_len, bool has_resp, const size_t *ptrs,
		      unsigned int nptrs)
{
	uint8_t buf[MAX_CMD] = {};
	struct ib_uverbs_cmd_hdr hdr = {
		.command = cmd,
		.in_words = (HDR + core_len + drv_len) / 4,
		.out_words = out_len / 4,
	};
	struct tmpl *t;
	unsigned int i;

	memcpy(buf, &hdr, HDR);
	memcpy(buf + HDR, core, core_len);
	memcpy(buf + HDR + core_len, drv, drv_len);
	t = add(name, false, buf, HDR + core_len + drv_len);
	if (has_resp)
		ptr(t, HDR);
	for (i = 0; i < nptrs; i++)
		ptr(t, HDR + core_len + ptrs[i]);
}

/* EX_QUERY_DEVICE: the response is in the extended header */
static void add_ex_query_device(uint64_t resp)
{
	struct ex_query_device_cmd exq =
		raw_ex_query_device_cmd((void *)(uintptr_t)resp);

	ptr(add("EX_QUERY_DEVICE", false, &exq, sizeof(exq)),
	    offsetof(struct ex_query_device_cmd, ex.response));
}

/* ioctl: the UAR object (dynamic UARs) */
static void add_uar_alloc(void)
{
	struct uar_alloc_out *o = (void *)at(61);
	struct uar_alloc_cmd c = raw_uar_alloc_cmd(0, o);
	struct tmpl *t = add("UAR_OBJ_ALLOC", true, &c, sizeof(c));
	unsigned int i;

	for (i = 2; i < 5; i++)
		ptr(t, offsetof(struct uar_alloc_cmd, attr[i].data));
}

/* ioctl: INVOKE_WRITE, the write commands over the ioctl transport */
static void add_invoke_write(uint64_t resp)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr[3];
	} c = {
		.hdr = { .length = sizeof(c),
			 .object_id = UVERBS_OBJECT_DEVICE,
			 .method_id = UVERBS_METHOD_INVOKE_WRITE,
			 .num_attrs = 3,
			 .driver_id = RDMA_DRIVER_MLX5 },
		.attr = {
			{ .attr_id = UVERBS_ATTR_WRITE_CMD,
			  .len = 4,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = IB_USER_VERBS_CMD_ALLOC_PD },
			{ .attr_id = UVERBS_ATTR_CORE_IN,
			  .len = 8,
			  .flags = UVERBS_ATTR_F_MANDATORY },
			{ .attr_id = UVERBS_ATTR_CORE_OUT,
			  .len = 8,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = resp },
		},
	};
	struct tmpl *t = add("INVOKE_WRITE", true, &c, sizeof(c));

	ptr(t, offsetof(typeof(c), attr[1].data));
	ptr(t, offsetof(typeof(c), attr[2].data));
}

static void make_templates(const struct raw_ctx *r)
{
	uint64_t resp = (uintptr_t)at(60);
	struct ib_uverbs_alloc_pd pd = { .response = resp };
	struct ib_uverbs_dealloc_pd dpd = { .pd_handle = 1 };
	struct ib_uverbs_reg_mr mr = { .response = resp,
				       .start = (uintptr_t)at(8),
				       .length = 4 * RAW_PAGE,
				       .hca_va = (uintptr_t)at(8),
				       .access_flags = 7 };
	struct ib_uverbs_dereg_mr dmr = { .mr_handle = 0 };
	struct ib_uverbs_create_cq cq = { .response = resp,
					  .cqe = 63,
					  .comp_channel = -1 };
	struct mlx5_ib_create_cq dcq = { .buf_addr = (uintptr_t)at(16),
					 .db_addr = (uintptr_t)at(20),
					 .cqe_size = 64 };
	struct ib_uverbs_resize_cq rcq = { .response = resp,
					   .cq_handle = 0,
					   .cqe = 127 };
	struct mlx5_ib_resize_cq drcq = { .buf_addr = (uintptr_t)at(24),
					  .cqe_size = 64 };
	struct ib_uverbs_destroy_cq dcq_cmd = { .response = resp };
	struct ib_uverbs_create_qp qp = { .response = resp,
					  .max_send_wr = 16,
					  .max_recv_wr = 16,
					  .max_send_sge = 1,
					  .max_recv_sge = 1,
					  .qp_type = 2 };
	struct mlx5_ib_create_qp dqp = { .buf_addr = (uintptr_t)at(32),
					 .db_addr = (uintptr_t)at(21),
					 .sq_wqe_count = 16,
					 .rq_wqe_count = 16,
					 .rq_wqe_shift = 4 };
	struct ib_uverbs_modify_qp mqp = { .attr_mask = 0x39,
					   .qp_state = 1,
					   .port_num = 1,
					   .qp_access_flags = 7 };
	struct ib_uverbs_query_qp qqp = { .response = resp, .attr_mask = ~0u };
	struct ib_uverbs_destroy_qp dqp_cmd = { .response = resp };
	struct ib_uverbs_query_device qd = { .response = resp };
	struct ib_uverbs_query_port qport = { .response = resp, .port_num = 1 };
	struct ib_uverbs_create_srq srq = { .response = resp,
					    .max_wr = 15,
					    .max_sge = 1 };
	struct mlx5_ib_create_srq dsrq = { .buf_addr = (uintptr_t)at(40),
					   .db_addr = (uintptr_t)at(22) };
	struct ib_uverbs_create_comp_channel cc = { .response = resp };
	size_t p2[] = { offsetof(struct mlx5_ib_create_cq, buf_addr),
			offsetof(struct mlx5_ib_create_cq, db_addr) };
	size_t p1[] = { 0 };

	if (r->dynamic) {
		dcq.flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX;
		dcq.uar_page_index = r->uar_nc;
		dqp.flags = MLX5_QP_FLAG_UAR_PAGE_INDEX;
		dqp.bfreg_index = r->uar_bf;
	}
	ntmpls = 0;
	write_cmd("ALLOC_PD", IB_USER_VERBS_CMD_ALLOC_PD, &pd, sizeof(pd), NULL,
		  0, 8, true, NULL, 0);
	write_cmd("DEALLOC_PD", IB_USER_VERBS_CMD_DEALLOC_PD, &dpd, sizeof(dpd),
		  NULL, 0, 0, false, NULL, 0);
	/* the MR's start is a pointer too: in the core request */
	write_cmd("REG_MR", IB_USER_VERBS_CMD_REG_MR, &mr, sizeof(mr), NULL, 0,
		  12, true, NULL, 0);
	ptr(&tmpls[ntmpls - 1], HDR + offsetof(struct ib_uverbs_reg_mr, start));
	write_cmd("DEREG_MR", IB_USER_VERBS_CMD_DEREG_MR, &dmr, sizeof(dmr),
		  NULL, 0, 0, false, NULL, 0);
	write_cmd("CREATE_CQ", IB_USER_VERBS_CMD_CREATE_CQ, &cq, sizeof(cq),
		  &dcq, sizeof(dcq), 32, true, p2, 2);
	write_cmd("RESIZE_CQ", IB_USER_VERBS_CMD_RESIZE_CQ, &rcq, sizeof(rcq),
		  &drcq, sizeof(drcq), 8, true, p1, 1);
	write_cmd("DESTROY_CQ", IB_USER_VERBS_CMD_DESTROY_CQ, &dcq_cmd,
		  sizeof(dcq_cmd), NULL, 0, 8, true, NULL, 0);
	write_cmd("CREATE_QP", IB_USER_VERBS_CMD_CREATE_QP, &qp, sizeof(qp),
		  &dqp, sizeof(dqp), 72, true, p2, 2);
	write_cmd("MODIFY_QP", IB_USER_VERBS_CMD_MODIFY_QP, &mqp, sizeof(mqp),
		  NULL, 0, 0, false, NULL, 0);
	write_cmd("QUERY_QP", IB_USER_VERBS_CMD_QUERY_QP, &qqp, sizeof(qqp),
		  NULL, 0, sizeof(struct ib_uverbs_query_qp_resp), true, NULL,
		  0);
	write_cmd("DESTROY_QP", IB_USER_VERBS_CMD_DESTROY_QP, &dqp_cmd,
		  sizeof(dqp_cmd), NULL, 0, 4, true, NULL, 0);
	write_cmd("QUERY_DEVICE", IB_USER_VERBS_CMD_QUERY_DEVICE, &qd,
		  sizeof(qd), NULL, 0,
		  sizeof(struct ib_uverbs_query_device_resp), true, NULL, 0);
	write_cmd("QUERY_PORT", IB_USER_VERBS_CMD_QUERY_PORT, &qport,
		  sizeof(qport), NULL, 0,
		  sizeof(struct ib_uverbs_query_port_resp), true, NULL, 0);
	write_cmd("CREATE_SRQ", IB_USER_VERBS_CMD_CREATE_SRQ, &srq, sizeof(srq),
		  &dsrq, sizeof(dsrq), 16, true, p2, 2);
	write_cmd("CREATE_COMP_CHANNEL", IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
		  &cc, sizeof(cc), NULL, 0, 4, true, NULL, 0);

	add_ex_query_device(resp);
	add_uar_alloc();
	add_invoke_write(resp);
}

static void make_pool(void)
{
	uint8_t *ro = raw_readonly_page(), *none = raw_noaccess_page();

	npool = 0;
	pool[npool++] = 0;
	pool[npool++] = 0x1000;
	pool[npool++] = (uintptr_t)none;
	pool[npool++] = (uintptr_t)ro;
	pool[npool++] = (uintptr_t)ro + RAW_PAGE - 4;
	pool[npool++] = 0xffff800000000000ull; /* the kernel's half */
	pool[npool++] = 0x00007ffffffff000ull;
	pool[npool++] = ~0ull;
	pool[npool++] = (uintptr_t)at(RAW_MEM_PAGES) - 8; /* into the guard */
	pool[npool++] = (uintptr_t)at(RAW_MEM_PAGES - 1) + 100;
}

/* a pointer from the pool, or a good one somewhere in the arena */
static uint64_t some_pointer(void)
{
	if (rnd() % 3)
		return pool[rnd() % npool];
	return (uintptr_t)at(rnd() % RAW_MEM_PAGES) + (rnd() % RAW_PAGE & ~7);
}

static bool is_ptr_byte(const struct tmpl *t, size_t i)
{
	unsigned int k;

	for (k = 0; k < t->nptrs; k++)
		if (i >= t->ptr_off[k] && i < t->ptr_off[k] + 8u)
			return true;
	return false;
}

/* what the emulated kernel may answer; anything else is a finding */
static bool errno_ok(int e)
{
	static const int ok[] = { EINVAL, EFAULT, ENOMEM, EOPNOTSUPP,
				  ENOSPC, ENOENT, EBUSY,  EPROTONOSUPPORT,
				  ENOTTY, EBADF,  EMFILE, ERANGE,
				  EPERM,  EIO,	  EEXIST, EAGAIN,
				  ENFILE };
	unsigned int i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (e == ok[i])
			return true;
	return false;
}

static void fuzz(void **state)
{
	const char *env_iter = getenv("FUZZ_ITERATIONS");
	unsigned long iterations =
		env_iter ? strtoul(env_iter, NULL, 0) : 10000;
	unsigned long i, ok = 0;
	struct raw_ctx r = { .fd = -1 };

	(void)state;
	rng = 0x5eed1234abcdull;
	for (i = 0; i < iterations; i++) {
		uint8_t cmd[MAX_CMD + 64];
		const struct tmpl *t;
		size_t len;
		void *arg = cmd;
		unsigned int k, n;
		int ret;

		if (i % REOPEN_EVERY == 0) {
			if (i)
				raw_close(&r);
			assert_int_equal(raw_open(&r), 0);
			arena = r.mem;
			make_pool();
			make_templates(&r);
		}
		t = &tmpls[rnd() % ntmpls];
		memset(cmd, 0, sizeof(cmd));
		memcpy(cmd, t->bytes, t->len);
		len = t->len;
		/* some pointers replaced by raw ones */
		for (k = 0; k < t->nptrs; k++)
			if (rnd() % 2) {
				uint64_t p = some_pointer();

				memcpy(cmd + t->ptr_off[k], &p, 8);
			}
		/* and a few bytes elsewhere flipped */
		n = rnd() % 4;
		for (k = 0; k < n; k++) {
			size_t b = rnd() % t->len;

			if (!is_ptr_byte(t, b))
				cmd[b] ^= 1u << (rnd() % 8);
		}
		/* now and then the command itself is the bad pointer, or
		 * write() claims a different length */
		if (rnd() % 16 == 0)
			arg = (void *)(uintptr_t)some_pointer();
		if (!t->ioctl && rnd() % 16 == 0)
			len = rnd() % (t->len + 16);
		if (t->ioctl)
			ret = ioctl(r.fd, RDMA_VERBS_IOCTL, arg);
		else
			ret = write(r.fd, arg, len) < 0 ? -1 : 0;
		if (!ret) {
			ok++;
			continue;
		}
		if (!errno_ok(errno))
			fail_msg("iteration %lu, %s: errno %d (%s)", i, t->name,
				 errno, strerror(errno));
	}
	raw_close(&r);
	print_message("%lu commands, %lu accepted\n", iterations, ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
