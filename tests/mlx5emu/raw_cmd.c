// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* uverbs commands built by hand: see raw_cmd.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "raw_cmd.h"

int raw_write(int fd, const void *cmd, size_t len)
{
	return write(fd, cmd, len) == (ssize_t)len ? 0 : errno;
}

int raw_ioctl(int fd, void *cmd)
{
	return ioctl(fd, RDMA_VERBS_IOCTL, cmd) ? errno : 0;
}

struct get_context_cmd raw_get_context_cmd(struct get_context_resp *resp)
{
	struct get_context_cmd cmd = {
		.hdr = { .command = IB_USER_VERBS_CMD_GET_CONTEXT,
			 .in_words = sizeof(cmd) / 4,
			 .out_words = sizeof(*resp) / 4 },
		.core = { .response = (uintptr_t)resp },
		.drv = { .total_num_bfregs = 16,
			 .num_low_latency_bfregs = 4,
			 .max_cqe_version = 1,
			 .lib_caps =
				 MLX5_LIB_CAP_4K_UAR | MLX5_LIB_CAP_DYN_UAR },
	};

	return cmd;
}

int raw_get_context(int fd, struct get_context_resp *resp)
{
	struct get_context_cmd cmd = raw_get_context_cmd(resp);

	memset(resp, 0, sizeof(*resp));
	return raw_write(fd, &cmd, sizeof(cmd));
}

/* a legacy ALLOC_PD command answering into resp[2] */
struct alloc_pd_cmd raw_alloc_pd_cmd(uint32_t *resp)
{
	struct alloc_pd_cmd pd = {
		.hdr = { .command = IB_USER_VERBS_CMD_ALLOC_PD,
			 .in_words = sizeof(pd) / 4,
			 .out_words = 2 },
		.core = { .response = (uintptr_t)resp },
	};

	return pd;
}

/* EX_QUERY_DEVICE: the response pointer is in the extended header */
struct ex_query_device_cmd raw_ex_query_device_cmd(void *resp)
{
	struct ex_query_device_cmd q = {
		.hdr = { .command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
				    IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
			 .in_words = 1,
			 .out_words =
				 sizeof(struct ib_uverbs_ex_query_device_resp) /
				 8 },
		.ex = { .response = (uintptr_t)resp },
	};

	return q;
}

/* REG_MR answering into resp[3] (handle, lkey, rkey) */
struct reg_mr_cmd raw_reg_mr_cmd(uint32_t *resp, uint32_t pd, void *start,
				 uint64_t len, uint32_t access)
{
	struct reg_mr_cmd mr = {
		.hdr = { .command = IB_USER_VERBS_CMD_REG_MR,
			 .in_words = sizeof(mr) / 4,
			 .out_words = 3 },
		.core = { .response = (uintptr_t)resp,
			  .start = (uintptr_t)start,
			  .length = len,
			  .hca_va = (uintptr_t)start,
			  .pd_handle = pd,
			  .access_flags = access },
	};

	return mr;
}

struct create_cq_cmd raw_create_cq_cmd(struct create_cq_resp *resp, void *buf,
				       void *db, uint32_t cqe,
				       const struct raw_ctx *r)
{
	struct create_cq_cmd cq = {
		.hdr = { .command = IB_USER_VERBS_CMD_CREATE_CQ,
			 .in_words = sizeof(cq) / 4,
			 .out_words = sizeof(*resp) / 4 },
		.core = { .response = (uintptr_t)resp,
			  .cqe = cqe,
			  .comp_channel = -1 },
		.drv = { .buf_addr = (uintptr_t)buf,
			 .db_addr = (uintptr_t)db,
			 .cqe_size = 64 },
	};

	if (r->dynamic) {
		cq.drv.flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX;
		cq.drv.uar_page_index = r->uar_nc;
	}
	return cq;
}

/* an RC QP on r's PD and CQ, rings at buf (RQ of 16-byte WQEs first) */
struct create_qp_cmd raw_create_qp_cmd(struct create_qp_resp *resp,
				       const struct raw_ctx *r, void *buf,
				       void *db, uint32_t sq_wqes,
				       uint32_t rq_wqes)
{
	struct create_qp_cmd qp = {
		.hdr = { .command = IB_USER_VERBS_CMD_CREATE_QP,
			 .in_words = sizeof(qp) / 4,
			 .out_words = sizeof(*resp) / 4 },
		.core = { .response = (uintptr_t)resp,
			  .pd_handle = r->pd,
			  .send_cq_handle = r->cq,
			  .recv_cq_handle = r->cq,
			  .max_send_wr = sq_wqes,
			  .max_recv_wr = rq_wqes,
			  .max_send_sge = 1,
			  .max_recv_sge = 1,
			  .qp_type = 2 /* IB_QPT_RC */ },
		.drv = { .buf_addr = (uintptr_t)buf,
			 .db_addr = (uintptr_t)db,
			 .sq_wqe_count = sq_wqes,
			 .rq_wqe_count = rq_wqes,
			 .rq_wqe_shift = 4,
			 .uidx = 0 },
	};

	if (r->dynamic) {
		qp.drv.flags = MLX5_QP_FLAG_UAR_PAGE_INDEX;
		qp.drv.bfreg_index = r->uar_bf;
	}
	return qp;
}

