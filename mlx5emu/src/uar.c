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

#define EMU_MMAP_CMD_SHIFT 8
#define EMU_MMAP_DYN_CMD 9 /* first command the kernel uses for entries */
#define EMU_INVALID_BFREG_RESP (1U << 31)

static size_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

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
		       page_size();
	case EMU_UAR_KIND_ALLOC_WC:
		return mmap_pgoff(MLX5_IB_MMAP_ALLOC_WC, index) * page_size();
	default:
		return mmap_pgoff(EMU_MMAP_DYN_CMD,
				  slot * (ctx->slot_size / page_size())) *
		       page_size();
	}
}

/* ------------------------------------------------------------------ */
/* pages                                                               */

/*
 * The HW UAR allocation: a per-context limit (what --uar-limit models) or
 * the function running out of UARs both surface as the firmware's
 * "limits exceeded", which mlx5_core turns into ENOMEM.
 */
static int page_new(struct emu_context *ctx, enum emu_uar_kind kind,
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
	if (pg->len < page_size())
		pg->len = page_size();
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

static void forget_maps(struct emu_context *ctx, struct emu_uar_page *pg);

static void page_release(struct emu_uar_page *pg)
{
	struct emu_context *ctx = pg->uobj.ctx;

	forget_maps(ctx, pg);
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

static void refused(struct emu_context *ctx, const char *what, int err)
{
	ctx->uar_refused++;
	ctx->uar_refused_what = what;
	ctx->uar_refused_errno = -err;
}

/* A destroyed UAR object lives on while mapped or named by a QP/CQ. */
static void page_put(struct emu_uar_page *pg)
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

	ctx->slot_size = page_size();
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
				    1) * page_size()))
		return -ENOMEM;
	for (i = 0; i < ctx->num_static_pages; i++) {
		ret = page_new(ctx, EMU_UAR_KIND_STATIC, i,
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
	ret = page_new(ctx,
		       type == MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF ?
			       EMU_UAR_KIND_OBJ_BF :
			       EMU_UAR_KIND_OBJ_NC,
		       0, &pg);
	if (ret) {
		refused(ctx, "uar_obj_alloc", ret);
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
	page_put(pg);
	emu_stat_changed();
	return 0;
}

/* ------------------------------------------------------------------ */
/* mappings that bypassed us                                           */

struct vma {
	uintptr_t start, end;
	uint64_t off;
};

/* the mappings of the context's memfd, from /proc/self/maps */
static size_t read_vmas(struct emu_context *ctx, struct vma **out)
{
	size_t n = 0, cap = 0, linecap = 0;
	char *line = NULL;
	struct stat st;
	struct vma *v = NULL, *nv;
	FILE *f;

	*out = NULL;
	/* the real fstat: ours shows the cdev */
	if (syscall(SYS_fstat, ctx->fd, &st))
		return 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	while (getline(&line, &linecap, f) > 0) {
		unsigned long start, end, off, ino;
		unsigned int maj, min;

		if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu", &start, &end,
			   &off, &maj, &min, &ino) != 6 ||
		    ino != st.st_ino || makedev(maj, min) != st.st_dev)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n++] = (struct vma){ start, end, off };
	}
	free(line);
	fclose(f);
	*out = v;
	return n;
}

/* the application's mappings of a page: every cover but our alias */
static unsigned int count_maps(const struct vma *v, size_t n,
			       const struct emu_uar_page *pg)
{
	uintptr_t alias = (uintptr_t)pg->alias;
	unsigned int cnt = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (pg->file_off < v[i].off ||
		    pg->file_off >= v[i].off + (v[i].end - v[i].start))
			continue;
		if (alias >= v[i].start && alias < v[i].end &&
		    v[i].off + (alias - v[i].start) == pg->file_off)
			continue;
		cnt++;
	}
	return cnt;
}

/* static mode: an ALLOC_WC mmap we did not see allocated its page */
static void adopt_alloc_wc(struct emu_context *ctx, const struct vma *v,
			   size_t n)
{
	uint64_t pgoff, last;
	struct emu_uar_page *pg;
	uint32_t idx;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		last = (v[i].off + (v[i].end - v[i].start)) / page_size();
		for (pgoff = v[i].off / page_size(); pgoff < last; pgoff++) {
			if (((pgoff >> EMU_MMAP_CMD_SHIFT) & 0xff) !=
			    MLX5_IB_MMAP_ALLOC_WC)
				continue;
			idx = (pgoff & 0xff) | ((pgoff >> 16) & 0xff) << 8;
			if (idx >= ctx->num_dyn_pages || ctx->wc_pages[idx] ||
			    idx + 1 == ctx->wc_refused)
				continue;
			err = page_new(ctx, EMU_UAR_KIND_ALLOC_WC, idx, &pg);
			if (err) {
				/* counted once, not at every look */
				ctx->wc_refused = idx + 1;
				refused(ctx, "mmap_alloc_wc", err);
				continue;
			}
			ctx->wc_pages[idx] = pg;
		}
	}
}

