/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A thread's endpoint as an MPI+threads library builds it: a thread domain,
 * a parent domain over the shared PD, a CQ and an RC QP on that parent
 * domain, and a target QP (no TD) in the same process to write into.
 */
#ifndef TD_EP_H
#define TD_EP_H

#include <stdint.h>

#include <infiniband/verbs.h>

#define TD_EP_BUF 4096

struct td_ep {
	struct ibv_td *td;
	struct ibv_pd *parent;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uintptr_t bf_reg; /* the BlueFlame register the QP rings */

	struct ibv_cq *target_cq;
	struct ibv_qp *target;
	struct ibv_mr *src_mr, *dst_mr;
	unsigned char src[TD_EP_BUF], dst[TD_EP_BUF];
};

/* level 0: no sharing attribute (the provider's or MLX5_UAR_SHARING's default) */
struct ibv_td *td_alloc(struct ibv_context *ctx, uint32_t level);

/*
 * level, else up to max (IBV_TD_INIT_ATTR_MAX_SHARING); *granted is the
 * level the provider wrote back
 */
struct ibv_td *td_alloc_max(struct ibv_context *ctx, uint32_t level,
			    uint32_t max, uint32_t *granted);

/* the BlueFlame register a QP rings, as mlx5dv_init_obj() reports it */
uintptr_t td_qp_bf_reg(struct ibv_qp *qp);

/* td_ep_open()'s level for an endpoint with no thread domain at all */
#define TD_EP_NO_TD UINT32_MAX

/* Returns 0, or the errno of ibv_alloc_td() with nothing left allocated. */
int td_ep_open(struct td_ep *ep, struct ibv_pd *pd, uint32_t level);

/* the same on a thread domain the caller allocated; td_ep_close frees it */
void td_ep_open_td(struct td_ep *ep, struct ibv_pd *pd, struct ibv_td *td);

/*
 * n signaled RDMA writes of distinct patterns, each checked byte for byte.
 * Safe to run from many threads at once (no cmocka calls): returns NULL on
 * success, or what went wrong.
 */
const char *td_ep_traffic(struct td_ep *ep, unsigned int n, unsigned int seed);

void td_ep_close(struct td_ep *ep);

/* the 4 KB UAR and the slot inside it of a BlueFlame register */
static inline uintptr_t bf_page(uintptr_t reg)
{
	return reg & ~(uintptr_t)0xfff;
}

static inline unsigned int bf_slot(uintptr_t reg)
{
	return reg & 0xfff;
}

#endif
