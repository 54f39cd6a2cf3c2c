// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Basic SRQs (mlx5_ib srq.c): the ring lives in the application's buffer,
 * its WQEs linked by next_wqe_index; the NIC follows the links and takes
 * a WQE per message. The limit is armed by MODIFY_SRQ and fires once
 * (IBV_EVENT_SRQ_LIMIT_REACHED), then reads 0 again. XRC SRQs and resize
 * are not supported, as on a device without those capabilities.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mlx5emu.h"

#define SRQ_NEXT_SEG 16 /* struct mlx5_wqe_srq_next_seg */
#define SRQ_DATA_SEG 16 /* struct mlx5_wqe_data_seg */
#define SRQ_MIN_STRIDE 32
#define EMU_DEFAULT_UIDX 0xffffff

enum {
	SRQ_ATTR_MAX_WR = 1 << 0, /* IB_SRQ_MAX_WR: resize */
	SRQ_ATTR_LIMIT = 1 << 1,
};

int emu_cmd_create_srq(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_create_srq *req = c->req;
	struct ib_uverbs_create_srq_resp resp = {};
	struct mlx5_ib_create_srq_resp dresp = {};
	uint32_t max_wr = (1U << emu_cfg.model->log_max_qp_sz) - 1;
	struct mlx5_ib_create_srq ucmd = {};
	struct emu_device *dev = ctx->dev;
	uint32_t stride, index;
	struct emu_srq *srq;
	int ret;

	if (req->max_wr >= max_wr || req->max_sge > EMU_SRQ_MAX_SGE) {
		emu_trace("ctx%u CREATE_SRQ: max_wr %u max_sge %u too large",
			  ctx->id, req->max_wr, req->max_sge);
		return -EINVAL;
	}
	if (c->drv_req_len < offsetof(struct mlx5_ib_create_srq, uidx))
		return -EINVAL;
	memcpy(&ucmd, c->drv_req,
	       c->drv_req_len < sizeof(ucmd) ? c->drv_req_len : sizeof(ucmd));
	if (c->drv_req_len < offsetof(struct mlx5_ib_create_srq, reserved1))
		ucmd.uidx = EMU_DEFAULT_UIDX;
	if (ucmd.flags & ~MLX5_SRQ_FLAG_SIGNATURE)
		return -EOPNOTSUPP;
	/* the user index of a basic SRQ follows the CQE version */
	if (!!ctx->cqe_version ^ (ucmd.uidx != EMU_DEFAULT_UIDX))
		return -EINVAL;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return -ENOMEM;
	srq->pd = emu_pd_get(ctx, req->pd_handle);
	if (!srq->pd) {
		ret = -EINVAL;
		goto err_free;
	}
	/* the WQE layout libmlx5 computed the same way */
	stride = SRQ_NEXT_SEG + req->max_sge * SRQ_DATA_SEG;
	stride = emu_roundup_pow2(stride < SRQ_MIN_STRIDE ? SRQ_MIN_STRIDE :
							    stride);
	srq->wqe_shift = __builtin_ctz(stride);
	srq->max_sge = (stride - SRQ_NEXT_SEG) / SRQ_DATA_SEG;
	srq->nwqe = emu_roundup_pow2(req->max_wr + 1);
	srq->buf_addr = ucmd.buf_addr;
	srq->db_addr = ucmd.db_addr;
	/* pinned: the NIC reads the ring and the doorbell record */
	if (!emu_access_ok(srq->buf_addr, (uint64_t)srq->nwqe << srq->wqe_shift,
			   PROT_READ) ||
	    !emu_access_ok(srq->db_addr, sizeof(uint32_t), PROT_READ)) {
		ret = -EFAULT;
		goto err_free;
	}
	srq->uobj.user_handle = req->user_handle;

	pthread_mutex_lock(&dev->lock);
	ret = emu_table_alloc(&dev->srqs, srq, &index);
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		goto err_free;
	srq->srqn = index + 1; /* 0 in a CQE means "no SRQ" */
	ret = emu_uobj_add(ctx, &srq->uobj, EMU_OBJ_SRQ);
	if (ret)
		goto err_srqn;
	ret = nic_attach_srq(srq);
	if (ret) {
		emu_uobj_remove(ctx, &srq->uobj);
		goto err_srqn;
	}
	srq->pd->uobj.usecnt++;

	resp.srq_handle = srq->uobj.handle;
	resp.max_wr = srq->nwqe - 1;
	resp.max_sge = srq->max_sge;
	resp.srqn = srq->srqn;
	dresp.srqn = srq->srqn;
	emu_cmd_reply(c, &resp, sizeof(resp));
	emu_cmd_reply_drv(c, &dresp, sizeof(dresp));
	emu_trace("ctx%u CREATE_SRQ srqn=0x%x wqes=%u stride=%u", ctx->id,
		  srq->srqn, srq->nwqe, stride);
	return 0;

err_srqn:
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->srqs, index);
	pthread_mutex_unlock(&dev->lock);
err_free:
	free(srq);
	return ret;
}

int emu_cmd_modify_srq(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_modify_srq *req = c->req;
	struct emu_srq *srq = emu_srq_get(ctx, req->srq_handle);

	if (!srq)
		return -EINVAL;
	/* no resize: mlx5_ib answers EINVAL to IB_SRQ_MAX_WR */
	if (req->attr_mask & ~SRQ_ATTR_LIMIT)
		return -EINVAL;
	if (!(req->attr_mask & SRQ_ATTR_LIMIT))
		return 0;
	if (req->srq_limit >= srq->nwqe)
		return -EINVAL;
	srq->limit = req->srq_limit;
	nic_arm_srq(srq);
	return 0;
}

int emu_cmd_query_srq(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_query_srq *req = c->req;
	struct ib_uverbs_query_srq_resp resp = {};
	struct emu_srq *srq = emu_srq_get(ctx, req->srq_handle);

	if (!srq)
		return -EINVAL;
	resp.max_wr = srq->nwqe - 1;
	resp.max_sge = srq->max_sge;
	/* the NIC clears it when the event fires */
	resp.srq_limit = __atomic_load_n(&srq->limit, __ATOMIC_RELAXED);
	emu_cmd_reply(c, &resp, sizeof(resp));
	return 0;
}

int emu_srq_destroy(struct emu_srq *srq,
		    struct ib_uverbs_destroy_srq_resp *resp)
{
	struct emu_context *ctx = srq->uobj.ctx;
	struct emu_device *dev = ctx->dev;

	if (srq->uobj.usecnt)
		return -EBUSY;
	nic_detach_srq(srq);
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->srqs, srq->srqn - 1);
	pthread_mutex_unlock(&dev->lock);
	emu_uobj_remove(ctx, &srq->uobj);
	/* unread events go; ibv_destroy_srq waits for those it was told of */
	if (ctx->async)
		emu_event_drop(ctx->async, &srq->uobj);
	srq->pd->uobj.usecnt--;
	if (resp)
		resp->events_reported = srq->events_reported;
	free(srq);
	return 0;
}

int emu_cmd_destroy_srq(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_srq *req = c->req;
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct emu_srq *srq = emu_srq_get(ctx, req->srq_handle);
	int ret;

	if (!srq)
		return -EINVAL;
	ret = emu_srq_destroy(srq, &resp);
	if (!ret)
		emu_cmd_reply(c, &resp, sizeof(resp));
	return ret;
}
