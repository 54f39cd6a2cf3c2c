// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Native ioctl methods of current kernels (--transport=ioctl): the
 * attribute forms of GET_CONTEXT, ASYNC_EVENT_ALLOC, QUERY_PORT and the
 * PD/MR/CQ/QP/SRQ create/destroy methods libibverbs tries before falling back.
 * Each decodes its attributes into the same request the write command
 * carries and runs the same handler. Called with ctx->lock held.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "verbs/mlx5emu.h"

#define MAX_CORE_ATTR 24

struct attrs {
	struct ib_uverbs_attr *a[MAX_CORE_ATTR];
	struct ib_uverbs_attr *uhw_in, *uhw_out;
};

/*
 * Core attributes named in known (bit per id) plus UHW_IN/OUT. Unknown
 * mandatory attributes make the method unsupported, as in
 * uverbs_ioctl.c; unknown optional ones are ignored.
 */
static int get_attrs(struct ib_uverbs_ioctl_hdr *hdr, uint32_t known,
		     struct attrs *at)
{
	unsigned int i;

	memset(at, 0, sizeof(*at));
	for (i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];
		struct ib_uverbs_attr **slot = NULL;

		if (a->attr_id < MAX_CORE_ATTR && (known & (1U << a->attr_id)))
			slot = &at->a[a->attr_id];
		else if (a->attr_id == UVERBS_ATTR_UHW_IN)
			slot = &at->uhw_in;
		else if (a->attr_id == UVERBS_ATTR_UHW_OUT)
			slot = &at->uhw_out;
		if (!slot) {
			if (a->flags & UVERBS_ATTR_F_MANDATORY)
				return -EPROTONOSUPPORT;
			continue;
		}
		if (*slot)
			return -EINVAL;
		*slot = a;
	}
	return 0;
}

/* PTR_IN payloads of up to 8 bytes are inlined in the attribute */
static const void *in_ptr(const struct ib_uverbs_attr *a)
{
	return a->len <= sizeof(a->data) ? (const void *)&a->data :
					   (const void *)(uintptr_t)a->data;
}

static uint64_t in_val(const struct ib_uverbs_attr *a)
{
	uint64_t v = 0;

	memcpy(&v, &a->data, a->len < sizeof(v) ? a->len : sizeof(v));
	return v;
}

static int put_out(struct ib_uverbs_attr *a, const void *val, size_t len)
{
	if (!a)
		return 0;
	if (!a->data || !emu_access_ok(a->data, a->len, PROT_WRITE))
		return -EFAULT;
	memcpy((void *)(uintptr_t)a->data, val, len < a->len ? len : a->len);
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	return 0;
}

/*
 * The response attributes in ids (bit per id) that are present, checked
 * writable before a create runs: the kernel aborts a new object whose
 * copy-out fails, so nothing may be created that could not be answered.
 */
static int check_out(const struct attrs *at, uint32_t ids)
{
	unsigned int i;

	for (i = 0; i < MAX_CORE_ATTR; i++)
		if ((ids & (1U << i)) && at->a[i] &&
		    (!at->a[i]->data ||
		     !emu_access_ok(at->a[i]->data, at->a[i]->len, PROT_WRITE)))
			return -EFAULT;
	return 0;
}

/*
 * Runs the write handler fn on the core request decoded from the attributes
 * (an extended one when there is one), with UHW_IN/OUT as its driver data.
 */
static int run_cmd(struct emu_context *ctx, const struct attrs *at,
		   int (*fn)(struct emu_context *ctx, struct emu_cmd *c),
		   const void *req, size_t req_len, void *resp, size_t resp_len)
{
	struct emu_cmd c = {
		.ex = req != NULL,
		.native = true,
		.req = req,
		.req_len = req_len,
		.resp = resp,
		.resp_len = resp_len,
	};
	int ret;

	/* the driver's buffers are checked before anything is created */
	if ((at->uhw_in && at->uhw_in->len > sizeof(at->uhw_in->data) &&
	     !emu_access_ok(at->uhw_in->data, at->uhw_in->len, PROT_READ)) ||
	    (at->uhw_out &&
	     !emu_access_ok(at->uhw_out->data, at->uhw_out->len, PROT_WRITE)))
		return -EFAULT;
	if (at->uhw_in) {
		c.drv_req = in_ptr(at->uhw_in);
		c.drv_req_len = at->uhw_in->len;
	}
	if (at->uhw_out) {
		c.drv_resp = (void *)(uintptr_t)at->uhw_out->data;
		c.drv_resp_len = at->uhw_out->len;
	}
	ret = fn(ctx, &c);
	if (ret)
		return ret;
	if (at->uhw_out)
		at->uhw_out->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	return 0;
}

