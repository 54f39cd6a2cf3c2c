// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Protection domains. Parent domains and TDs never reach the kernel. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5emu.h"

int emu_cmd_alloc_pd(struct emu_context *ctx, struct emu_cmd *c)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct mlx5_ib_alloc_pd_resp dresp = {};
	struct emu_device *dev = ctx->dev;
	struct emu_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	pthread_mutex_lock(&dev->lock);
	ret = emu_table_alloc(&dev->pds, pd, &pd->pdn);
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		goto err_free;
	ret = emu_uobj_add(ctx, &pd->uobj, EMU_OBJ_PD);
	if (ret)
		goto err_pdn;
	resp.pd_handle = pd->uobj.handle;
	dresp.pdn = pd->pdn;
	emu_cmd_reply(c, &resp, sizeof(resp));
	emu_cmd_reply_drv(c, &dresp, sizeof(dresp));
	return 0;

err_pdn:
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->pds, pd->pdn);
	pthread_mutex_unlock(&dev->lock);
err_free:
	free(pd);
	return ret;
}

int emu_pd_destroy(struct emu_pd *pd)
{
	struct emu_device *dev = pd->uobj.ctx->dev;

	if (pd->uobj.usecnt)
		return -EBUSY;
	emu_uobj_remove(pd->uobj.ctx, &pd->uobj);
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->pds, pd->pdn);
	pthread_mutex_unlock(&dev->lock);
	free(pd);
	return 0;
}

int emu_cmd_dealloc_pd(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_dealloc_pd *req = c->req;
	struct emu_pd *pd = emu_pd_get(ctx, req->pd_handle);

	if (!pd)
		return -EINVAL;
	return emu_pd_destroy(pd);
}
