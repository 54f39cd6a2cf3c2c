// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UAR pages and bfregs, as mlx5_ib hands them out:
 *  - static mode (the 2018 kernels, contract profile W): tot_bfregs static
 *    bfregs allocated at GET_CONTEXT, the kernel picks a bfreg for each QP
 *    (alloc_bfreg), TD pages come from ALLOC_WC mmaps;
 *  - dynamic mode (profile H): nothing at GET_CONTEXT, pages are UAR
 *    objects (UAR_OBJ_ALLOC ioctl) named by their HW index.
 * Every page lives in the context's memfd at the very offset libmlx5
 * passes to mmap(), so the application's mapping and the emulator's alias
 * see the same bytes even when the application's mmap() reaches the
 * kernel without us (UCX's bistro hooks): the bookkeeping then follows
 * /proc/self/maps (emu_uar_sync()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mlx5emu.h"

#define EMU_INVALID_BFREG_RESP (1U << 31)

/* ------------------------------------------------------------------ */
/* where pages live in the memfd                                       */

/* libmlx5's encoding: command in bits 8-15, index in 0-7 and 16-23 */
static uint64_t mmap_pgoff(uint32_t cmd, uint32_t idx)
{
	return ((uint64_t)(idx >> 8) << 16) | (cmd << EMU_MMAP_CMD_SHIFT) |
	       (idx & 0xff);
}

int emu_uar_grow_file(struct emu_context *ctx, uint64_t end)
{
	if (end <= ctx->file_size)
		return 0;
	if (ftruncate(ctx->fd, end))
		return -ENOMEM;
	ctx->file_size = end;
	return 0;
}

/* entry slots of UAR objects: slot i is mmap command 9, index i * npages */

static int slot_alloc(struct emu_context *ctx, uint32_t *slot)
{
	uint32_t i;

	for (i = 0; i < ctx->nslots; i++)
		if (!ctx->slot_used[i])
			break;
	if (i == ctx->nslots) {
		uint32_t n = ctx->nslots ? ctx->nslots * 2 : 16;
		uint8_t *used = realloc(ctx->slot_used, n);

		if (!used)
			return -ENOMEM;
		memset(used + ctx->nslots, 0, n - ctx->nslots);
		ctx->slot_used = used;
		ctx->nslots = n;
	}
	ctx->slot_used[i] = 1;
	*slot = i;
	return 0;
}

static void slot_free(struct emu_context *ctx, uint32_t slot)
{
	ctx->slot_used[slot] = 0;
}

static uint64_t page_file_off(struct emu_context *ctx, enum emu_uar_kind kind,
			      uint32_t index, uint32_t slot)
{
	switch (kind) {
	case EMU_UAR_KIND_STATIC:
		return mmap_pgoff(MLX5_IB_MMAP_REGULAR_PAGE, index) *
		       emu_page_size();
	case EMU_UAR_KIND_ALLOC_WC:
		return mmap_pgoff(MLX5_IB_MMAP_ALLOC_WC, index) *
		       emu_page_size();
	default:
		return mmap_pgoff(EMU_MMAP_DYN_CMD,
				  slot * (ctx->slot_size / emu_page_size())) *
		       emu_page_size();
	}
}

/* ------------------------------------------------------------------ */
/* pages                                                               */

/*
 * The HW UAR allocation: a per-context limit (what --uar-limit models) or
 * the function running out of UARs both surface as the firmware's
 * "limits exceeded", which mlx5_core turns into ENOMEM.
 */
int emu_uar_page_new(struct emu_context *ctx, enum emu_uar_kind kind,
		     uint32_t index, struct emu_uar_page **out)
{
	uint32_t nuars = ctx->nupp;
	struct emu_uar_page *pg;
	int ret;

	if (emu_cfg.uar_limit && ctx->nr_uars + nuars > emu_cfg.uar_limit)
		return -ENOMEM;
	pg = calloc(1, sizeof(*pg));
	if (!pg)
		return -ENOMEM;
	pg->kind = kind;
	pg->index = index;
	pg->nuars = nuars;
	pg->len = (size_t)nuars * EMU_ADAPTER_PAGE;
	if (pg->len < emu_page_size())
		pg->len = emu_page_size();
	pg->page_id = emu_dev_alloc_uar_id(ctx->dev, nuars);
	if (!pg->page_id) {
		ret = -ENOMEM;
		goto err_free;
	}
	pg->slot = UINT32_MAX;
	if (kind == EMU_UAR_KIND_OBJ_BF || kind == EMU_UAR_KIND_OBJ_NC) {
		ret = slot_alloc(ctx, &pg->slot);
		if (ret)
			goto err_id;
	}
	pg->file_off = page_file_off(ctx, kind, index, pg->slot);
	if (pg->slot != UINT32_MAX)
		pg->mmap_offset = pg->file_off;
	ret = emu_uar_grow_file(ctx, pg->file_off + pg->len);
	if (ret)
		goto err_slot;
	pg->alias = emu_libc.mmap(NULL, pg->len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, ctx->fd, pg->file_off);
	if (pg->alias == MAP_FAILED) {
		ret = -ENOMEM;
		goto err_slot;
	}
	pg->uobj.ctx = ctx;
	pg->uobj.type = EMU_OBJ_UAR;
	ctx->nr_uars += nuars;
	emu_list_add_tail(&ctx->uar_pages, &pg->node);
	emu_stat_add_page(pg);
	*out = pg;
	return 0;

err_slot:
	if (pg->slot != UINT32_MAX)
		slot_free(ctx, pg->slot);
err_id:
	emu_dev_free_uar_id(ctx->dev, pg->page_id, nuars);
err_free:
	free(pg);
	return ret;
}

static void page_release(struct emu_uar_page *pg)
{
	struct emu_context *ctx = pg->uobj.ctx;

	emu_uar_forget_page_maps(ctx, pg);
	emu_stat_del_page(pg);
	emu_list_del(&pg->node);
	emu_libc.munmap(pg->alias, pg->len);
	/* give the memory back; the size of the file stays */
	fallocate(ctx->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  pg->file_off, pg->len);
	if (pg->slot != UINT32_MAX)
		slot_free(ctx, pg->slot);
	emu_dev_free_uar_id(ctx->dev, pg->page_id, pg->nuars);
	ctx->nr_uars -= pg->nuars;
	free(pg);
}

void emu_uar_refused(struct emu_context *ctx, const char *what, int err)
{
	ctx->uar_refused++;
	ctx->uar_refused_what = what;
	ctx->uar_refused_errno = -err;
}

/* A destroyed UAR object lives on while mapped or named by a QP/CQ. */
void emu_uar_page_put(struct emu_uar_page *pg)
{
	if (pg->destroyed && !pg->app_maps && !pg->nqps && !pg->ncqs)
		page_release(pg);
}

struct emu_uar_page *emu_uar_find(struct emu_context *ctx, uint32_t page_id)
{
	struct emu_list *pos, *tmp;

	emu_list_for_each_safe(pos, tmp, &ctx->uar_pages)
	{
		struct emu_uar_page *pg =
			container_of(pos, struct emu_uar_page, node);

		if (!pg->destroyed && page_id >= pg->page_id &&
		    page_id < pg->page_id + pg->nuars)
			return pg;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* GET_CONTEXT and close                                               */

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

int emu_uar_context_init(struct emu_context *ctx,
			 const struct mlx5_ib_alloc_ucontext_req_v2 *req,
			 size_t req_len,
			 struct mlx5_ib_alloc_ucontext_resp *resp)
{
	uint32_t per_page, i;
	bool dyn;
	int ret;

	ctx->slot_size = emu_page_size();
	ctx->nupp = 1;
	dyn = emu_cfg.uar_mode == EMU_UAR_DYNAMIC &&
	      req_len >= offsetof(typeof(*req), lib_caps) +
				 sizeof(req->lib_caps) &&
	      (req->lib_caps & MLX5_LIB_CAP_DYN_UAR);
	if (dyn) {
		ctx->uar_mode = EMU_UAR_DYNAMIC;
		ctx->nupp = emu_cfg.uars_per_page;
		if ((size_t)ctx->nupp * EMU_ADAPTER_PAGE > ctx->slot_size)
			ctx->slot_size = (size_t)ctx->nupp * EMU_ADAPTER_PAGE;
		resp->num_uars_per_page = ctx->nupp;
		resp->log_uar_size = 12;
		return 0;
	}

	/* mlx5_ib calc_total_bfregs() */
	ctx->uar_mode = EMU_UAR_STATIC;
	per_page = ctx->nupp * EMU_NON_FP_BFREGS_PER_UAR;
	if (!req->total_num_bfregs)
		return -EINVAL;
	if (req->total_num_bfregs > EMU_MAX_BFREGS)
		return -ENOMEM;
	ctx->tot_bfregs = align_up(req->total_num_bfregs, per_page);
	if (req->num_low_latency_bfregs > ctx->tot_bfregs - 1)
		return -EINVAL;
	ctx->low_lat_bfregs = req->num_low_latency_bfregs;
	ctx->num_static_pages = ctx->tot_bfregs / per_page;
	ctx->num_dyn_bfregs = align_up(emu_cfg.dyn_bfregs, per_page);
	ctx->num_dyn_pages = ctx->num_dyn_bfregs / per_page;

	ctx->bfreg_count = calloc(ctx->tot_bfregs, sizeof(uint32_t));
	ctx->static_pages =
		calloc(ctx->num_static_pages, sizeof(*ctx->static_pages));
	ctx->wc_pages = calloc(ctx->num_dyn_pages ?: 1, sizeof(*ctx->wc_pages));
	if (!ctx->bfreg_count || !ctx->static_pages || !ctx->wc_pages)
		return -ENOMEM;
	/*
	 * ALLOC_WC pages come into being by the mmap itself: the file covers
	 * them all, so that an mmap we never see still finds memory there
	 */
	if (ctx->num_dyn_pages &&
	    emu_uar_grow_file(ctx, (mmap_pgoff(MLX5_IB_MMAP_ALLOC_WC,
					       ctx->num_dyn_pages - 1) +
				    1) * emu_page_size()))
		return -ENOMEM;
	for (i = 0; i < ctx->num_static_pages; i++) {
		ret = emu_uar_page_new(ctx, EMU_UAR_KIND_STATIC, i,
				       &ctx->static_pages[i]);
		if (ret)
			return ret; /* the caller's fini frees what exists */
	}

	resp->tot_bfregs = ctx->tot_bfregs;
	resp->num_dyn_bfregs = ctx->num_dyn_bfregs;
	resp->num_uars_per_page = ctx->nupp;
	resp->log_uar_size = 12;
	return 0;
}

void emu_uar_context_fini(struct emu_context *ctx)
{
	struct emu_list *pos, *tmp;

	emu_list_for_each_safe(pos, tmp, &ctx->uar_pages)
		page_release(container_of(pos, struct emu_uar_page, node));
	free(ctx->bfreg_count);
	free(ctx->static_pages);
	free(ctx->wc_pages);
	free(ctx->slot_used);
	ctx->bfreg_count = NULL;
	ctx->static_pages = NULL;
	ctx->wc_pages = NULL;
	ctx->slot_used = NULL;
	ctx->nslots = 0;
}

/* ------------------------------------------------------------------ */
/* UAR objects (dynamic mode)                                          */

int emu_uar_obj_alloc(struct emu_context *ctx, uint32_t type,
		      struct emu_uar_page **out)
{
	struct emu_uar_page *pg;
	int ret;

	if (type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF &&
	    type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC)
		return -EOPNOTSUPP;
	if (ctx->uar_mode != EMU_UAR_DYNAMIC)
		return -EOPNOTSUPP;
	ret = emu_uar_page_new(ctx,
			       type == MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF ?
				       EMU_UAR_KIND_OBJ_BF :
				       EMU_UAR_KIND_OBJ_NC,
			       0, &pg);
	if (ret) {
		emu_uar_refused(ctx, "uar_obj_alloc", ret);
		emu_stat_changed();
		return ret;
	}
	ret = emu_uobj_add(ctx, &pg->uobj, EMU_OBJ_UAR);
	if (ret) {
		page_release(pg);
		return ret;
	}
	emu_stat_changed();
	*out = pg;
	return 0;
}

int emu_uar_obj_destroy(struct emu_uar_page *pg)
{
	emu_uobj_remove(pg->uobj.ctx, &pg->uobj);
	pg->destroyed = true;
	emu_uar_page_put(pg);
	emu_stat_changed();
	return 0;
}

/* ------------------------------------------------------------------ */
/* bfregs for QPs and CQs                                              */

/* mlx5_ib: bfreg 0 is doorbell-only, then medium (shared), then high
 * class (dedicated) at the top */
static uint32_t num_med_bfregs(struct emu_context *ctx)
{
	int n = (int)ctx->tot_bfregs - (int)ctx->low_lat_bfregs - 1;

	return n > 0 ? n : 0;
}

static int alloc_bfreg(struct emu_context *ctx)
{
	uint32_t first_hi = num_med_bfregs(ctx) + 1, i, min;

	if (ctx->uctx_ver >= 2) {
		for (i = first_hi; i < ctx->tot_bfregs; i++) {
			if (!ctx->bfreg_count[i]) {
				ctx->bfreg_count[i]++;
				return i;
			}
		}
		if (num_med_bfregs(ctx)) {
			min = 1;
			for (i = 1; i < first_hi; i++) {
				if (ctx->bfreg_count[i] < ctx->bfreg_count[min])
					min = i;
				if (!ctx->bfreg_count[min])
					break;
			}
			ctx->bfreg_count[min]++;
			return min;
		}
	}
	ctx->bfreg_count[0]++;
	return 0;
}

int emu_uar_bind_qp(struct emu_context *ctx, struct emu_qp *qp)
{
	uint32_t per_page = ctx->nupp * EMU_NON_FP_BFREGS_PER_UAR;
	struct emu_uar_page *pg;
	uint32_t idx = qp->bfreg_index;

	qp->bfregn = EMU_INVALID_BFREG;
	if (qp->mlx5_flags & MLX5_QP_FLAG_BFREG_INDEX) {
		/* bfregn_to_uar_index(dyn=true) */
		if (ctx->uar_mode == EMU_UAR_DYNAMIC ||
		    idx >= ctx->num_dyn_bfregs)
			return -EINVAL;
		pg = ctx->wc_pages[idx / per_page];
		if (!pg) {
			/* its TD's page may have been mapped behind our back */
			emu_uar_sync_locked(ctx);
			pg = ctx->wc_pages[idx / per_page];
			if (!pg)
				return -EINVAL;
			ctx->maps_unseen = true;
		}
		qp->uar_how = EMU_QP_UAR_BFREG_INDEX;
		qp->uar_id = pg->page_id + (idx % per_page) / 2;
		qp->bfreg_index = EMU_INVALID_BFREG_RESP;
	} else if (qp->mlx5_flags & MLX5_QP_FLAG_UAR_PAGE_INDEX) {
		pg = emu_uar_find(ctx, idx);
		if (!pg)
			return -EINVAL;
		qp->uar_how = EMU_QP_UAR_PAGE_INDEX;
		qp->uar_id = idx;
		qp->bfreg_index = EMU_INVALID_BFREG_RESP;
	} else {
		if (ctx->uar_mode == EMU_UAR_DYNAMIC)
			return -EINVAL;
		qp->bfregn = alloc_bfreg(ctx);
		pg = ctx->static_pages[qp->bfregn / per_page];
		qp->uar_how = EMU_QP_UAR_STATIC_BFREG;
		qp->uar_id = pg->page_id + (qp->bfregn % per_page) / 2;
		/* the gross index libmlx5 uses for ctx->bfs[] */
		qp->bfreg_index = qp->bfregn / EMU_NON_FP_BFREGS_PER_UAR *
					  EMU_BFREGS_PER_UAR +
				  qp->bfregn % EMU_NON_FP_BFREGS_PER_UAR;
	}
	emu_uar_check_mapped(ctx, pg);
	qp->uar = pg;
	pg->nqps++;
	return 0;
}

void emu_uar_unbind_qp(struct emu_context *ctx, struct emu_qp *qp)
{
	if (qp->bfregn != EMU_INVALID_BFREG)
		ctx->bfreg_count[qp->bfregn]--;
	if (qp->uar) {
		qp->uar->nqps--;
		emu_uar_page_put(qp->uar);
		qp->uar = NULL;
	}
}

int emu_uar_bind_cq(struct emu_context *ctx, struct emu_cq *cq, bool has_idx,
		    uint32_t page_id)
{
	struct emu_uar_page *pg;

	if (has_idx)
		pg = emu_uar_find(ctx, page_id);
	else if (ctx->uar_mode == EMU_UAR_DYNAMIC)
		return -EINVAL;
	else
		pg = ctx->static_pages[0];
	if (!pg)
		return -EINVAL;
	emu_uar_check_mapped(ctx, pg);
	cq->uar = pg;
	pg->ncqs++;
	return 0;
}

void emu_uar_unbind_cq(struct emu_context *ctx, struct emu_cq *cq)
{
	(void)ctx;
	if (cq->uar) {
		cq->uar->ncqs--;
		emu_uar_page_put(cq->uar);
		cq->uar = NULL;
	}
}
