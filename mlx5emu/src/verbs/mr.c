// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions over the application's own memory. Keys are
 * (mkey index << 8 | key byte) as on ConnectX; the key byte is never 0, so
 * MLX5_INVALID_LKEY (0x100) is never handed out. The NIC finds an MR by
 * dev->mrs[key >> 8] and must compare the whole key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mlx5emu.h"

#define EMU_MR_SUPPORTED_ACCESS                                                \
	(IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE |        \
	 IB_UVERBS_ACCESS_REMOTE_READ | IB_UVERBS_ACCESS_REMOTE_ATOMIC |       \
	 IB_UVERBS_ACCESS_RELAXED_ORDERING)

/* ib_umem_get() pins, for writing when the MR may be written */
static int check_mapped(uint64_t start, uint64_t length, uint32_t access)
{
	int prot = PROT_READ;

	if (access &
	    (IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE |
	     IB_UVERBS_ACCESS_REMOTE_ATOMIC))
		prot |= PROT_WRITE;
	if (!emu_access_ok(start, length, prot))
		return -EFAULT;
	return emu_pin_check(start, length, prot & PROT_WRITE);
}

/* ib_check_mr_access(), then what this device lacks (ODP, zero-based, MW) */
static int check_access(uint32_t access)
{
	if ((access & (IB_UVERBS_ACCESS_REMOTE_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_UVERBS_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (access & ~EMU_MR_SUPPORTED_ACCESS &
	    ~((uint32_t)IB_UVERBS_ACCESS_OPTIONAL_RANGE))
		return -EOPNOTSUPP;
	return 0;
}

int emu_cmd_reg_mr(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_reg_mr *req = c->req;
	struct ib_uverbs_reg_mr_resp resp = {};
	struct emu_device *dev = ctx->dev;
	uint32_t access = req->access_flags;
	uint32_t index;
	struct emu_pd *pd;
	struct emu_mr *mr;
	int ret;

	ret = check_access(access);
	if (ret)
		return ret;
	if ((req->start & 0xfff) != (req->hca_va & 0xfff) || !req->length)
		return -EINVAL;
	pd = emu_pd_get(ctx, req->pd_handle);
	if (!pd)
		return -EINVAL;
	ret = check_mapped(req->start, req->length, access);
	if (ret)
		return ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	mr->pd = pd;
	mr->start = req->start;
	mr->length = req->length;
	mr->iova = req->hca_va;
	mr->access = access;

	pthread_mutex_lock(&dev->lock);
	/* index 0 is reserved, as on the device */
	if (!dev->mrs.nslots)
		emu_table_alloc_at(&dev->mrs, dev, 0);
	ret = emu_table_alloc(&dev->mrs, mr, &index);
	if (!ret) {
		if (++dev->mkey_variant == 0)
			dev->mkey_variant = 1;
		mr->lkey = mr->rkey = index << 8 | dev->mkey_variant;
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		goto err_free;
	ret = emu_uobj_add(ctx, &mr->uobj, EMU_OBJ_MR);
	if (ret)
		goto err_key;
	pd->uobj.usecnt++;
	nic_publish_mr(mr);
	emu_trace(
		"ctx%u REG_MR 0x%llx+0x%llx iova 0x%llx access 0x%x -> key 0x%x",
		ctx->id, (unsigned long long)mr->start,
		(unsigned long long)mr->length, (unsigned long long)mr->iova,
		access, mr->lkey);
	resp.mr_handle = mr->uobj.handle;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	emu_cmd_reply(c, &resp, sizeof(resp));
	return 0;

err_key:
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->mrs, mr->lkey >> 8);
	pthread_mutex_unlock(&dev->lock);
err_free:
	free(mr);
	return ret;
}

/* IB_MR_REREG_TRANS, _PD, _ACCESS of the kernel's ib_verbs.h */
#define REREG_TRANS 1U
#define REREG_PD 2U
#define REREG_ACCESS 4U

/*
 * REREG_MR, as mlx5_ib does it in place: same keys, new translation, PD or
 * access. The NIC re-reads the MR for the next WQE.
 */
int emu_cmd_rereg_mr(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_rereg_mr *req = c->req;
	struct emu_mr *mr = emu_mr_get(ctx, req->mr_handle);
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct emu_device *dev = ctx->dev;
	struct emu_pd *pd = NULL;
	uint32_t flags = req->flags;
	int ret;

	if (!mr || !flags || flags & ~(REREG_TRANS | REREG_PD | REREG_ACCESS))
		return -EINVAL;
	if (flags & REREG_TRANS) {
		if (!req->start || !req->hca_va || !req->length ||
		    (req->start & 0xfff) != (req->hca_va & 0xfff))
			return -EINVAL;
		ret = check_mapped(req->start, req->length,
				   flags & REREG_ACCESS ? req->access_flags :
							  mr->access);
		if (ret)
			return ret;
	}
	if (flags & REREG_ACCESS) {
		ret = check_access(req->access_flags);
		if (ret)
			return ret;
	}
	if (flags & REREG_PD) {
		pd = emu_pd_get(ctx, req->pd_handle);
		if (!pd)
			return -EINVAL;
	}

	pthread_mutex_lock(&dev->lock);
	if (flags & REREG_TRANS) {
		mr->start = req->start;
		mr->length = req->length;
		mr->iova = req->hca_va;
	}
	if (flags & REREG_ACCESS)
		mr->access = req->access_flags;
	if (pd) {
		mr->pd->uobj.usecnt--;
		pd->uobj.usecnt++;
		mr->pd = pd;
	}
	pthread_mutex_unlock(&dev->lock);
	/* drops the NIC's cached translations, as for a destroyed MR */
	nic_forget_mr(mr);
	emu_trace("ctx%u REREG_MR key 0x%x flags 0x%x", ctx->id, mr->lkey,
		  flags);
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	emu_cmd_reply(c, &resp, sizeof(resp));
	return 0;
}

int emu_mr_destroy(struct emu_mr *mr)
{
	struct emu_device *dev = mr->uobj.ctx->dev;

	emu_uobj_remove(mr->uobj.ctx, &mr->uobj);
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->mrs, mr->lkey >> 8);
	/* drop the reserved index 0 when it is the last one */
	if (dev->mrs.used == 1 && emu_table_get(&dev->mrs, 0) == dev)
		emu_table_remove(&dev->mrs, 0);
	pthread_mutex_unlock(&dev->lock);
	/* the NIC drops cached translations and stops touching the memory */
	nic_forget_mr(mr);
	mr->pd->uobj.usecnt--;
	free(mr);
	return 0;
}

int emu_cmd_dereg_mr(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_dereg_mr *req = c->req;
	struct emu_mr *mr = emu_mr_get(ctx, req->mr_handle);

	if (!mr)
		return -EINVAL;
	return emu_mr_destroy(mr);
}

/* mkey index 0 holds a placeholder (the device itself), never an MR */
struct emu_mr *emu_mr_lookup(struct emu_device *dev, uint32_t key)
{
	struct emu_mr *mr = emu_table_get(&dev->mrs, key >> 8);

	if (!mr || (void *)mr == (void *)dev || mr->lkey != key)
		return NULL;
	return mr;
}
