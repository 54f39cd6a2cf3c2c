/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The seam between the control path (prefix emu_, the files of src/),
 * the software NIC (nic_, src/nic/) and its fabric (fabric_,
 * src/fabric/): every call across it, either way, is declared here.
 *
 * The NIC keeps its state for a CQ, SRQ or QP in a container that embeds
 * the NIC core's object (struct nic_cq, nic_srq, nic_qp of nic/nic.h)
 * beside a pointer to the emu_ object it serves. emu_cq->nic and friends
 * point at the container; to_emu_nic_cq() and friends (nic/glue.h) lead
 * from the core's object back to it.
 */
#ifndef MLX5EMU_NIC_SEAM_H
#define MLX5EMU_NIC_SEAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "emu_verbs.h"

struct nic_dev;
struct nic_pkt;
struct nic_qp;
struct emu_nic_cq;
struct emu_nic_qp;
struct emu_nic_srq;

/*
 * control path -> NIC (nic/glue.c). Each returns with the NIC quiescent
 * for that object: no CQE for a QP after its detach or modify to RESET.
 * Called with the context's lock held, never with dev->lock.
 */
int nic_attach_cq(struct emu_cq *cq);
/* the NIC moves to the new ring (see nic/completer.c:nic_cq_resize) */
int nic_resize_cq(struct emu_cq *cq, uint64_t buf_addr, uint32_t ncqe,
		  uint32_t cqe_size);
void nic_detach_cq(struct emu_cq *cq);
int nic_attach_qp(struct emu_qp *qp);
void nic_modify_qp(struct emu_qp *qp);
void nic_detach_qp(struct emu_qp *qp);
/* the MR is gone: no WQE uses it once this returns */
void nic_forget_mr(struct emu_mr *mr);
int nic_attach_srq(struct emu_srq *srq);
void nic_arm_srq(struct emu_srq *srq); /* the limit was armed */
void nic_detach_srq(struct emu_srq *srq);
/* extra lines of the process's attribution file (nic/doorbell.c) */
void nic_stat_write(FILE *f, int pid, struct emu_context *ctx);
/* the process's lines of datagram counts (nic/datagram.c) */
void nic_stat_write_datagrams(FILE *f, int pid);
/* the process's faults record, with fault injection (nic/fault_port.c) */
void nic_stat_write_faults(FILE *f, int pid);
/* the NIC thread's scheduling class (nic/pace.c), "none" before it runs */
const char *nic_pace_class(void);
/* the application mapped, or unmaps, a UAR page (nic/doorbell_trap.c) */
void nic_trap_add(void *addr, size_t len, bool nic_writes);
void nic_trap_remove(void *addr, size_t len);
bool nic_trap_has(void *addr);
/* "trapped" or "polled": how the NIC learns of doorbells */
const char *nic_trap_mode(void);

/* rdma_cm -> NIC: the fabric traffic before a CM message goes first */
void nic_settle(void);

/* control path -> fabric (fabric/fabric.c) */
/* QPNs unique per emulated device across processes */
uint32_t fabric_qpn_base(void);
/* HW UAR indices unique per emulated device across processes */
bool fabric_claim_uar(unsigned int dev, uint32_t id);
void fabric_release_uar(unsigned int dev, uint32_t id);

/*
 * NIC -> control path: lookups by number (qp.c, cq.c, mr.c); dev->lock
 * must be held. Events and attribution go through event.c and stat.c.
 */
struct emu_qp *emu_qp_lookup(struct emu_device *dev, uint32_t qpn);
struct emu_cq *emu_cq_lookup(struct emu_device *dev, uint32_t cqn);
struct emu_mr *emu_mr_lookup(struct emu_device *dev, uint32_t key);

/* fabric -> NIC (nic/glue.c) */
/* the local QP for (dlid, qpn), or NULL */
struct nic_qp *nic_find_qp(uint16_t dlid, uint32_t qpn);
/* the local device behind dlid (the first one if none is) */
struct nic_dev *nic_find_dev(uint16_t dlid);
/* --trace: a datagram left (nic/datagram.c) */
void nic_ud_trace_sent(const struct nic_pkt *pkt);
/* the requesters whose peer process (fabric slot) went away */
void nic_peer_lost(uint32_t slot);

#endif
