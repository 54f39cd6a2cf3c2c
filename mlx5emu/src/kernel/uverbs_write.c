// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The legacy write() command channel (ib_uverbs_write): header checks as
 * in uverbs_main.c:verify_hdr(), then a table of handlers. Request and
 * response buffers are the application's own memory (same process).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "verbs/mlx5emu.h"

struct emu_write_method {
	int (*handler)(struct emu_context *ctx, struct emu_cmd *c);
	size_t req_size; /* core request incl. the response pointer */
	size_t resp_size; /* core response */
	bool has_resp; /* request starts with a response pointer */
	bool no_ucontext; /* allowed before GET_CONTEXT */
};

#define W(_cmd, _fn, _req, _resp, ...)                                         \
	[IB_USER_VERBS_CMD_##_cmd] = { .handler = _fn,                         \
				       .req_size = sizeof(struct _req),        \
				       .resp_size = _resp,                     \
				       .has_resp = true,                       \
				       __VA_ARGS__ }

static const struct emu_write_method write_methods[] = {
	W(GET_CONTEXT, emu_cmd_get_context, ib_uverbs_get_context,
	  sizeof(struct ib_uverbs_get_context_resp), .no_ucontext = true),
	W(QUERY_DEVICE, emu_cmd_query_device, ib_uverbs_query_device,
	  sizeof(struct ib_uverbs_query_device_resp)),
	W(QUERY_PORT, emu_cmd_query_port, ib_uverbs_query_port,
	  sizeof(struct ib_uverbs_query_port_resp)),
	W(ALLOC_PD, emu_cmd_alloc_pd, ib_uverbs_alloc_pd,
	  sizeof(struct ib_uverbs_alloc_pd_resp)),
	[IB_USER_VERBS_CMD_DEALLOC_PD] = { .handler = emu_cmd_dealloc_pd,
					   .req_size = sizeof(
						   struct ib_uverbs_dealloc_pd) },
	W(REG_MR, emu_cmd_reg_mr, ib_uverbs_reg_mr,
	  sizeof(struct ib_uverbs_reg_mr_resp)),
	W(REREG_MR, emu_cmd_rereg_mr, ib_uverbs_rereg_mr,
	  sizeof(struct ib_uverbs_rereg_mr_resp)),
	[IB_USER_VERBS_CMD_DEREG_MR] = { .handler = emu_cmd_dereg_mr,
					 .req_size = sizeof(
						 struct ib_uverbs_dereg_mr) },
	W(CREATE_COMP_CHANNEL, emu_cmd_create_comp_channel,
	  ib_uverbs_create_comp_channel,
	  sizeof(struct ib_uverbs_create_comp_channel_resp)),
	W(CREATE_CQ, emu_cmd_create_cq, ib_uverbs_create_cq,
	  sizeof(struct ib_uverbs_create_cq_resp)),
	W(RESIZE_CQ, emu_cmd_resize_cq, ib_uverbs_resize_cq,
	  sizeof(struct ib_uverbs_resize_cq_resp)),
	W(DESTROY_CQ, emu_cmd_destroy_cq, ib_uverbs_destroy_cq,
	  sizeof(struct ib_uverbs_destroy_cq_resp)),
	W(CREATE_QP, emu_cmd_create_qp, ib_uverbs_create_qp,
	  sizeof(struct ib_uverbs_create_qp_resp)),
	W(QUERY_QP, emu_cmd_query_qp, ib_uverbs_query_qp,
	  sizeof(struct ib_uverbs_query_qp_resp)),
	[IB_USER_VERBS_CMD_MODIFY_QP] = { .handler = emu_cmd_modify_qp,
					  .req_size = sizeof(
						  struct ib_uverbs_modify_qp) },
	W(DESTROY_QP, emu_cmd_destroy_qp, ib_uverbs_destroy_qp,
	  sizeof(struct ib_uverbs_destroy_qp_resp)),
	W(CREATE_SRQ, emu_cmd_create_srq, ib_uverbs_create_srq,
	  sizeof(struct ib_uverbs_create_srq_resp)),
	[IB_USER_VERBS_CMD_MODIFY_SRQ] = { .handler = emu_cmd_modify_srq,
					   .req_size = sizeof(
						   struct ib_uverbs_modify_srq) },
	W(QUERY_SRQ, emu_cmd_query_srq, ib_uverbs_query_srq,
	  sizeof(struct ib_uverbs_query_srq_resp)),
	W(DESTROY_SRQ, emu_cmd_destroy_srq, ib_uverbs_destroy_srq,
	  sizeof(struct ib_uverbs_destroy_srq_resp)),
};

