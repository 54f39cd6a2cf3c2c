/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A thread domain's QP connected to another thread domain's QP of the same
 * context: traffic over TDs only, so that no plain QP needs a UAR of its own
 * once the TDs have taken them all. No cmocka calls: job programs use it.
 */
#ifndef TD_LINK_H
#define TD_LINK_H

#include <infiniband/verbs.h>

#define TD_LINK_BUF 256

struct td_link {
	struct ibv_td *td;
	struct ibv_pd *parent;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	/* what this link writes, and what its peer writes here */
	unsigned char buf[2][TD_LINK_BUF];
};

/* a parent domain, CQ, RC QP and MR on td; 0 or an errno, nothing held */
int td_link_open(struct td_link *l, struct ibv_pd *pd, struct ibv_td *td);

void td_link_connect(struct td_link *a, struct td_link *b);

/* an RDMA write of a pattern from one to the other: NULL or what failed */
const char *td_link_write(struct td_link *from, struct td_link *to,
			  unsigned int seed);

/* frees the link and its thread domain */
void td_link_close(struct td_link *l);

#endif
