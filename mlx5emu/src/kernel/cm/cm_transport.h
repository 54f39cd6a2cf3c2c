/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * How CM messages travel between the processes of a fabric. A port of a
 * port space is held by one fd (held = bound, as the kernel's
 * cma_get_port() reserves it); listening on that fd serves connection
 * requests, and each connection is a channel of its own carrying the
 * messages of one CM exchange in order. cm_local.c is the one-host
 * implementation; a transport across hosts provides the same calls.
 */
#ifndef MLX5EMU_CM_TRANSPORT_H
#define MLX5EMU_CM_TRANSPORT_H

#include <stdint.h>
#include <sys/socket.h>

#include <rdma/rdma_user_cm.h>

enum cm_msg_type {
	CM_MSG_REQ = 1,
	CM_MSG_REP,
	CM_MSG_RTU,
	CM_MSG_REJ,
	CM_MSG_DREQ,
	CM_MSG_DREP,
	CM_MSG_SIDR_REQ,
	CM_MSG_SIDR_REP,
};

/* what one end tells the other about its QP (the REQ/REP fields) */
struct cm_end {
	uint32_t qpn;
	uint32_t psn;
	uint32_t qkey;
	uint16_t lid;
	uint8_t gid[16];
	uint8_t resp_res;
	uint8_t init_depth;
	uint8_t retry;
	uint8_t rnr_retry;
	uint8_t srq;
	uint8_t flow_control;
};

struct cm_msg {
	uint32_t type; /* enum cm_msg_type */
	uint32_t status; /* REJ reason, SIDR_REP status */
	struct cm_end end; /* the sender's */
	struct sockaddr_storage src, dst; /* a REQ's addresses */
	uint8_t pdata_len;
	uint8_t pdata[RDMA_MAX_PRIVATE_DATA];
};

/* holds port *port of ps (0: any free one, written back); fd or -errno */
int cm_tr_reserve(uint16_t ps, uint16_t *port);
int cm_tr_listen(int fd, int backlog);
/* a channel to the holder of ps:port; -ECONNREFUSED if nobody listens */
int cm_tr_connect(uint16_t ps, uint16_t port);
/* the next channel a listening fd was asked for; -EAGAIN if none */
int cm_tr_accept(int fd);
int cm_tr_send(int fd, const struct cm_msg *m);
/* 1: a message, 0: the peer is gone, -EAGAIN: nothing yet */
int cm_tr_recv(int fd, struct cm_msg *m);
void cm_tr_close(int fd);

#endif
