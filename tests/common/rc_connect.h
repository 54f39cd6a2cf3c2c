/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RTR and RTS steps of an RC QP toward a peer on port 1, with the
 * attributes the tests and benchmarks of the emulated device use (4 KB MTU,
 * one outstanding RDMA READ/atomic each way). No test framework: usable
 * from benchmarks too.
 */
#ifndef RC_CONNECT_H
#define RC_CONNECT_H

#include <stdint.h>

#include <infiniband/verbs.h>

/* INIT -> RTR toward QP dqpn at dlid; the ibv_modify_qp() result */
int rc_connect_rtr(struct ibv_qp *qp, uint16_t dlid, uint32_t dqpn);

/* RTR -> RTS; the ibv_modify_qp() result */
int rc_connect_rts(struct ibv_qp *qp);

#endif
