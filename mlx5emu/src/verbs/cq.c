// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion channels and CQs. The CQ buffer and doorbell record are the
 * application's memory; the NIC finds a CQ by dev->cqs[cqn] and keeps its
 * producer index in its own nic_cq, never in the buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mlx5emu.h"

int emu_cmd_create_comp_channel(struct emu_context *ctx, struct emu_cmd *c)
{
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct emu_event_file *f;
	int fd;

	(void)ctx;
	f = emu_event_file_create(false, &fd);
	if (!f)
		return -EMFILE;
	resp.fd = fd;
	emu_cmd_reply(c, &resp, sizeof(resp));
	return 0;
}

/* mlx5_ib: a ring of roundup_pow2(cqe + 1) entries, within the device's */
static int cq_ring_entries(uint32_t cqe, uint32_t *ncqe)
{
	uint32_t max = 1U << emu_cfg.model->log_max_cq_sz;

	if ((int32_t)cqe < 1 || cqe > max)
		return -EINVAL;
	*ncqe = emu_roundup_pow2(cqe + 1);
	return *ncqe > max ? -EINVAL : 0;
}

int emu_cmd_create_cq(struct emu_context *ctx, struct emu_cmd *c)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct mlx5_ib_create_cq_resp dresp = {};
	struct mlx5_ib_create_cq ucmd = {};
	struct emu_device *dev = ctx->dev;
	uint64_t user_handle;
	uint32_t cqe, ncqe, comp_vector;
	int32_t channel_fd;
	struct emu_cq *cq;
	int ret;

	if (c->ex) {
		const struct ib_uverbs_ex_create_cq *req = c->req;

		if (req->comp_mask || req->reserved)
			return -EINVAL;
		if (req->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
			return -EOPNOTSUPP; /* no core clock advertised */
		if (req->flags & ~(IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION |
				   IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN))
			return -EOPNOTSUPP;
		user_handle = req->user_handle;
		cqe = req->cqe;
		comp_vector = req->comp_vector;
		channel_fd = req->comp_channel;
	} else {
		const struct ib_uverbs_create_cq *req = c->req;

		user_handle = req->user_handle;
		cqe = req->cqe;
		comp_vector = req->comp_vector;
		channel_fd = req->comp_channel;
	}
	if (comp_vector >= EMU_NUM_COMP_VECTORS)
		return -EINVAL;
	if (c->drv_req_len < offsetof(struct mlx5_ib_create_cq, flags))
		return -EINVAL;
	memcpy(&ucmd, c->drv_req,
	       c->drv_req_len < sizeof(ucmd) ? c->drv_req_len : sizeof(ucmd));
	ret = cq_ring_entries(cqe, &ncqe);
	if (ret)
		return ret;
	if (ucmd.cqe_size != 64 && ucmd.cqe_size != 128)
		return -EINVAL;
	if (ucmd.cqe_comp_en)
		return -EOPNOTSUPP; /* no cqe_comp_caps advertised */
	if (ucmd.flags & ~(MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return -EOPNOTSUPP;
	/* the umem and doorbell pinning of mlx5_ib: the NIC writes both */
	if (!emu_access_ok(ucmd.buf_addr, (uint64_t)ncqe * ucmd.cqe_size,
			   PROT_READ | PROT_WRITE) ||
	    !emu_access_ok(ucmd.db_addr, 2 * sizeof(uint32_t),
			   PROT_READ | PROT_WRITE))
		return -EFAULT;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	cq->ncqe = ncqe;
	cq->cqe_size = ucmd.cqe_size;
	cq->buf_addr = ucmd.buf_addr;
	cq->db_addr = ucmd.db_addr;
	cq->comp_vector = comp_vector;
	cq->uobj.user_handle = user_handle;
	if (channel_fd >= 0) {
		cq->channel = emu_fd_get(channel_fd, EMU_FD_EVENT);
		if (!cq->channel || cq->channel == ctx->async) {
			ret = -EINVAL;
			goto err_free;
		}
		emu_event_file_get(cq->channel);
	}
	ret = emu_uar_bind_cq(
		ctx, cq, ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX,
		ucmd.uar_page_index);
	if (ret)
		goto err_channel;
	pthread_mutex_lock(&dev->lock);
	ret = emu_table_alloc(&dev->cqs, cq, &cq->cqn);
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		goto err_uar;
	ret = emu_uobj_add(ctx, &cq->uobj, EMU_OBJ_CQ);
	if (ret)
		goto err_cqn;
	ret = nic_attach_cq(cq);
	if (ret) {
		emu_uobj_remove(ctx, &cq->uobj);
		goto err_cqn;
	}

	emu_trace(
		"ctx%u CREATE_CQ cqn=0x%x ncqe=%u cqe_size=%u uar page_id=0x%x%s",
		ctx->id, cq->cqn, cq->ncqe, cq->cqe_size, cq->uar->page_id,
		cq->channel ? " with channel" : "");
	resp.base.cq_handle = cq->uobj.handle;
	resp.base.cqe = cq->ncqe - 1;
	resp.response_length = c->resp_len;
	dresp.cqn = cq->cqn;
	emu_cmd_reply(c, &resp, c->resp_len);
	emu_cmd_reply_drv(c, &dresp, sizeof(dresp));
	return 0;

err_cqn:
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->cqs, cq->cqn);
	pthread_mutex_unlock(&dev->lock);
err_uar:
	emu_uar_unbind_cq(ctx, cq);
err_channel:
	if (cq->channel)
		emu_event_file_put(cq->channel);
err_free:
	free(cq);
	return ret;
}

/* mlx5_ib resize_cq(): the same bounds as create, a new user ring */
int emu_cmd_resize_cq(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_resize_cq *req = c->req;
	struct ib_uverbs_resize_cq_resp resp = {};
	struct mlx5_ib_resize_cq ucmd = {};
	uint32_t ncqe;
	struct emu_cq *cq = emu_cq_get(ctx, req->cq_handle);
	int ret;

	if (!cq)
		return -EINVAL;
	ret = cq_ring_entries(req->cqe, &ncqe);
	if (ret)
		return ret;
	if (ncqe != cq->ncqe) {
		if (c->drv_req_len < sizeof(ucmd))
			return -EINVAL;
		memcpy(&ucmd, c->drv_req, sizeof(ucmd));
		if (ucmd.reserved0 || ucmd.reserved1)
			return -EINVAL;
		if (ucmd.cqe_size != 64 && ucmd.cqe_size != 128)
			return -EINVAL;
		if (!emu_access_ok(ucmd.buf_addr,
				   (uint64_t)ncqe * ucmd.cqe_size,
				   PROT_READ | PROT_WRITE))
			return -EFAULT;
		ret = nic_resize_cq(cq, ucmd.buf_addr, ncqe, ucmd.cqe_size);
		if (ret)
			return ret;
		emu_trace("ctx%u RESIZE_CQ cqn=0x%x ncqe=%u -> %u", ctx->id,
			  cq->cqn, cq->ncqe, ncqe);
		cq->ncqe = ncqe;
		cq->cqe_size = ucmd.cqe_size;
		cq->buf_addr = ucmd.buf_addr;
	}
	resp.cqe = cq->ncqe - 1;
	emu_cmd_reply(c, &resp, sizeof(resp));
	return 0;
}

int emu_cq_destroy(struct emu_cq *cq, struct ib_uverbs_destroy_cq_resp *resp)
{
	struct emu_context *ctx = cq->uobj.ctx;
	struct emu_device *dev = ctx->dev;

	if (cq->uobj.usecnt)
		return -EBUSY;
	nic_detach_cq(cq);
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->cqs, cq->cqn);
	pthread_mutex_unlock(&dev->lock);
	emu_uobj_remove(ctx, &cq->uobj);
	if (cq->channel) {
		emu_event_drop(cq->channel, &cq->uobj);
		emu_event_file_put(cq->channel);
	}
	if (ctx->async)
		emu_event_drop(ctx->async, &cq->uobj);
	emu_uar_unbind_cq(ctx, cq);
	if (resp) {
		resp->comp_events_reported = cq->comp_events_reported;
		resp->async_events_reported = cq->async_events_reported;
	}
	free(cq);
	return 0;
}

int emu_cmd_destroy_cq(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_cq *req = c->req;
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct emu_cq *cq = emu_cq_get(ctx, req->cq_handle);
	int ret;

	if (!cq)
		return -EINVAL;
	ret = emu_cq_destroy(cq, &resp);
	if (ret)
		return ret;
	emu_cmd_reply(c, &resp, sizeof(resp));
	return 0;
}

struct emu_cq *emu_cq_lookup(struct emu_device *dev, uint32_t cqn)
{
	return emu_table_get(&dev->cqs, cqn);
}