#define BIT(n) (1U << (n))

/* FD and object handle outputs go into the attribute itself */
static void put_in_attr(struct ib_uverbs_attr *a, uint64_t val)
{
	a->data = val;
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
}

/*
 * The object a DESTROY method names in handle_id, with resp_id (when >= 0)
 * the mandatory attribute its response goes to; NULL and *err on failure.
 */
static struct emu_uobj *get_destroy_obj(struct emu_context *ctx,
					struct ib_uverbs_ioctl_hdr *hdr,
					unsigned int handle_id, int resp_id,
					enum emu_obj_type type,
					struct attrs *at, int *err)
{
	uint32_t known = BIT(handle_id);
	struct emu_uobj *obj;

	if (resp_id >= 0)
		known |= BIT(resp_id);
	*err = get_attrs(hdr, known, at);
	if (*err)
		return NULL;
	if (!at->a[handle_id] || (resp_id >= 0 && !at->a[resp_id])) {
		*err = -EINVAL;
		return NULL;
	}
	obj = emu_uobj_get(ctx, at->a[handle_id]->data, type);
	if (!obj)
		*err = -ENOENT;
	return obj;
}

static int get_context(struct emu_context *ctx, struct ib_uverbs_ioctl_hdr *hdr)
{
	uint32_t nvec = EMU_NUM_COMP_VECTORS;
	uint64_t core_support = 0;
	struct attrs at;
	int ret;

	ret = get_attrs(hdr,
			BIT(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS) |
				BIT(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT),
			&at);
	if (ret)
		return ret;
	ret = run_cmd(ctx, &at, emu_cmd_get_context, NULL, 0, NULL, 0);
	if (ret)
		return ret;
	put_out(at.a[UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS], &nvec,
		sizeof(nvec));
	put_out(at.a[UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT], &core_support,
		sizeof(core_support));
	return 0;
}

static int async_event_alloc(struct emu_context *ctx,
			     struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_attr *a;
	struct attrs at;
	int ret, fd;

	ret = get_attrs(hdr, BIT(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE), &at);
	if (ret)
		return ret;
	a = at.a[UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE];
	if (!a || ctx->async)
		return -EINVAL;
	ctx->async = emu_event_file_create(true, &fd);
	if (!ctx->async)
		return -EMFILE;
	emu_event_file_get(ctx->async);
	put_in_attr(a, fd);
	return 0;
}

static int query_port(struct emu_context *ctx, struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_query_port_resp_ex resp = {};
	struct attrs at;
	int ret;

	ret = get_attrs(hdr,
			BIT(UVERBS_ATTR_QUERY_PORT_PORT_NUM) |
				BIT(UVERBS_ATTR_QUERY_PORT_RESP),
			&at);
	if (ret)
		return ret;
	if (!at.a[UVERBS_ATTR_QUERY_PORT_PORT_NUM] ||
	    !at.a[UVERBS_ATTR_QUERY_PORT_RESP])
		return -EINVAL;
	ret = emu_query_port(ctx->dev,
			     in_val(at.a[UVERBS_ATTR_QUERY_PORT_PORT_NUM]),
			     &resp.legacy_resp);
	if (ret)
		return ret;
	return put_out(at.a[UVERBS_ATTR_QUERY_PORT_RESP], &resp, sizeof(resp));
}

/* PD/DESTROY and MR/DESTROY: a handle, nothing back */
static int destroy_simple(struct emu_context *ctx,
			  struct ib_uverbs_ioctl_hdr *hdr,
			  enum emu_obj_type type)
{
	struct emu_uobj *u;
	struct attrs at;
	int ret;

	u = get_destroy_obj(ctx, hdr, 0, -1, type, &at, &ret);
	if (!u)
		return ret;
	if (type == EMU_OBJ_PD)
		return emu_pd_destroy(container_of(u, struct emu_pd, uobj));
	return emu_mr_destroy(container_of(u, struct emu_mr, uobj));
}