/*
 * Bring the pages in line with what the process really maps: mmap and
 * munmap may reach the kernel without passing through us. Called with
 * ctx->lock held.
 */
void emu_uar_sync_locked(struct emu_context *ctx)
{
	struct emu_list *pos, *tmp;
	struct vma *v;
	size_t n = read_vmas(ctx, &v);

	if (ctx->uar_mode == EMU_UAR_STATIC && ctx->wc_pages)
		adopt_alloc_wc(ctx, v, n);
	emu_list_for_each_safe(pos, tmp, &ctx->uar_pages)
	{
		struct emu_uar_page *pg =
			container_of(pos, struct emu_uar_page, node);

		pg->app_maps = count_maps(v, n, pg);
		page_put(pg);
	}
	free(v);
	emu_stat_changed();
}

void emu_uar_sync(struct emu_context *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	emu_uar_sync_locked(ctx);
	pthread_mutex_unlock(&ctx->lock);
}

/*
 * A page a QP or CQ names must be mapped by now; if we saw no mmap, the
 * application's hooks bypass us: from now on every command looks first.
 */
static void check_mapped(struct emu_context *ctx, struct emu_uar_page *pg)
{
	if (pg->app_maps || ctx->maps_unseen)
		return;
	emu_uar_sync_locked(ctx);
	if (pg->app_maps)
		ctx->maps_unseen = true;
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
	check_mapped(ctx, pg);
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
		page_put(qp->uar);
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
	check_mapped(ctx, pg);
	cq->uar = pg;
	pg->ncqs++;
	return 0;
}

