/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The target of the writes: its own context, one MR over every thread's
 * region (struct wmt_regions) and one RC QP per initiator QP. In
 * loopback it lives in the same process, on a context of its own, so
 * that the initiator's figures leave it out.
 */
#ifndef WMT_TARGET_H
#define WMT_TARGET_H

#include <stddef.h>

#include <infiniband/verbs.h>

#include "rc_connect.h"
#include "ib_write_mt.h"
#include "verify.h"

struct wmt_target {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *mem;
	struct wmt_regions regions;
	struct ibv_qp **qp;
	unsigned int nqps;
};

/* Returns 0 or PERFTEST_EXIT_DEVICE; local[k] gets QP k's address. */
int wmt_target_create(struct wmt_target *t, struct ibv_device *dev,
		      const struct wmt_options *o, const struct wmt_regions *r,
		      unsigned int nqps, struct rc_addr *local, char *err,
		      size_t errlen);
int wmt_target_connect(struct wmt_target *t, const struct wmt_options *o,
		       const struct rc_addr *local,
		       const struct rc_addr *remote, char *err, size_t errlen);
void wmt_target_destroy(struct wmt_target *t);

/* a PSN for a QP, different per QP */
static inline uint32_t wmt_psn(uint32_t qpn)
{
	return (qpn * 2654435761u) & 0xffffff;
}

#endif
