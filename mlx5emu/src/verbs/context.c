// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The uverbs file and its ucontext: open() of the cdev, GET_CONTEXT,
 * the device/port queries, the uobject handle table, and close() tearing
 * everything down in dependency order (ib_uverbs_cleanup_ufile).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mlx5emu.h"

static uint32_t next_ctx_id;

struct emu_context *emu_context_open(unsigned int index, int flags)
{
	struct emu_device *dev = &emu_devices[index];
	struct emu_context *ctx;
	int fd;

	emu_init();
	if ((flags & O_ACCMODE) != O_RDWR) {
		/* libibverbs always opens O_RDWR; anything else is not us */
		errno = EACCES;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	fd = memfd_create("mlx5emu-uverbs",
			  (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0 || fd >= EMU_MAX_FDS) {
		if (fd >= 0)
			emu_libc.close(fd);
		free(ctx);
		errno = EMFILE;
		return NULL;
	}
	ctx->dev = dev;
	ctx->fd = fd;
	ctx->pid = getpid();
	ctx->id = __atomic_add_fetch(&next_ctx_id, 1, __ATOMIC_RELAXED);
	pthread_mutex_init(&ctx->lock, NULL);
	emu_list_init(&ctx->uar_pages);
	emu_list_init(&ctx->stat_pages);
	emu_list_init(&ctx->stat_qps);
	emu_list_init(&ctx->stat_node);

	pthread_mutex_lock(&dev->lock);
	emu_list_add_tail(&dev->contexts, &ctx->node);
	pthread_mutex_unlock(&dev->lock);
	emu_fd_set(fd, EMU_FD_CMD, ctx);
	emu_trace("ctx%u open %s fd=%d", ctx->id, dev->name, fd);
	return ctx;
}

/* destroy every uobject of one type, ignoring the in-use checks */
static void destroy_all(struct emu_context *ctx, enum emu_obj_type type)
{
	uint32_t i;

	for (i = 0; i < ctx->handles.nslots; i++) {
		struct emu_uobj *u = emu_table_get(&ctx->handles, i);

		if (!u || u->type != type)
			continue;
		u->usecnt = 0;
		switch (type) {
		case EMU_OBJ_QP:
			emu_qp_destroy(container_of(u, struct emu_qp, uobj),
				       NULL);
			break;
		case EMU_OBJ_SRQ:
			emu_srq_destroy(container_of(u, struct emu_srq, uobj),
					NULL);
			break;
		case EMU_OBJ_CQ:
			emu_cq_destroy(container_of(u, struct emu_cq, uobj),
				       NULL);
			break;
		case EMU_OBJ_MR:
			emu_mr_destroy(container_of(u, struct emu_mr, uobj));
			break;
		case EMU_OBJ_PD:
			emu_pd_destroy(container_of(u, struct emu_pd, uobj));
			break;
		case EMU_OBJ_UAR:
			emu_uar_obj_destroy(
				container_of(u, struct emu_uar_page, uobj));
			break;
		}
	}
}

void emu_context_close(struct emu_context *ctx)
{
	struct emu_device *dev = ctx->dev;
	struct emu_event_file *async;

	emu_fd_clear(ctx->fd);
	emu_uar_forget_maps(ctx);
	pthread_mutex_lock(&ctx->lock);
	destroy_all(ctx, EMU_OBJ_QP);
	destroy_all(ctx, EMU_OBJ_SRQ);
	destroy_all(ctx, EMU_OBJ_CQ);
	destroy_all(ctx, EMU_OBJ_MR);
	destroy_all(ctx, EMU_OBJ_PD);
	destroy_all(ctx, EMU_OBJ_UAR);
	emu_uar_context_fini(ctx);
	emu_table_destroy(&ctx->handles);
	/* device-wide events (a port's) look for it under dev->lock */
	pthread_mutex_lock(&dev->lock);
	async = ctx->async;
	__atomic_store_n(&ctx->async, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&dev->lock);
	if (async)
		emu_event_file_put(async);
	if (ctx->ucontext)
		emu_stat_del_ctx(ctx);
	pthread_mutex_unlock(&ctx->lock);

	pthread_mutex_lock(&dev->lock);
	emu_list_del(&ctx->node);
	pthread_mutex_unlock(&dev->lock);
	emu_trace("ctx%u close", ctx->id);
	emu_libc.close(ctx->fd);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

int emu_uobj_add(struct emu_context *ctx, struct emu_uobj *uobj,
		 enum emu_obj_type type)
{
	uobj->type = type;
	uobj->ctx = ctx;
	return emu_table_alloc(&ctx->handles, uobj, &uobj->handle);
}

struct emu_uobj *emu_uobj_get(struct emu_context *ctx, uint32_t handle,
			      enum emu_obj_type type)
{
	struct emu_uobj *u = emu_table_get(&ctx->handles, handle);

	return u && u->type == type ? u : NULL;
}

void emu_uobj_remove(struct emu_context *ctx, struct emu_uobj *uobj)
{
	emu_table_remove(&ctx->handles, uobj->handle);
}

/* ------------------------------------------------------------------ */

/*
 * The answer to a command: as much of the response as the caller has room
 * for (copy_to_user of ib_copy_to_udata(), min of the two lengths), and
 * nothing if it gave no buffer.
 */
void emu_cmd_reply(const struct emu_cmd *c, const void *resp, size_t len)
{
	if (c->resp)
		memcpy(c->resp, resp, c->resp_len < len ? c->resp_len : len);
}

/* the driver's (UHW) part of the answer, likewise */
void emu_cmd_reply_drv(const struct emu_cmd *c, const void *resp, size_t len)
{
	if (c->drv_resp)
		memcpy(c->drv_resp, resp,
		       c->drv_resp_len < len ? c->drv_resp_len : len);
}

int emu_cmd_get_context(struct emu_context *ctx, struct emu_cmd *c)
{
	struct mlx5_ib_alloc_ucontext_resp dresp = {};
	struct mlx5_ib_alloc_ucontext_req_v2 req = {};
	struct ib_uverbs_get_context_resp resp = {};
	const uint8_t *tail;
	size_t len, i;
	int ret, fd;

	if (ctx->ucontext)
		return -EINVAL;
	/* mlx5_ib_alloc_ucontext(): v1 is 8 bytes, v2 at least 16 */
	if (c->drv_req_len == 8)
		ctx->uctx_ver = 0;
	else if (c->drv_req_len >= offsetof(typeof(req), max_cqe_version))
		ctx->uctx_ver = 2;
	else
		return -EINVAL;
	len = c->drv_req_len < sizeof(req) ? c->drv_req_len : sizeof(req);
	memcpy(&req, c->drv_req, len);
	tail = (const uint8_t *)c->drv_req + len;
	for (i = len; i < c->drv_req_len; i++, tail++)
		if (*tail)
			return -EOPNOTSUPP;
	if (req.flags & ~MLX5_IB_ALLOC_UCTX_DEVX)
		return -EOPNOTSUPP;
	/*
	 * no DEVX: mlx5_ib_devx_create() on a function without log_max_uctx;
	 * libmlx5 then opens without it, mlx5dv_open_device(DEVX) fails
	 */
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX)
		return -EINVAL;
	if (req.comp_mask || req.reserved0 || req.reserved1 || req.reserved2)
		return -EOPNOTSUPP;

	ret = emu_uar_context_init(ctx, &req, len, &dresp);
	ret = ret ?: emu_clock_info_init(ctx);
	if (ret) {
		emu_uar_context_fini(ctx);
		return ret;
	}
	/* the ioctl GET_CONTEXT leaves the async fd to ASYNC_EVENT_ALLOC */
	fd = -1;
	if (!c->native) {
		ctx->async = emu_event_file_create(true, &fd);
		if (!ctx->async) {
			emu_uar_context_fini(ctx);
			return -EMFILE;
		}
		/* the context holds its own reference besides the fd's */
		emu_event_file_get(ctx->async);
	}

	dresp.qp_tab_size = 1U << emu_cfg.model->log_max_qp;
	dresp.bf_reg_size = 512;
	dresp.cache_line_size = 64;
	dresp.max_sq_desc_sz = 1024;
	dresp.max_rq_desc_sz = 512;
	dresp.max_send_wqebb = 1U << emu_cfg.model->log_max_qp_sz;
	dresp.max_recv_wr = 1U << emu_cfg.model->log_max_qp_sz;
	dresp.max_srq_recv_wr = 1U << emu_cfg.model->log_max_qp_sz;
	dresp.num_ports = emu_cfg.nports;
	dresp.clock_info_versions = 1 << MLX5_IB_CLOCK_INFO_V1;
	dresp.cqe_version = req.max_cqe_version < 1 ? req.max_cqe_version : 1;
	ctx->cqe_version = dresp.cqe_version;
	dresp.cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_QUERY_DEVICE |
			      MLX5_USER_CMDS_SUPP_UHW_CREATE_AH;
	dresp.response_length = c->drv_resp_len < sizeof(dresp) ?
					c->drv_resp_len :
					sizeof(dresp);
	resp.async_fd = fd;
	resp.num_comp_vectors = EMU_NUM_COMP_VECTORS;
	emu_cmd_reply(c, &resp, sizeof(resp));
	emu_cmd_reply_drv(c, &dresp, sizeof(dresp));
	ctx->ucontext = true;
	emu_stat_add_ctx(ctx);
	emu_trace(
		"ctx%u GET_CONTEXT %s tot_bfregs=%u num_dyn_bfregs=%u nupp=%u async_fd=%d",
		ctx->id, ctx->uar_mode == EMU_UAR_STATIC ? "static" : "dynamic",
		ctx->tot_bfregs, ctx->num_dyn_bfregs, ctx->nupp, fd);
	return 0;
}

int emu_cmd_query_device(struct emu_context *ctx, struct emu_cmd *c)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct mlx5_ib_query_device_resp dresp = {};

	emu_fill_query_device(ctx->dev, &resp.base);
	if (!c->ex) {
		emu_cmd_reply(c, &resp.base, sizeof(resp.base));
		return 0;
	}
	{
		const struct ib_uverbs_ex_query_device *req = c->req;

		if (req->comp_mask || req->reserved)
			return -EINVAL;
	}
	resp.device_cap_flags_ex = resp.base.device_cap_flags;
	resp.response_length = c->resp_len;
	emu_cmd_reply(c, &resp, sizeof(resp));
	if (c->drv_resp_len) {
		dresp.response_length = c->drv_resp_len < sizeof(dresp) ?
						c->drv_resp_len :
						sizeof(dresp);
		emu_cmd_reply_drv(c, &dresp, sizeof(dresp));
	}
	return 0;
}

int emu_cmd_query_port(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_query_port *req = c->req;
	struct ib_uverbs_query_port_resp resp;
	int ret;

	ret = emu_query_port(ctx->dev, req->port_num, &resp);
	if (ret)
		return ret;
	emu_cmd_reply(c, &resp, sizeof(resp));
	return 0;
}