static int cq_create(struct emu_context *ctx, struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq req = {};
	struct ib_uverbs_attr *handle;
	struct attrs at;
	int ret;

	ret = get_attrs(hdr,
			BIT(UVERBS_ATTR_CREATE_CQ_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_CQ_CQE) |
				BIT(UVERBS_ATTR_CREATE_CQ_USER_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL) |
				BIT(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR) |
				BIT(UVERBS_ATTR_CREATE_CQ_FLAGS) |
				BIT(UVERBS_ATTR_CREATE_CQ_RESP_CQE) |
				BIT(UVERBS_ATTR_CREATE_CQ_EVENT_FD),
			&at);
	if (ret)
		return ret;
	handle = at.a[UVERBS_ATTR_CREATE_CQ_HANDLE];
	if (!handle || !at.a[UVERBS_ATTR_CREATE_CQ_CQE] ||
	    !at.a[UVERBS_ATTR_CREATE_CQ_USER_HANDLE] ||
	    !at.a[UVERBS_ATTR_CREATE_CQ_COMP_VECTOR] ||
	    !at.a[UVERBS_ATTR_CREATE_CQ_RESP_CQE])
		return -EINVAL;
	req.cqe = in_val(at.a[UVERBS_ATTR_CREATE_CQ_CQE]);
	req.user_handle = in_val(at.a[UVERBS_ATTR_CREATE_CQ_USER_HANDLE]);
	req.comp_vector = in_val(at.a[UVERBS_ATTR_CREATE_CQ_COMP_VECTOR]);
	req.comp_channel =
		at.a[UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL] ?
			(int32_t)at.a[UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL]
				->data_s64 :
			-1;
	if (at.a[UVERBS_ATTR_CREATE_CQ_FLAGS])
		req.flags = in_val(at.a[UVERBS_ATTR_CREATE_CQ_FLAGS]);
	ret = check_out(&at, BIT(UVERBS_ATTR_CREATE_CQ_RESP_CQE));
	if (ret)
		return ret;
	ret = run_cmd(ctx, &at, emu_cmd_create_cq, &req, sizeof(req), &resp,
		      sizeof(resp));
	if (ret)
		return ret;
	put_in_attr(handle, resp.base.cq_handle);
	return put_out(at.a[UVERBS_ATTR_CREATE_CQ_RESP_CQE], &resp.base.cqe,
		       sizeof(resp.base.cqe));
}

static int cq_destroy(struct emu_context *ctx, struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct attrs at;
	struct emu_uobj *u;
	struct emu_cq *cq;
	int ret;

	u = get_destroy_obj(ctx, hdr, UVERBS_ATTR_DESTROY_CQ_HANDLE,
			    UVERBS_ATTR_DESTROY_CQ_RESP, EMU_OBJ_CQ, &at, &ret);
	if (!u)
		return ret;
	cq = container_of(u, struct emu_cq, uobj);
	ret = emu_cq_destroy(cq, &resp);
	if (ret)
		return ret;
	return put_out(at.a[UVERBS_ATTR_DESTROY_CQ_RESP], &resp, sizeof(resp));
}

