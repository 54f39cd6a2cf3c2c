/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A requester QP and its responder, looped over port 1 of one device, of
 * one QP type, with or without a thread domain, for ibv_post_send or for
 * the ibv_wr_* API. Data lives in one region at a fixed address, so that
 * the addresses the WQEs carry are the same in every run.
 */
#ifndef MLX5_DIFF_ENDPOINT_H
#define MLX5_DIFF_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "capture.h"

#define EP_REGION_ADDR 0x5a0000000000ULL
#define EP_REGION_SIZE (4u << 20)
#define EP_SRC_OFF 0u /* what sends and writes carry */
#define EP_DST_OFF (1u << 20) /* what RDMA WRITEs write, READs read */
#define EP_RECV_OFF (2u << 20) /* receive buffers */
#define EP_LOCAL_OFF (3u << 20) /* READ and atomic results */

#define EP_SQ_DEPTH 64
#define EP_RQ_DEPTH 64
#define EP_CQ_DEPTH 128
#define EP_MAX_SGE 4
#define EP_MAX_INLINE 128
#define EP_RECV_SGE 2
#define EP_QKEY 0x11111111u

/* one device context: its PD, the region and the region's MR */
struct ep_device {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *region;
	uint16_t lid;
	uint32_t qpn_base; /* the first QPN created: QPNs are printed from it */
	bool have_qpn_base;
	/* enum ibv_td_sharing asked of every TD; 0: none (all 65.0 has) */
	unsigned int td_sharing;
};

struct ep_side {
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx; /* the ibv_wr_* API, when asked for */
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx; /* when the CQ was created extended */
	struct capture_qp cap;
	struct capture_cq ccq;
	uint32_t cq_ci; /* CQEs consumed so far */
};

struct ep_config {
	enum ibv_qp_type type;
	bool td; /* QPs and CQs of a thread domain (parent domain) */
	bool wr_api; /* posts through ibv_wr_*, not ibv_post_send */
	bool cq_ex; /* CQs from ibv_create_cq_ex (always with a TD) */
	/* without a TD: IBV_CREATE_CQ_ATTR_SINGLE_THREADED, a lock-free CQ */
	bool cq_single_threaded;
	/* one SGE, no inline data, every WR signaled (sq_sig_all) */
	bool narrow;
	bool srq; /* the responder receives from a shared receive queue */
};

struct ep_pair {
	struct ep_config cfg;
	struct ibv_td *td;
	struct ibv_pd *qp_pd; /* the parent domain with a TD, else the PD */
	struct ibv_ah *ah; /* UD: the address of the responder */
	struct ep_side req, resp;
	struct ibv_srq *srq;
	struct capture_srq csrq;
	struct ibv_qp_cap cap; /* what the requester QP really got */
};

int ep_device_open(struct ep_device *d);
void ep_device_close(struct ep_device *d);

/* creates both QPs and moves them to RTS (UD, UC, RC) */
int ep_pair_open(struct ep_device *d, struct ep_pair *p,
		 const struct ep_config *cfg);
void ep_pair_close(struct ep_pair *p);
/* both QPs, in RESET, to RTS again */
int ep_pair_reconnect(struct ep_device *d, struct ep_pair *p);

/* the QPN as printed: relative to the first QP of the device */
uint32_t ep_qpn(const struct ep_device *d, uint32_t qpn);

#endif
