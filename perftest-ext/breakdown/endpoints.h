/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The QPs one run needs on one device, in loopback: every source QP writes
 * into a target QP of its own, all targets into one registered buffer.
 *   raw   on a TD of its own, driven through mlx5dv only (raw_qp.h);
 *   td    ibv_qp_ex on a parent domain with a TD, its CQ on that domain;
 *   plain ibv_qp_ex and CQ on the plain PD.
 */
#ifndef BD_ENDPOINTS_H
#define BD_ENDPOINTS_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "raw_qp.h"

#define BD_SQ_DEPTH 256

struct bd_sender {
	struct ibv_td *td;
	struct ibv_pd *parent; /* NULL for plain */
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx; /* the same CQ, extended; NULL for plain */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *target;
	/* libmlx5's CQ seen read-only, to know a CQE is there before timing */
	struct bd_raw_cq peek;
	uint64_t posted, completed;
};

enum bd_sender_kind {
	BD_SENDER_RAW,
	BD_SENDER_TD,
	BD_SENDER_PLAIN,
	BD_NSENDERS
};

struct bd_endpoints {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *target_cq;
	struct ibv_mr *mr;
	void *buf;
	struct bd_sender src[BD_NSENDERS];
	struct bd_raw_qp raw;
};

/* device NULL: the first one. 0 or a negative errno, with a message */
int bd_endpoints_open(struct bd_endpoints *e, const char *device);
void bd_endpoints_close(struct bd_endpoints *e);

/* untimed: wait for (and consume) completions until n more WQEs fit;
 * one WQE in signal_every is signaled */
int bd_sender_make_room(struct bd_sender *s, unsigned int signal_every,
			unsigned int n);
int bd_raw_make_room(struct bd_raw_qp *r, uint32_t n);

#endif