static int qp_create(struct emu_context *ctx, struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp req = {};
	struct ib_uverbs_qp_cap cap = {};
	struct ib_uverbs_attr *handle;
	uint32_t flags = 0;
	struct attrs at;
	int ret;

	ret = get_attrs(hdr,
			BIT(UVERBS_ATTR_CREATE_QP_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_QP_PD_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_QP_USER_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_QP_CAP) |
				BIT(UVERBS_ATTR_CREATE_QP_TYPE) |
				BIT(UVERBS_ATTR_CREATE_QP_FLAGS) |
				BIT(UVERBS_ATTR_CREATE_QP_EVENT_FD) |
				BIT(UVERBS_ATTR_CREATE_QP_RESP_CAP) |
				BIT(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM),
			&at);
	if (ret)
		return ret;
	handle = at.a[UVERBS_ATTR_CREATE_QP_HANDLE];
	if (!handle || !at.a[UVERBS_ATTR_CREATE_QP_PD_HANDLE] ||
	    !at.a[UVERBS_ATTR_CREATE_QP_USER_HANDLE] ||
	    !at.a[UVERBS_ATTR_CREATE_QP_CAP] ||
	    !at.a[UVERBS_ATTR_CREATE_QP_TYPE] ||
	    !at.a[UVERBS_ATTR_CREATE_QP_RESP_CAP] ||
	    !at.a[UVERBS_ATTR_CREATE_QP_RESP_QP_NUM] ||
	    at.a[UVERBS_ATTR_CREATE_QP_CAP]->len != sizeof(cap))
		return -EINVAL;
	if (emu_copy_from_user(&cap, in_ptr(at.a[UVERBS_ATTR_CREATE_QP_CAP]),
			       sizeof(cap)))
		return -EFAULT;
	if (at.a[UVERBS_ATTR_CREATE_QP_FLAGS])
		flags = in_val(at.a[UVERBS_ATTR_CREATE_QP_FLAGS]);
	req.user_handle = in_val(at.a[UVERBS_ATTR_CREATE_QP_USER_HANDLE]);
	req.pd_handle = at.a[UVERBS_ATTR_CREATE_QP_PD_HANDLE]->data;
	/* the handlers look both CQ handles up; a missing one fails there */
	req.send_cq_handle =
		at.a[UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE] ?
			at.a[UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE]->data :
			UINT32_MAX;
	req.recv_cq_handle =
		at.a[UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE] ?
			at.a[UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE]->data :
			UINT32_MAX;
	if (at.a[UVERBS_ATTR_CREATE_QP_SRQ_HANDLE]) {
		req.is_srq = 1;
		req.srq_handle = at.a[UVERBS_ATTR_CREATE_QP_SRQ_HANDLE]->data;
	}
	req.max_send_wr = cap.max_send_wr;
	req.max_recv_wr = cap.max_recv_wr;
	req.max_send_sge = cap.max_send_sge;
	req.max_recv_sge = cap.max_recv_sge;
	req.max_inline_data = cap.max_inline_data;
	req.sq_sig_all = !!(flags & IB_UVERBS_QP_CREATE_SQ_SIG_ALL);
	req.create_flags = flags & ~IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	req.qp_type = in_val(at.a[UVERBS_ATTR_CREATE_QP_TYPE]);
	ret = check_out(&at, BIT(UVERBS_ATTR_CREATE_QP_RESP_CAP) |
				     BIT(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM));
	if (ret)
		return ret;
	ret = run_cmd(ctx, &at, emu_cmd_create_qp, &req, sizeof(req), &resp,
		      sizeof(resp));
	if (ret)
		return ret;
	put_in_attr(handle, resp.base.qp_handle);
	cap.max_send_wr = resp.base.max_send_wr;
	cap.max_recv_wr = resp.base.max_recv_wr;
	cap.max_send_sge = resp.base.max_send_sge;
	cap.max_recv_sge = resp.base.max_recv_sge;
	cap.max_inline_data = resp.base.max_inline_data;
	put_out(at.a[UVERBS_ATTR_CREATE_QP_RESP_CAP], &cap, sizeof(cap));
	return put_out(at.a[UVERBS_ATTR_CREATE_QP_RESP_QP_NUM], &resp.base.qpn,
		       sizeof(resp.base.qpn));
}

static int qp_destroy(struct emu_context *ctx, struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct attrs at;
	struct emu_uobj *u;
	struct emu_qp *qp;
	int ret;

	u = get_destroy_obj(ctx, hdr, UVERBS_ATTR_DESTROY_QP_HANDLE,
			    UVERBS_ATTR_DESTROY_QP_RESP, EMU_OBJ_QP, &at, &ret);
	if (!u)
		return ret;
	qp = container_of(u, struct emu_qp, uobj);
	ret = emu_qp_destroy(qp, &resp);
	if (ret)
		return ret;
	return put_out(at.a[UVERBS_ATTR_DESTROY_QP_RESP], &resp, sizeof(resp));
}

static int srq_create(struct emu_context *ctx, struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_create_srq_resp resp = {};
	struct ib_uverbs_create_srq req = {};
	struct ib_uverbs_attr *handle;
	struct attrs at;
	int ret;

	ret = get_attrs(hdr,
			BIT(UVERBS_ATTR_CREATE_SRQ_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_SRQ_PD_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_SRQ_USER_HANDLE) |
				BIT(UVERBS_ATTR_CREATE_SRQ_MAX_WR) |
				BIT(UVERBS_ATTR_CREATE_SRQ_MAX_SGE) |
				BIT(UVERBS_ATTR_CREATE_SRQ_LIMIT) |
				BIT(UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS) |
				BIT(UVERBS_ATTR_CREATE_SRQ_TYPE) |
				BIT(UVERBS_ATTR_CREATE_SRQ_EVENT_FD) |
				BIT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR) |
				BIT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE) |
				BIT(UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM),
			&at);
	if (ret)
		return ret;
	handle = at.a[UVERBS_ATTR_CREATE_SRQ_HANDLE];
	if (!handle || !at.a[UVERBS_ATTR_CREATE_SRQ_PD_HANDLE] ||
	    !at.a[UVERBS_ATTR_CREATE_SRQ_USER_HANDLE] ||
	    !at.a[UVERBS_ATTR_CREATE_SRQ_MAX_WR] ||
	    !at.a[UVERBS_ATTR_CREATE_SRQ_MAX_SGE] ||
	    !at.a[UVERBS_ATTR_CREATE_SRQ_LIMIT] ||
	    !at.a[UVERBS_ATTR_CREATE_SRQ_TYPE] ||
	    !at.a[UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR] ||
	    !at.a[UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE])
		return -EINVAL;
	/* XRC and tag-matching SRQs need objects this device does not have */
	if (in_val(at.a[UVERBS_ATTR_CREATE_SRQ_TYPE]) != IB_UVERBS_SRQT_BASIC)
		return -EOPNOTSUPP;
	req.user_handle = in_val(at.a[UVERBS_ATTR_CREATE_SRQ_USER_HANDLE]);
	req.pd_handle = at.a[UVERBS_ATTR_CREATE_SRQ_PD_HANDLE]->data;
	req.max_wr = in_val(at.a[UVERBS_ATTR_CREATE_SRQ_MAX_WR]);
	req.max_sge = in_val(at.a[UVERBS_ATTR_CREATE_SRQ_MAX_SGE]);
	req.srq_limit = in_val(at.a[UVERBS_ATTR_CREATE_SRQ_LIMIT]);
	ret = check_out(&at, BIT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR) |
				     BIT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE) |
				     BIT(UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM));
	if (ret)
		return ret;
	ret = run_cmd(ctx, &at, emu_cmd_create_srq, &req, sizeof(req), &resp,
		      sizeof(resp));
	if (ret)
		return ret;
	put_in_attr(handle, resp.srq_handle);
	put_out(at.a[UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR], &resp.max_wr,
		sizeof(resp.max_wr));
	put_out(at.a[UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM], &resp.srqn,
		sizeof(resp.srqn));
	return put_out(at.a[UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE], &resp.max_sge,
		       sizeof(resp.max_sge));
}

