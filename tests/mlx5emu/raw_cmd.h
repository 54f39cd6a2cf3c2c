/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * uverbs commands built by hand (uAPI headers only, no libibverbs), as
 * libibverbs and libmlx5 build them: for the tests of the kernel edge.
 * Each builder fills a command buffer; raw_write()/raw_ioctl() send it.
 */
#ifndef MLX5EMU_RAW_CMD_H
#define MLX5EMU_RAW_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#define RAW_CDEV "/dev/infiniband/uverbs0"
#define RAW_PAGE 4096
#define RAW_MEM_PAGES 64 /* raw_ctx.mem, then a guard page */

struct get_context_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core;
	struct mlx5_ib_alloc_ucontext_req_v2 drv;
};

struct get_context_resp {
	struct ib_uverbs_get_context_resp core;
	struct mlx5_ib_alloc_ucontext_resp drv;
};

struct alloc_pd_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core;
};

struct reg_mr_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr core;
};

struct ex_query_device_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	struct ib_uverbs_ex_query_device core;
};

struct create_cq_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_cq core;
	struct mlx5_ib_create_cq drv;
};

struct create_cq_resp {
	struct ib_uverbs_create_cq_resp core;
	struct mlx5_ib_create_cq_resp drv;
};

struct create_qp_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core;
	struct mlx5_ib_create_qp drv;
};

struct create_qp_resp {
	struct ib_uverbs_create_qp_resp core;
	struct mlx5_ib_create_qp_resp drv;
};

/* MLX5_IB_METHOD_UAR_OBJ_ALLOC: handle, type, offset, length, page id */
struct uar_alloc_cmd {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attr[5];
};

/* CQ_CREATE, the native method (--transport=ioctl) */
struct native_create_cq_cmd {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attr[7];
	struct mlx5_ib_create_cq drv;
	struct mlx5_ib_create_cq_resp drv_resp;
	uint32_t resp_cqe;
};

struct uar_alloc_out {
	uint64_t mmap_offset;
	uint32_t mmap_length;
	uint32_t page_id;
};

/* an opened context with what the other commands need */
struct raw_ctx {
	int fd, async_fd;
	bool dynamic; /* UAR objects, not static bfregs */
	uint32_t pd, cq;
	uint32_t uar_nc, uar_bf; /* dynamic: page ids */
	void *mem; /* pages for rings and doorbell records */
};

struct get_context_cmd raw_get_context_cmd(struct get_context_resp *resp);
struct alloc_pd_cmd raw_alloc_pd_cmd(uint32_t *resp);
struct ex_query_device_cmd raw_ex_query_device_cmd(void *resp);
struct reg_mr_cmd raw_reg_mr_cmd(uint32_t *resp, uint32_t pd, void *start,
				 uint64_t len, uint32_t access);
struct create_cq_cmd raw_create_cq_cmd(struct create_cq_resp *resp, void *buf,
				       void *db, uint32_t cqe,
				       const struct raw_ctx *r);
struct create_qp_cmd raw_create_qp_cmd(struct create_qp_resp *resp,
				       const struct raw_ctx *r, void *buf,
				       void *db, uint32_t sq_wqes,
				       uint32_t rq_wqes);
struct uar_alloc_cmd raw_uar_alloc_cmd(uint32_t type, struct uar_alloc_out *o);
/* fills c (whose attributes point into it) for a CQ of cqe entries */
void raw_native_create_cq_cmd(struct native_create_cq_cmd *c, void *buf,
			      void *db, uint32_t cqe, const struct raw_ctx *r);
/* the handle a successful native create put in its handle attribute */
uint32_t raw_native_cq_handle(const struct native_create_cq_cmd *c);

/* 0 or the errno of write()/ioctl() */
int raw_write(int fd, const void *cmd, size_t len);
int raw_ioctl(int fd, void *cmd);
int raw_get_context(int fd, struct get_context_resp *resp);

/* open a context with a PD, a CQ (and UAR pages); 0 or an errno */
int raw_open(struct raw_ctx *r);
void raw_close(struct raw_ctx *r);

/* a page mapped without access (kept: never reused), a read-only page */
void *raw_noaccess_page(void);
void *raw_readonly_page(void);

#endif
