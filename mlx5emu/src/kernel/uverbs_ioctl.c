// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ioctl() command channel (RDMA_VERBS_IOCTL). The emulated kernel
 * answers as one of the contract's profiles:
 *   W (--uar=static): a write-only kernel, ENOTTY for every ioctl;
 *   H (--uar=dynamic): EPROTONOSUPPORT for every (object, method) but the
 *     mlx5 UAR object, so libibverbs keeps using write() and libmlx5 gets
 *     its dynamic UARs;
 *   --transport=ioctl: as current kernels, INVOKE_WRITE carries the write
 *     commands and the common object methods exist natively
 *     (uverbs_methods.c); the rest answer EPROTONOSUPPORT and libibverbs
 *     falls back to INVOKE_WRITE per verb.
 * Header and attribute rules follow core/uverbs_ioctl.c.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "verbs/mlx5emu.h"

struct attr_spec {
	uint16_t id;
	uint16_t min_len; /* for PTR_OUT */
	bool out_ptr;
	bool optional;
	bool in_ptr; /* PTR_IN: a pointer when longer than 8 bytes */
};

/* attrs[] indexed like specs[]; NULL when absent */
static int parse_attrs(struct ib_uverbs_ioctl_hdr *hdr,
		       const struct attr_spec *specs, unsigned int nspecs,
		       struct ib_uverbs_attr **found)
{
	unsigned int i, j;

	for (i = 0; i < nspecs; i++)
		found[i] = NULL;
	for (i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];

		for (j = 0; j < nspecs; j++)
			if (specs[j].id == a->attr_id)
				break;
		if (j == nspecs) {
			if (a->flags & UVERBS_ATTR_F_MANDATORY)
				return -EPROTONOSUPPORT;
			continue;
		}
		if (found[j])
			return -EINVAL;
		if (specs[j].out_ptr && (a->len < specs[j].min_len || !a->data))
			return -EINVAL;
		/* pointers are checked before anything is done or kept */
		if (specs[j].out_ptr &&
		    !emu_access_ok(a->data, a->len, PROT_WRITE))
			return -EFAULT;
		if (specs[j].in_ptr && a->len > sizeof(a->data) &&
		    !emu_access_ok(a->data, a->len, PROT_READ))
			return -EFAULT;
		found[j] = a;
	}
	for (j = 0; j < nspecs; j++)
		if (!found[j] && !specs[j].optional)
			return -EINVAL;
	return 0;
}

/* PTR_IN payloads of up to 8 bytes are inlined in the attribute */
static const void *ptr_in(const struct ib_uverbs_attr *a)
{
	return a->len <= sizeof(a->data) ? (const void *)&a->data :
					   (const void *)(uintptr_t)a->data;
}

static int invoke_write(struct emu_context *ctx,
			struct ib_uverbs_ioctl_hdr *hdr)
{
	static const struct attr_spec specs[] = {
		{ UVERBS_ATTR_WRITE_CMD, 0, false, false, false },
		{ UVERBS_ATTR_CORE_IN, 0, false, true, true },
		{ UVERBS_ATTR_CORE_OUT, 0, true, true, false },
		{ UVERBS_ATTR_UHW_IN, 0, false, true, true },
		{ UVERBS_ATTR_UHW_OUT, 0, true, true, false },
	};
	struct ib_uverbs_attr *a[5];
	int ret;

	ret = parse_attrs(hdr, specs, 5, a);
	if (ret)
		return ret;
	ret = emu_uverbs_invoke_write(
		ctx, a[0]->data, a[1] ? ptr_in(a[1]) : NULL,
		a[1] ? a[1]->len : 0,
		a[2] ? (void *)(uintptr_t)a[2]->data : NULL,
		a[2] ? a[2]->len : 0, a[3] ? ptr_in(a[3]) : NULL,
		a[3] ? a[3]->len : 0,
		a[4] ? (void *)(uintptr_t)a[4]->data : NULL,
		a[4] ? a[4]->len : 0);
	if (!ret) {
		if (a[2])
			a[2]->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
		if (a[4])
			a[4]->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	}
	return ret;
}

static void put_out(struct ib_uverbs_attr *a, const void *val, size_t len)
{
	memcpy((void *)(uintptr_t)a->data, val, len < a->len ? len : a->len);
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
}

static int uar_obj_alloc(struct emu_context *ctx,
			 struct ib_uverbs_ioctl_hdr *hdr)
{
	static const struct attr_spec specs[] = {
		{ MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE, 0, false, false, false },
		{ MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, 0, false, false, false },
		{ MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, 8, true, false,
		  false },
		{ MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, 4, true, false,
		  false },
		{ MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, 4, true, false, false },
	};
	struct ib_uverbs_attr *a[5];
	struct emu_uar_page *pg;
	uint32_t len32;

	int ret;

	ret = parse_attrs(hdr, specs, 5, a);
	if (ret)
		return ret;
	ret = emu_uar_obj_alloc(ctx, a[1]->data, &pg);
	if (ret)
		return ret;
	a[0]->data = pg->uobj.handle; /* IDR out: into the attribute itself */
	a[0]->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	put_out(a[2], &pg->mmap_offset, sizeof(pg->mmap_offset));
	len32 = pg->len;
	put_out(a[3], &len32, sizeof(len32));
	put_out(a[4], &pg->page_id, sizeof(pg->page_id));
	emu_trace("ctx%u UAR_OBJ_ALLOC %s page_id=0x%x nuars=%u handle=%u",
		  ctx->id, a[1]->data ? "NC" : "BF", pg->page_id, pg->nuars,
		  pg->uobj.handle);
	return 0;
}