/* extended commands: request/response sizes are the ex structs' */
static const struct emu_write_method ex_methods[] = {
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = {
		.handler = emu_cmd_query_device,
		.req_size = sizeof(struct ib_uverbs_ex_query_device),
		.resp_size = sizeof(struct ib_uverbs_ex_query_device_resp),
		.has_resp = true,
	},
	[IB_USER_VERBS_EX_CMD_CREATE_CQ] = {
		.handler = emu_cmd_create_cq,
		.req_size = sizeof(struct ib_uverbs_ex_create_cq),
		.resp_size = sizeof(struct ib_uverbs_ex_create_cq_resp),
		.has_resp = true,
	},
	[IB_USER_VERBS_EX_CMD_CREATE_QP] = {
		.handler = emu_cmd_create_qp,
		.req_size = sizeof(struct ib_uverbs_ex_create_qp),
		.resp_size = sizeof(struct ib_uverbs_ex_create_qp_resp),
		.has_resp = true,
	},
	[IB_USER_VERBS_EX_CMD_MODIFY_QP] = {
		.handler = emu_cmd_modify_qp,
		.req_size = sizeof(struct ib_uverbs_ex_modify_qp),
		.resp_size = sizeof(struct ib_uverbs_ex_modify_qp_resp),
		.has_resp = true,
	},
};

static const struct emu_write_method *lookup(uint32_t cmd, bool ex)
{
	const struct emu_write_method *tab = ex ? ex_methods : write_methods;
	size_t n = ex ? ARRAY_SIZE(ex_methods) : ARRAY_SIZE(write_methods);

	if (cmd >= n || !tab[cmd].handler)
		return NULL;
	return &tab[cmd];
}

/* The core request, zero-extended so handlers can read every field. */
union emu_req_buf {
	struct ib_uverbs_modify_qp modify_qp;
	struct ib_uverbs_ex_modify_qp ex_modify_qp;
	struct ib_uverbs_create_qp create_qp;
	struct ib_uverbs_ex_create_qp ex_create_qp;
	uint64_t words[32];
};

static int decode_plain(const struct emu_write_method *m, const uint8_t *buf,
			size_t count, const struct ib_uverbs_cmd_hdr *hdr,
			union emu_req_buf *req, struct emu_cmd *c)
{
	size_t in_len = (size_t)hdr->in_words * 4;
	size_t out_len = (size_t)hdr->out_words * 4;

	if (in_len != count)
		return -EINVAL;
	if (!emu_access_ok((uintptr_t)buf, count, PROT_READ))
		return -EFAULT;
	in_len -= sizeof(*hdr);
	buf += sizeof(*hdr);
	if (in_len < m->req_size || out_len < m->resp_size)
		return -ENOSPC;
	memcpy(req, buf, m->req_size);
	c->req = req;
	c->req_len = m->req_size;
	c->drv_req = buf + m->req_size;
	c->drv_req_len = in_len - m->req_size;
	if (m->has_resp) {
		uint8_t *resp = (uint8_t *)(uintptr_t)req->words[0];

		if ((!resp && out_len) ||
		    !emu_access_ok((uintptr_t)resp, out_len, PROT_WRITE))
			return -EFAULT;
		c->resp = resp;
		c->resp_len = m->resp_size;
		c->drv_resp = resp ? resp + m->resp_size : NULL;
		c->drv_resp_len = out_len - m->resp_size;
	}
	return 0;
}

static int decode_ex(const struct emu_write_method *m, const uint8_t *buf,
		     size_t count, const struct ib_uverbs_cmd_hdr *hdr,
		     union emu_req_buf *req, struct emu_cmd *c)
{
	const struct ib_uverbs_ex_cmd_hdr *ex =
		(const void *)(buf + sizeof(*hdr));
	size_t in_len = (size_t)hdr->in_words * 8;
	size_t out_len = (size_t)hdr->out_words * 8;
	size_t i;

	if (count < sizeof(*hdr) + sizeof(*ex))
		return -EINVAL;
	if (!emu_access_ok((uintptr_t)ex, sizeof(*ex), PROT_READ))
		return -EFAULT;
	if (count - sizeof(*hdr) - sizeof(*ex) !=
	    in_len + (size_t)ex->provider_in_words * 8)
		return -EINVAL;
	if (!emu_access_ok((uintptr_t)buf, count, PROT_READ))
		return -EFAULT;
	if (ex->cmd_hdr_reserved)
		return -EINVAL;
	if (!ex->response && (hdr->out_words || ex->provider_out_words))
		return -EFAULT;
	if (!emu_access_ok(ex->response,
			   out_len + (size_t)ex->provider_out_words * 8,
			   PROT_WRITE))
		return -EFAULT;
	buf += sizeof(*hdr) + sizeof(*ex);
	memset(req, 0, sizeof(*req));
	memcpy(req, buf, in_len < m->req_size ? in_len : m->req_size);
	/* a longer request is fine only if the tail is zero */
	for (i = m->req_size; i < in_len; i++)
		if (buf[i])
			return -EOPNOTSUPP;
	c->ex = true;
	c->req = req;
	c->req_len = m->req_size;
	c->drv_req = buf + in_len;
	c->drv_req_len = (size_t)ex->provider_in_words * 8;
	c->resp = (void *)(uintptr_t)ex->response;
	c->resp_len = out_len < m->resp_size ? out_len : m->resp_size;
	c->drv_resp = c->resp ? (uint8_t *)c->resp + out_len : NULL;
	c->drv_resp_len = (size_t)ex->provider_out_words * 8;
	return 0;
}

