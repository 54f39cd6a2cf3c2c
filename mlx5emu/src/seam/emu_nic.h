/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The seam between the control path (prefix emu_, src/libc, src/kernel,
 * src/verbs) and the software NIC (nic_, src/nic/engine) with its fabric
 * (fabric_, src/fabric): the calls the control path makes into the NIC,
 * and the lookups the NIC makes back. The NIC's other upward calls
 * (events, attribution, the device list) are not declared here; each is
 * a line of mlx5emu/tools/layers-allow.txt until it goes through a
 * callback registered at init.
 *
 * The NIC keeps its state for a CQ, SRQ or QP in a container that embeds
 * the NIC core's object (struct nic_cq, nic_srq, nic_qp of nic/core/nic.h)
 * beside a pointer to the emu_ object it serves. emu_cq->nic and friends
 * point at the container; to_emu_nic_cq() and friends (nic/engine/glue.h)
 * lead from the core's object back to it.
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
 * control path -> NIC (nic/engine/glue.c). Each returns with the NIC quiescent
 * for that object: no CQE for a QP after its detach or modify to RESET.
 * Called with the context's lock held, never with dev->lock.
 */
int nic_attach_cq(struct emu_cq *cq);
/* the NIC moves to the new ring (nic/core/cqe_writer.c:nic_cq_resize) */
int nic_resize_cq(struct emu_cq *cq, uint64_t buf_addr, uint32_t ncqe,
		  uint32_t cqe_size);
void nic_detach_cq(struct emu_cq *cq);
int nic_attach_qp(struct emu_qp *qp);
void nic_modify_qp(struct emu_qp *qp);
void nic_detach_qp(struct emu_qp *qp);
/* a new MR: its peers on this host may use it (fabric/direct.c) */
void nic_publish_mr(struct emu_mr *mr);
/* the MR is gone, or changed: no WQE uses it (as it was) once this returns */
void nic_forget_mr(struct emu_mr *mr);
int nic_attach_srq(struct emu_srq *srq);
void nic_arm_srq(struct emu_srq *srq); /* the limit was armed */
void nic_detach_srq(struct emu_srq *srq);
/* extra lines of the process's attribution file (nic/engine/doorbell.c) */
void nic_stat_write(FILE *f, int pid, struct emu_context *ctx);
/* the process's line of what its QPs moved (nic/engine/doorbell.c) */
void nic_stat_write_traffic(FILE *f, int pid);
/* the process's lines of datagram counts (nic/engine/datagram.c) */
void nic_stat_write_datagrams(FILE *f, int pid);
/* the process's faults record, with fault injection (nic/engine/fault_port.c) */
void nic_stat_write_faults(FILE *f, int pid);
/* the NIC thread's scheduling class (nic/engine/pace.c), "none" before it runs */
const char *nic_pace_class(void);
/* the application mapped, or unmaps, a UAR page (nic/engine/doorbell_trap.c) */
void nic_trap_add(void *addr, size_t len, bool nic_writes);
void nic_trap_remove(void *addr, size_t len);
bool nic_trap_has(void *addr);
/* "trapped" or "polled": how the NIC learns of doorbells */
const char *nic_trap_mode(void);

/* rdma_cm -> NIC: the fabric traffic before a CM message goes first */
void nic_settle(void);

/* control path -> fabric (fabric/fabric.c): QPNs unique across processes */
uint32_t fabric_qpn_base(void);

/*
 * NIC -> control path: what the control path lends the NIC, registered
 * once at init (verbs/device.c) as an ib_event_handler would be, so that
 * the NIC calls nothing above it by name. The lookups want dev->lock.
 */
struct emu_nic_host {
	struct emu_device *devices; /* emu_cfg.ndevices of them */
	struct emu_qp *(*qp_lookup)(struct emu_device *dev, uint32_t qpn);
	struct emu_mr *(*mr_lookup)(struct emu_device *dev, uint32_t key);
	/* a completion event on a CQ's channel, an async event of an object */
	void (*comp_event)(struct emu_cq *cq);
	void (*async_event)(struct emu_uobj *uobj, uint32_t type);
	/* fault injection: every port of every device goes down, or up */
	void (*ports_set)(bool up);
	/* the attribution the NIC keeps (nic_stat_write*) changed */
	void (*stat_changed)(void);
};
void nic_set_host(const struct emu_nic_host *host);

#endif