void emu_uar_unbind_cq(struct emu_context *ctx, struct emu_cq *cq)
{
	(void)ctx;
	if (cq->uar) {
		cq->uar->ncqs--;
		page_put(cq->uar);
		cq->uar = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* mmap / munmap                                                       */

struct emu_map {
	struct emu_list node;
	uintptr_t addr;
	size_t len;
	struct emu_uar_page *pg;
};

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_list maps = { &maps, &maps };
static unsigned int nr_maps;

static struct emu_uar_page *mmap_target(struct emu_context *ctx, size_t len,
					off_t off, int *err)
{
	uint64_t pgoff = (uint64_t)off / page_size();
	uint32_t cmd = (pgoff >> EMU_MMAP_CMD_SHIFT) & 0xff;
	uint32_t idx = pgoff & 0xff;
	struct emu_list *pos, *tmp;
	struct emu_uar_page *pg;

	*err = -EINVAL;
	if ((uint64_t)off % page_size() || !ctx->ucontext)
		return NULL;
	switch (cmd) {
	case MLX5_IB_MMAP_REGULAR_PAGE:
	case MLX5_IB_MMAP_WC_PAGE:
	case MLX5_IB_MMAP_NC_PAGE:
		if (ctx->uar_mode == EMU_UAR_DYNAMIC || len != page_size() ||
		    idx >= ctx->num_static_pages)
			return NULL;
		return ctx->static_pages[idx];
	case MLX5_IB_MMAP_ALLOC_WC:
		idx |= ((pgoff >> 16) & 0xff) << 8;
		if (ctx->uar_mode == EMU_UAR_DYNAMIC || len != page_size() ||
		    idx >= ctx->num_dyn_pages || ctx->wc_pages[idx]) {
			refused(ctx, "mmap_alloc_wc", *err);
			return NULL;
		}
		*err = page_new(ctx, EMU_UAR_KIND_ALLOC_WC, idx, &pg);
		if (*err) {
			refused(ctx, "mmap_alloc_wc", *err);
			return NULL;
		}
		ctx->wc_pages[idx] = pg;
		return pg;
	case MLX5_IB_MMAP_CORE_CLOCK:
	case MLX5_IB_MMAP_CLOCK_INFO: /* only index V1 (clock.c) */
		/* not advertised in GET_CONTEXT */
		*err = -EOPNOTSUPP;
		return NULL;
	default:
		if (cmd < EMU_MMAP_DYN_CMD)
			return NULL;
		emu_list_for_each_safe(pos, tmp, &ctx->uar_pages)
		{
			pg = container_of(pos, struct emu_uar_page, node);
			if (!pg->destroyed && pg->mmap_offset &&
			    pg->mmap_offset == (uint64_t)off)
				return len == pg->len ? pg : NULL;
		}
		return NULL;
	}
}

void *emu_uar_mmap(struct emu_context *ctx, void *addr, size_t len, int prot,
		   int flags, off_t off)
{
	struct emu_uar_page *pg;
	struct emu_map *map;
	void *p = MAP_FAILED;
	int err;

	if (emu_clock_info_offset(off))
		return emu_clock_info_mmap(ctx, addr, len, prot, flags);
	map = calloc(1, sizeof(*map));
	if (!map) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	pthread_mutex_lock(&ctx->lock);
	/* rdma_user_mmap_io(): device memory is only ever shared */
	if (!(flags & MAP_SHARED)) {
		pg = NULL;
		err = -EINVAL;
	} else {
		pg = mmap_target(ctx, len, off, &err);
	}
	if (pg) {
		p = emu_libc.mmap(addr, len, prot, flags, ctx->fd,
				  pg->file_off);
		err = p == MAP_FAILED ? -errno : 0;
	}
	if (p != MAP_FAILED) {
		pg->app_maps++;
		map->addr = (uintptr_t)p;
		map->len = len;
		map->pg = pg;
		pthread_mutex_lock(&map_lock);
		emu_list_add_tail(&maps, &map->node);
		nr_maps++;
		pthread_mutex_unlock(&map_lock);
		map = NULL;
	}
	pthread_mutex_unlock(&ctx->lock);
	free(map);
	emu_trace("ctx%u mmap off=0x%llx len=0x%zx -> %s page_id=0x%x", ctx->id,
		  (unsigned long long)off, len,
		  err ? strerrorname_np(-err) : "ok", pg ? pg->page_id : 0);
	emu_stat_changed();
	if (err) {
		errno = -err;
		return MAP_FAILED;
	}
	return p;
}

static struct emu_map *take_map(uintptr_t a, size_t len)
{
	struct emu_list *pos, *tmp;
	struct emu_map *map = NULL;

	pthread_mutex_lock(&map_lock);
	emu_list_for_each_safe(pos, tmp, &maps)
	{
		struct emu_map *m = container_of(pos, struct emu_map, node);

		if (m->addr < a + len && a < m->addr + m->len) {
			emu_list_del(&m->node);
			nr_maps--;
			map = m;
			break;
		}
	}
	pthread_mutex_unlock(&map_lock);
	return map;
}

/* munmap() already succeeded; a partial unmap counts as the whole page. */
bool emu_uar_munmap(void *addr, size_t len)
{
	bool found = false;
	struct emu_map *map;

	if (!__atomic_load_n(&nr_maps, __ATOMIC_RELAXED))
		return false;
	while ((map = take_map((uintptr_t)addr, len))) {
		struct emu_uar_page *pg = map->pg;
		struct emu_context *ctx = pg->uobj.ctx;

		pthread_mutex_lock(&ctx->lock);
		emu_trace("ctx%u munmap page_id=0x%x", ctx->id, pg->page_id);
		if (pg->app_maps) /* a scan may have counted it gone */
			pg->app_maps--;
		page_put(pg);
		pthread_mutex_unlock(&ctx->lock);
		free(map);
		found = true;
	}
	if (found)
		emu_stat_changed();
	return found;
}

/* fork() child: the mappings it inherited are the parent's business */
void emu_uar_forked(void)
{
	pthread_mutex_init(&map_lock, NULL);
	emu_list_init(&maps);
	nr_maps = 0;
}

/* the mappings we saw of one page (or of all the context's pages) */
static void forget_maps(struct emu_context *ctx, struct emu_uar_page *pg)
{
	struct emu_list *pos, *tmp;

	if (!__atomic_load_n(&nr_maps, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&map_lock);
	emu_list_for_each_safe(pos, tmp, &maps)
	{
		struct emu_map *m = container_of(pos, struct emu_map, node);

		if (m->pg->uobj.ctx == ctx && (!pg || m->pg == pg)) {
			emu_list_del(&m->node);
			nr_maps--;
			free(m);
		}
	}
	pthread_mutex_unlock(&map_lock);
}

/* context close: forget the app's mappings of this context */
void emu_uar_forget_maps(struct emu_context *ctx)
{
	forget_maps(ctx, NULL);
}