/*
 * UVERBS_METHOD_INVOKE_WRITE: the same commands carried by ioctl
 * attributes. CORE_IN starts after the (ex) header, so for plain commands
 * it still holds the response pointer, which is ignored for CORE_OUT.
 * Called with ctx->lock held.
 */
int emu_uverbs_invoke_write(struct emu_context *ctx, uint32_t command,
			    const void *in, size_t in_len, void *out,
			    size_t out_len, const void *uhw_in,
			    size_t uhw_in_len, void *uhw_out,
			    size_t uhw_out_len)
{
	bool ex = command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	uint32_t cmd = command & IB_USER_VERBS_CMD_COMMAND_MASK;
	const struct emu_write_method *m;
	union emu_req_buf req;
	struct emu_cmd c = {};
	int ret;

	if (command &
	    ~(IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_CMD_COMMAND_MASK))
		return -EINVAL;
	m = lookup(cmd, ex);
	if (!m)
		return -EOPNOTSUPP;
	if (!ctx->ucontext && !m->no_ucontext)
		return -EINVAL;
	if ((!ex && in_len < m->req_size) || in_len > sizeof(req))
		return -EINVAL;
	if (m->has_resp && !ex && out_len < m->resp_size)
		return -ENOSPC;
	if (!emu_access_ok((uintptr_t)in, in_len, PROT_READ) ||
	    !emu_access_ok((uintptr_t)uhw_in, uhw_in_len, PROT_READ) ||
	    !emu_access_ok((uintptr_t)out, out_len, PROT_WRITE) ||
	    (uhw_out &&
	     !emu_access_ok((uintptr_t)uhw_out, uhw_out_len, PROT_WRITE)))
		return -EFAULT;
	memset(&req, 0, sizeof(req));
	memcpy(&req, in, in_len);
	c.ex = ex;
	c.req = &req;
	c.req_len = m->req_size;
	c.drv_req = uhw_in;
	c.drv_req_len = uhw_in_len;
	if (m->has_resp) {
		if (!out)
			return -EFAULT;
		c.resp = out;
		c.resp_len = out_len < m->resp_size ? out_len : m->resp_size;
		c.drv_resp = uhw_out;
		c.drv_resp_len = uhw_out ? uhw_out_len : 0;
		if (ex)
			memset(out, 0, out_len);
	}
	ret = m->handler(ctx, &c);
	emu_trace("ctx%u ioctl INVOKE_WRITE %s -> %s%s", ctx->id,
		  emu_write_cmd_name(cmd, ex), ret ? "errno " : "ok",
		  ret ? strerrorname_np(-ret) : "");
	return ret;
}

ssize_t emu_uverbs_write(struct emu_context *ctx, const void *buf, size_t count)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const struct emu_write_method *m;
	union emu_req_buf req;
	struct emu_cmd c = {};
	uint32_t cmd;
	bool ex;
	int ret;

	if (count < sizeof(*hdr)) {
		errno = EINVAL;
		return -1;
	}
	if (!emu_access_ok((uintptr_t)buf, sizeof(*hdr), PROT_READ)) {
		errno = EFAULT;
		return -1;
	}
	ex = hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	if (hdr->command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			     IB_USER_VERBS_CMD_COMMAND_MASK)) {
		errno = EINVAL;
		return -1;
	}
	cmd = hdr->command & IB_USER_VERBS_CMD_COMMAND_MASK;
	m = lookup(cmd, ex);

	pthread_mutex_lock(&ctx->lock);
	if (!m)
		ret = -EOPNOTSUPP; /* what a kernel without the verb says */
	else if (!ctx->ucontext && !m->no_ucontext)
		ret = -EINVAL;
	else if (ex)
		ret = decode_ex(m, buf, count, hdr, &req, &c);
	else
		ret = decode_plain(m, buf, count, hdr, &req, &c);
	if (!ret)
		ret = m->handler(ctx, &c);
	pthread_mutex_unlock(&ctx->lock);

	emu_trace("ctx%u write %s in=%u out=%u -> %s%s", ctx->id,
		  emu_write_cmd_name(cmd, ex), hdr->in_words, hdr->out_words,
		  ret ? "errno " : "ok", ret ? strerrorname_np(-ret) : "");
	if (ret) {
		errno = -ret;
		return -1;
	}
	return count;
}