struct uar_alloc_cmd raw_uar_alloc_cmd(uint32_t type, struct uar_alloc_out *o)
{
	struct uar_alloc_cmd c = {
		.hdr = { .length = sizeof(c),
			 .object_id = MLX5_IB_OBJECT_UAR,
			 .method_id = MLX5_IB_METHOD_UAR_OBJ_ALLOC,
			 .num_attrs = 5,
			 .driver_id = RDMA_DRIVER_MLX5 },
		.attr = {
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE,
			  .flags = UVERBS_ATTR_F_MANDATORY },
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE,
			  .len = 4,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = type },
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
			  .len = 8,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = (uintptr_t)&o->mmap_offset },
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
			  .len = 4,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = (uintptr_t)&o->mmap_length },
			{ .attr_id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
			  .len = 4,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = (uintptr_t)&o->page_id },
		},
	};

	return c;
}

void raw_native_create_cq_cmd(struct native_create_cq_cmd *c, void *buf,
			      void *db, uint32_t cqe, const struct raw_ctx *r)
{
	struct ib_uverbs_attr *a = c->attr;

	memset(c, 0, sizeof(*c));
	c->hdr = (struct ib_uverbs_ioctl_hdr){
		.length = sizeof(c->hdr) + sizeof(c->attr),
		.object_id = UVERBS_OBJECT_CQ,
		.method_id = UVERBS_METHOD_CQ_CREATE,
		.num_attrs = 7,
		.driver_id = RDMA_DRIVER_MLX5,
	};
	c->drv = (struct mlx5_ib_create_cq){ .buf_addr = (uintptr_t)buf,
					     .db_addr = (uintptr_t)db,
					     .cqe_size = 64 };
	if (r->dynamic) {
		c->drv.flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX;
		c->drv.uar_page_index = r->uar_nc;
	}
	a[0] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_CREATE_CQ_HANDLE,
					.flags = UVERBS_ATTR_F_MANDATORY };
	a[1] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_CREATE_CQ_CQE,
					.len = 4,
					.flags = UVERBS_ATTR_F_MANDATORY,
					.data = cqe };
	a[2] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
		.len = 8,
		.flags = UVERBS_ATTR_F_MANDATORY,
	};
	a[3] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
		.len = 4,
		.flags = UVERBS_ATTR_F_MANDATORY,
	};
	a[4] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_CREATE_CQ_RESP_CQE,
		.len = 4,
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = (uintptr_t)&c->resp_cqe,
	};
	a[5] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_UHW_IN,
					.len = sizeof(c->drv),
					.data = (uintptr_t)&c->drv };
	a[6] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_UHW_OUT,
					.len = sizeof(c->drv_resp),
					.data = (uintptr_t)&c->drv_resp };
}

uint32_t raw_native_cq_handle(const struct native_create_cq_cmd *c)
{
	return c->attr[0].data;
}

/* map what libmlx5 maps: the emulator then need not look for it */
static int raw_map_uar(struct raw_ctx *r, off_t off, size_t len)
{
	return mmap(NULL, len, PROT_WRITE, MAP_SHARED, r->fd, off) ==
			       MAP_FAILED ?
		       errno :
		       0;
}

static int raw_uar(struct raw_ctx *r, uint32_t type, uint32_t *page_id)
{
	struct uar_alloc_out o;
	struct uar_alloc_cmd c = raw_uar_alloc_cmd(type, &o);
	int err = raw_ioctl(r->fd, &c);

	*page_id = o.page_id;
	return err ? err : raw_map_uar(r, o.mmap_offset, o.mmap_length);
}

int raw_open(struct raw_ctx *r)
{
	struct get_context_resp ctx;
	struct create_cq_resp cq_resp;
	struct create_cq_cmd cq;
	uint32_t pd_resp[2];
	struct alloc_pd_cmd pd = raw_alloc_pd_cmd(pd_resp);
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = open(RAW_CDEV, O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return errno;
	/* and a guard page after it: "past the end" is never mapped */
	r->mem = mmap(NULL, (RAW_MEM_PAGES + 1) * RAW_PAGE,
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		      0);
	if (r->mem == MAP_FAILED ||
	    mprotect((char *)r->mem + RAW_MEM_PAGES * RAW_PAGE, RAW_PAGE,
		     PROT_NONE))
		return errno;
	err = raw_get_context(r->fd, &ctx);
	if (err)
		return err;
	r->async_fd = ctx.core.async_fd;
	r->dynamic = !ctx.drv.tot_bfregs;
	if (r->dynamic) {
		err = raw_uar(r, MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC, &r->uar_nc);
		if (!err)
			err = raw_uar(r, MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF,
				      &r->uar_bf);
		if (err)
			return err;
	} else {
		unsigned int i;

		/* static pages: command 0, page i at offset i */
		for (i = 0; i < ctx.drv.tot_bfregs / 2 && !err; i++)
			err = raw_map_uar(r, (off_t)i * RAW_PAGE, RAW_PAGE);
	}
	err = err ? err : raw_write(r->fd, &pd, sizeof(pd));
	if (err)
		return err;
	r->pd = pd_resp[0];
	/* 64 CQEs in the first page, the doorbell record in the second */
	cq = raw_create_cq_cmd(&cq_resp, r->mem, (char *)r->mem + RAW_PAGE, 63,
			       r);
	err = raw_write(r->fd, &cq, sizeof(cq));
	r->cq = cq_resp.core.cq_handle;
	return err;
}

void raw_close(struct raw_ctx *r)
{
	if (r->async_fd > 0)
		close(r->async_fd);
	if (r->fd >= 0)
		close(r->fd);
	if (r->mem && r->mem != MAP_FAILED)
		munmap(r->mem, (RAW_MEM_PAGES + 1) * RAW_PAGE);
}

void *raw_noaccess_page(void)
{
	return mmap(NULL, RAW_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
}

void *raw_readonly_page(void)
{
	return mmap(NULL, RAW_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
}
