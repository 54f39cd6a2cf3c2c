/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * One RC bring-up for every tool, benchmark and test (perftest's
 * ctx_connect()): the address a QP's peer needs, and the INIT, RTR and RTS
 * steps toward that peer, with one set of attributes (4 KB MTU or less,
 * one outstanding RDMA READ/atomic each way, retries as perftest's).
 * Every call returns 0 or the errno of the verb that failed.
 */
#ifndef TDSHARE_RC_CONNECT_H
#define TDSHARE_RC_CONNECT_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* what one end of an RC connection tells the other */
struct rc_addr {
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t mtu; /* enum ibv_mtu */
	uint8_t use_gid;
	uint8_t gid[16];
};

/*
 * The port's LID, active MTU and, when gid_index >= 0 or the link is
 * Ethernet (RoCE), its GID; qpn and psn are left 0. ENETDOWN if the port
 * is not active.
 */
int rc_port_addr(struct ibv_context *ctx, unsigned int port, int gid_index,
		 struct rc_addr *out);

/* RESET -> INIT on port with the remote access flags given */
int rc_qp_init(struct ibv_qp *qp, unsigned int port, unsigned int access);

/* INIT -> RTR toward remote, at the smaller of both MTUs */
int rc_qp_rtr(struct ibv_qp *qp, unsigned int port, int gid_index,
	      const struct rc_addr *local, const struct rc_addr *remote);

/* RTR -> RTS, sending from local's PSN */
int rc_qp_rts(struct ibv_qp *qp, const struct rc_addr *local);

/* INIT -> RTR -> RTS: what a requester needs (a responder needs only RTR) */
int rc_qp_connect(struct ibv_qp *qp, unsigned int port, int gid_index,
		  const struct rc_addr *local, const struct rc_addr *remote);

/*
 * Loopback: two RESET QPs of one device, both to RTS on port, each the
 * other's destination (PSN 0).
 */
int rc_connect_pair(struct ibv_qp *a, struct ibv_qp *b, unsigned int port,
		    unsigned int access);

#endif