static int srq_destroy(struct emu_context *ctx, struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct emu_uobj *u;
	struct emu_srq *srq;
	struct attrs at;
	int ret;

	u = get_destroy_obj(ctx, hdr, UVERBS_ATTR_DESTROY_SRQ_HANDLE,
			    UVERBS_ATTR_DESTROY_SRQ_RESP, EMU_OBJ_SRQ, &at,
			    &ret);
	if (!u)
		return ret;
	srq = container_of(u, struct emu_srq, uobj);
	ret = emu_srq_destroy(srq, &resp);
	if (ret)
		return ret;
	return put_out(at.a[UVERBS_ATTR_DESTROY_SRQ_RESP], &resp, sizeof(resp));
}

/* -EPROTONOSUPPORT when the method does not exist (yet) */
int emu_uverbs_native_method(struct emu_context *ctx,
			     struct ib_uverbs_ioctl_hdr *hdr)
{
	uint32_t om = (uint32_t)hdr->object_id << 16 | hdr->method_id;
	int (*fn)(struct emu_context * ctx, struct ib_uverbs_ioctl_hdr * hdr);
	enum emu_obj_type destroy = 0;

	switch (om) {
	case UVERBS_OBJECT_DEVICE << 16 | UVERBS_METHOD_GET_CONTEXT:
		return get_context(ctx, hdr);
	case UVERBS_OBJECT_DEVICE << 16 | UVERBS_METHOD_QUERY_PORT:
		fn = query_port;
		break;
	case UVERBS_OBJECT_ASYNC_EVENT << 16 | UVERBS_METHOD_ASYNC_EVENT_ALLOC:
		fn = async_event_alloc;
		break;
	case UVERBS_OBJECT_PD << 16 | UVERBS_METHOD_PD_DESTROY:
		fn = NULL;
		destroy = EMU_OBJ_PD;
		break;
	case UVERBS_OBJECT_MR << 16 | UVERBS_METHOD_MR_DESTROY:
		fn = NULL;
		destroy = EMU_OBJ_MR;
		break;
	case UVERBS_OBJECT_CQ << 16 | UVERBS_METHOD_CQ_CREATE:
		fn = cq_create;
		break;
	case UVERBS_OBJECT_CQ << 16 | UVERBS_METHOD_CQ_DESTROY:
		fn = cq_destroy;
		break;
	case UVERBS_OBJECT_QP << 16 | UVERBS_METHOD_QP_CREATE:
		fn = qp_create;
		break;
	case UVERBS_OBJECT_QP << 16 | UVERBS_METHOD_QP_DESTROY:
		fn = qp_destroy;
		break;
	case UVERBS_OBJECT_SRQ << 16 | UVERBS_METHOD_SRQ_CREATE:
		fn = srq_create;
		break;
	case UVERBS_OBJECT_SRQ << 16 | UVERBS_METHOD_SRQ_DESTROY:
		fn = srq_destroy;
		break;
	default:
		return -EPROTONOSUPPORT;
	}
	if (!ctx->ucontext)
		return -EINVAL;
	return fn ? fn(ctx, hdr) : destroy_simple(ctx, hdr, destroy);
}
