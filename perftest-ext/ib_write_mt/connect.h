/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* RC QP state changes and the addresses both ends exchange. */
#ifndef WMT_CONNECT_H
#define WMT_CONNECT_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct wmt_qp_addr {
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t mtu; /* enum ibv_mtu */
	uint8_t use_gid;
	uint8_t gid[16];
};

/* this port's LID, GID (gid_index >= 0 or RoCE) and active MTU */
int wmt_port_addr(struct ibv_context *ctx, unsigned int port, int gid_index,
		  struct wmt_qp_addr *out);

int wmt_qp_init(struct ibv_qp *qp, unsigned int port, unsigned int access);
/* RTR towards remote, then RTS with psn (RTS is skipped when rts is 0) */
int wmt_qp_connect(struct ibv_qp *qp, unsigned int port, int gid_index,
		   const struct wmt_qp_addr *local,
		   const struct wmt_qp_addr *remote, int rts);

#endif