static int uar_obj_destroy(struct emu_context *ctx,
			   struct ib_uverbs_ioctl_hdr *hdr)
{
	static const struct attr_spec specs[] = {
		{ MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE, 0, false, false, false },
	};
	struct ib_uverbs_attr *a[1];
	struct emu_uar_page *pg;
	int ret;

	ret = parse_attrs(hdr, specs, 1, a);
	if (ret)
		return ret;
	pg = emu_uar_get(ctx, a[0]->data);
	if (!pg)
		return -ENOENT;
	return emu_uar_obj_destroy(pg);
}

/* DEVICE/QUERY_PORT_SPEED: no write form, so it exists with the ioctls */
static int query_port_speed(struct emu_context *ctx,
			    struct ib_uverbs_ioctl_hdr *hdr)
{
	static const struct attr_spec specs[] = {
		{ UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, 0, false, false,
		  false },
		{ UVERBS_ATTR_QUERY_PORT_SPEED_RESP, 8, true, false, false },
	};
	struct ib_uverbs_attr *a[2];
	uint64_t speed;
	int ret;

	ret = parse_attrs(hdr, specs, 2, a);
	if (ret)
		return ret;
	ret = emu_port_speed(ctx->dev, a[0]->data, &speed);
	if (ret)
		return ret;
	put_out(a[1], &speed, sizeof(speed));
	return 0;
}

int emu_uverbs_ioctl(struct emu_context *ctx, unsigned long req, void *arg)
{
	struct ib_uverbs_ioctl_hdr *hdr = arg;
	bool hdr_ok;
	int ret;

	if (req != RDMA_VERBS_IOCTL) {
		errno = ENOTTY;
		return -1;
	}
	hdr_ok = emu_access_ok((uintptr_t)hdr, sizeof(*hdr), PROT_READ);
	if (emu_cfg.uar_mode == EMU_UAR_STATIC &&
	    emu_cfg.transport == EMU_TRANSPORT_WRITE)
		ret = -ENOTTY; /* profile W: a kernel without ioctl verbs */
	else if (!hdr_ok)
		ret = -EFAULT;
	else if (hdr->length !=
		 sizeof(*hdr) + hdr->num_attrs * sizeof(hdr->attrs[0]))
		ret = -EINVAL;
	/* the attributes are read, and written back (outputs, flags) */
	else if (!emu_access_ok((uintptr_t)hdr, hdr->length,
				PROT_READ | PROT_WRITE))
		ret = -EFAULT;
	else if (hdr->reserved1 || hdr->reserved2)
		ret = -EPROTONOSUPPORT;
	else if (hdr->driver_id != RDMA_DRIVER_MLX5)
		ret = -EINVAL;
	else if (emu_cfg.transport == EMU_TRANSPORT_IOCTL &&
		 hdr->object_id == UVERBS_OBJECT_DEVICE &&
		 hdr->method_id == UVERBS_METHOD_INVOKE_WRITE) {
		pthread_mutex_lock(&ctx->lock);
		ret = invoke_write(ctx, hdr);
		pthread_mutex_unlock(&ctx->lock);
	} else if (hdr->object_id == UVERBS_OBJECT_DEVICE &&
		   hdr->method_id == UVERBS_METHOD_QUERY_PORT_SPEED) {
		ret = query_port_speed(ctx, hdr);
	} else if (hdr->object_id != MLX5_IB_OBJECT_UAR) {
		if (emu_cfg.transport == EMU_TRANSPORT_IOCTL) {
			pthread_mutex_lock(&ctx->lock);
			ret = emu_uverbs_native_method(ctx, hdr);
			pthread_mutex_unlock(&ctx->lock);
		} else {
			ret = -EPROTONOSUPPORT;
		}
	} else if (emu_cfg.uar_mode != EMU_UAR_DYNAMIC)
		ret = -EPROTONOSUPPORT;
	else {
		pthread_mutex_lock(&ctx->lock);
		if (!ctx->ucontext)
			ret = -EINVAL;
		else if (hdr->method_id == MLX5_IB_METHOD_UAR_OBJ_ALLOC)
			ret = uar_obj_alloc(ctx, hdr);
		else if (hdr->method_id == MLX5_IB_METHOD_UAR_OBJ_DESTROY)
			ret = uar_obj_destroy(ctx, hdr);
		else
			ret = -EPROTONOSUPPORT;
		pthread_mutex_unlock(&ctx->lock);
	}
	if (hdr_ok)
		emu_trace("ctx%u ioctl object=0x%x method=0x%x attrs=%u -> %s",
			  ctx->id, hdr->object_id, hdr->method_id,
			  hdr->num_attrs, ret ? strerrorname_np(-ret) : "ok");
	else
		emu_trace("ctx%u ioctl %p -> %s", ctx->id, arg,
			  strerrorname_np(-ret));
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}
