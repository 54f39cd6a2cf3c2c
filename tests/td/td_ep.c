// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "rc_loop.h"
#include "td_ep.h"

#define DEPTH 64

struct ibv_td *td_alloc(struct ibv_context *ctx, uint32_t level)
{
	struct ibv_td_init_attr attr = {};

	if (level) {
		attr.comp_mask = IBV_TD_INIT_ATTR_SHARING;
		attr.sharing = level;
	}
	return ibv_alloc_td(ctx, &attr);
}

struct ibv_td *td_alloc_max(struct ibv_context *ctx, uint32_t level,
			    uint32_t max, uint32_t *granted)
{
	struct ibv_td_init_attr attr = {
		.comp_mask =
			IBV_TD_INIT_ATTR_SHARING | IBV_TD_INIT_ATTR_MAX_SHARING,
		.sharing = level,
		.max_sharing = max,
	};
	struct ibv_td *td = ibv_alloc_td(ctx, &attr);

	*granted = td ? attr.sharing : 0;
	return td;
}

uintptr_t td_qp_bf_reg(struct ibv_qp *qp)
{
	struct mlx5dv_qp dv = {};
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dv } };

	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	return (uintptr_t)dv.bf.reg;
}

int td_ep_open(struct td_ep *ep, struct ibv_pd *pd, uint32_t level)
{
	struct ibv_td *td = NULL;

	if (level != TD_EP_NO_TD) {
		td = td_alloc(pd->context, level);
		if (!td)
			return errno;
	}
	td_ep_open_td(ep, pd, td);
	return 0;
}

void td_ep_open_td(struct td_ep *ep, struct ibv_pd *pd, struct ibv_td *td)
{
	struct ibv_context *ctx = pd->context;
	struct ibv_parent_domain_init_attr pattr = { .pd = pd };
	struct ibv_cq_init_attr_ex cattr = {
		.cqe = DEPTH,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	memset(ep, 0, sizeof(*ep));
	if (td) {
		ep->td = td;
		pattr.td = ep->td;
		ep->parent = ibv_alloc_parent_domain(ctx, &pattr);
		assert_non_null(ep->parent);
		/* the CQ is bound to the TD through the parent domain */
		cattr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
		cattr.parent_domain = ep->parent;
	}
	ep->cq = ibv_cq_ex_to_cq(ibv_create_cq_ex(ctx, &cattr));
	assert_non_null(ep->cq);
	ep->qp = rc_loop_create_qp(ep->parent ?: pd, ep->cq, DEPTH);
	assert_non_null(ep->qp);
	ep->bf_reg = td_qp_bf_reg(ep->qp);

	ep->target_cq = ibv_create_cq(ctx, DEPTH, NULL, NULL, 0);
	assert_non_null(ep->target_cq);
	ep->target = rc_loop_create_qp(pd, ep->target_cq, DEPTH);
	assert_non_null(ep->target);
	rc_loop_connect(ep->qp, ep->target);

	ep->src_mr = ibv_reg_mr(pd, ep->src, sizeof(ep->src), access);
	ep->dst_mr = ibv_reg_mr(pd, ep->dst, sizeof(ep->dst), access);
	assert_non_null(ep->src_mr);
	assert_non_null(ep->dst_mr);
}

static const char *write_one(struct td_ep *ep, size_t len, bool inline_data)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ep->src,
		.length = len,
		.lkey = ep->src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = len,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED |
			      (inline_data ? IBV_SEND_INLINE : 0),
		.wr.rdma = { .remote_addr = (uintptr_t)ep->dst,
			     .rkey = ep->dst_mr->rkey },
	};
	struct ibv_send_wr *bad;
	struct timespec start, now;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(ep->qp, &wr, &bad))
		return "ibv_post_send failed";
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!(n = ibv_poll_cq(ep->cq, 1, &wc))) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 10)
			return "no completion within 10 s";
	}
	if (n < 0)
		return "ibv_poll_cq failed";
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != len)
		return "bad completion";
	return NULL;
}

const char *td_ep_traffic(struct td_ep *ep, unsigned int n, unsigned int seed)
{
	unsigned int i, j, len;
	const char *err;

	for (i = 0; i < n; i++) {
		/* alternate inline (BlueFlame) and gathered writes */
		len = (i & 1) ? 48 : 1 + (seed * 131 + i * 977) % (TD_EP_BUF - 1);
		for (j = 0; j < len; j++)
			ep->src[j] = (unsigned char)(seed + i * 7 + j);
		memset(ep->dst, 0, sizeof(ep->dst));
		err = write_one(ep, len, i & 1);
		if (err)
			return err;
		if (memcmp(ep->dst, ep->src, len) || ep->dst[len])
			return "data differs from what was written";
	}
	return NULL;
}

void td_ep_close(struct td_ep *ep)
{
	assert_int_equal(ibv_dereg_mr(ep->src_mr), 0);
	assert_int_equal(ibv_dereg_mr(ep->dst_mr), 0);
	assert_int_equal(ibv_destroy_qp(ep->target), 0);
	assert_int_equal(ibv_destroy_cq(ep->target_cq), 0);
	assert_int_equal(ibv_destroy_qp(ep->qp), 0);
	assert_int_equal(ibv_destroy_cq(ep->cq), 0);
	if (ep->td) {
		assert_int_equal(ibv_dealloc_pd(ep->parent), 0);
		assert_int_equal(ibv_dealloc_td(ep->td), 0);
	}
}
