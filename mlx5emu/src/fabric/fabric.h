/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fabric: carries requests from a requester QP to the responder QP it
 * is connected to, in this process (a direct call) or in another process
 * of the same user on this machine (a stream socket in the abstract
 * namespace, so nothing is left in the file system; SO_PEERCRED checked).
 *
 * Each process holds one fabric slot; the slot is encoded in the QPNs it
 * hands out ((slot + 1) << 16 | n), so a QPN names its process. A fabric
 * across hosts (--peers) gives each host a range of slots, and reaches
 * another host's processes over TCP (tcp.c).
 */
#ifndef MLX5EMU_FABRIC_H
#define MLX5EMU_FABRIC_H

#include <poll.h>

#include "nic/core/nic.h"

#include "base/peers.h"

#define FABRIC_MAX_SLOTS FABRIC_SLOTS
/* what fabric_fds() may return: listening sockets, in and out */
#define FABRIC_MAX_FDS (2 * FABRIC_MAX_SLOTS + 2)

/*
 * What the fabric asks of the NIC engine above it, lent at init: the
 * local QP for (dlid, qpn) or NULL, the local device behind dlid (the
 * first one if none is), the requesters whose peer process (fabric slot)
 * went away, and --trace's line for a datagram that left.
 */
struct fabric_nic_ops {
	struct nic_qp *(*find_qp)(uint16_t dlid, uint32_t qpn);
	struct nic_dev *(*find_dev)(uint16_t dlid);
	void (*peer_lost)(uint32_t slot);
	void (*ud_sent)(const struct nic_pkt *pkt);
};

/* set up once; called with the NIC lock held */
int fabric_init(const struct fabric_nic_ops *ops);
enum nic_ack fabric_xmit(struct nic_dev *dev, struct nic_qp *qp,
			 const struct nic_pkt *pkt);
/* in a fork() child: let go of the parent's slot and connections */
void fabric_atfork_child(void);
/* a QP was destroyed or reconnected: cached peers are stale */
void fabric_forget(void);
/* accept and answer what peers sent; returns the requests served */
unsigned int fabric_serve(void);
/* send what this pass queued for other processes */
void fabric_flush(void);
/*
 * fds an idle NIC sleeps on: a request arriving wakes it, and so does an
 * answer if answers is set (nic_req_awaits_answer())
 */
int fabric_fds(struct pollfd *fds, int max, bool answers);

/*
 * direct.c: one-sided operations executed by the requester, in the
 * memory of a responder of this host. What the responder publishes for
 * its peers (dev: the device's index; the NIC lock held or not):
 */
/* new_psn: the QP's resp_psn starts again (it enters RTR) */
void fabric_direct_qp(unsigned int dev, const struct nic_qp *qp,
		      const uint16_t *lid, unsigned int nports, bool new_psn);
/* the NIC moved the QP to state on its own (one store, no lock) */
void fabric_direct_qp_state(unsigned int dev, const struct nic_qp *qp,
			    enum nic_qp_state state);
void fabric_direct_qp_gone(unsigned int dev, const struct nic_qp *qp);
/* what peers moved for the QP since the last call (its stat counters) */
void fabric_direct_qp_counts(unsigned int dev, const struct nic_qp *qp,
			     uint64_t *dma_read, uint64_t *dma_write);
/* whether peers counted anything since it was cleared (clear: now) */
bool fabric_direct_counted(bool clear);
void fabric_direct_mr(unsigned int dev, const struct nic_mr *mr);
/* the MR is gone: no peer touches its memory once this returns */
void fabric_direct_mr_gone(unsigned int dev, uint32_t key);

#endif
