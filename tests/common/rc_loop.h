/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RC queue pairs connected to each other inside one process, over port 1 of
 * one device: enough to move data through a QP without a second process.
 */
#ifndef RC_LOOP_H
#define RC_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* An RC QP with max_send_wr = max_recv_wr = depth, one SGE, 64 B inline. */
struct ibv_qp *rc_loop_create_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				 uint32_t depth);

/* Moves two QPs of the same context to RTS, each the other's destination. */
void rc_loop_connect(struct ibv_qp *a, struct ibv_qp *b);

#endif
