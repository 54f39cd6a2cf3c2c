/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The NIC inside libmlx5emu.so: the core (nic.h) attached to the emulated
 * device's objects, run by one thread per process. Shared by glue.c,
 * thread.c and doorbell.c.
 */
#ifndef MLX5EMU_NIC_GLUE_H
#define MLX5EMU_NIC_GLUE_H

#include <pthread.h>

/* verbs.h (via nic.h) first: it defines RDMA_UAPI_PTR the uapi reuses */
#include "nic/core/nic.h"
#include "base/emu_libc.h"
#include "base/emu_param.h"
#include "base/emu_util.h"
#include "base/fork.h"
#include "base/sigbus.h"
#include "base/trace.h"
#include "fabric/fabric.h"
#include "seam/emu_nic.h"

#define NIC_DOORBELL_SLOTS 4 /* bfreg halves at 0x800..0xb00 of a UAR */

/* The NIC's state for an emu_qp, emu_cq, emu_srq (see seam/emu_nic.h). */
struct emu_nic_qp {
	struct nic_qp nq;
	struct emu_list node; /* nic.qps */
	struct emu_qp *qp;
	uint64_t *slot[NIC_DOORBELL_SLOTS]; /* the emulator's alias */
	uint64_t *pending[NIC_DOORBELL_SLOTS]; /* doorbell.c's, same page */
};

struct emu_nic_cq {
	struct nic_cq nc;
	struct nic_dev *dev;
	struct emu_list node; /* nic.cqs */
	struct emu_cq *cq;
};

struct emu_nic_srq {
	struct nic_srq ns;
	struct emu_srq *srq;
};

static inline struct emu_nic_qp *to_emu_nic_qp(struct nic_qp *nq)
{
	return container_of(nq, struct emu_nic_qp, nq);
}

static inline struct emu_nic_cq *to_emu_nic_cq(struct nic_cq *nc)
{
	return container_of(nc, struct emu_nic_cq, nc);
}

static inline struct emu_nic_srq *to_emu_nic_srq(struct nic_srq *ns)
{
	return container_of(ns, struct emu_nic_srq, ns);
}

/* thread.c: what the control path and the thread share, under nic.lock */
struct nic_engine {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool started;
	bool atfork;
	unsigned int kicks; /* control-path changes the thread should see */
	unsigned int passes;
	int handler_cpu; /* the CPU of a doorbell's handler holding lock, or -1 */
	struct emu_list qps, cqs;
	struct nic_dev dev[EMU_MAX_DEVICES]; /* nic_host->devices[i]'s */
};

extern struct nic_engine nic;
/* what the control path lent the NIC at init (glue.c) */
extern const struct emu_nic_host *nic_host;

/* the emulated device a core device stands for */
static inline struct emu_device *to_emu_device(struct nic_dev *ndev)
{
	return &nic_host->devices[ndev - nic.dev];
}

/* start the thread (and the fabric) if not running; nic.lock held */
int nic_start(void);
/* doorbells that wake the thread (doorbell_trap.c) */
bool nic_trap_arm(void);
void nic_trap_service(void);
bool nic_trap_take_lift(bool *fired);
void nic_trap_woken(void);
void nic_trap_lift_served(bool fired, unsigned int sq_work);
bool nic_trap_all_armed(void);
bool nic_trap_covers_all(void);
void nic_trap_stream(void);
int nic_trap_fd(void);
void nic_trap_forked(void);
/* the thread has something new to look at; nic.lock held */
void nic_kick(void);
/* a doorbell's fault does the NIC's pass (thread.c) */
bool nic_serve_doorbells(void);

/* a QP is being destroyed: send what its doorbell asked for (thread.c) */
void nic_drain_sq(struct emu_nic_qp *q);
/* pace.c: the thread's scheduling class and what it implies */
void nic_pace_start(void);
bool nic_pace_may_spin(void);
void nic_pace_account(void);
bool nic_pace_demoted(void);
/* placement.c: the thread's CPU follows its application's doorbells */
void nic_place_start(void);
void nic_place_ringer(void);
void nic_place_follow(void);
void nic_place_release(void);
/* rings and doorbell records the NIC reaches as DMA (thread.c) */
void nic_dma_area(const void *addr, size_t len);

/* fault_port.c: MLX5EMU_FAULT_* for the core (NULL: none), port outage */
struct nic_faults *nic_fault_setup(void);
/* take the ports down or up when due; nic.lock held */
void nic_fault_tick(void);

/* glue.c */
extern const struct nic_dev_ops nic_emu_ops;
/* what the fabric asks of the NIC (glue.c, fabric.h) */
extern const struct fabric_nic_ops nic_fabric_ops;
struct nic_qp *nic_find_qp(uint16_t dlid, uint32_t qpn);
struct nic_dev *nic_find_dev(uint16_t dlid);
void nic_peer_lost(uint32_t slot);
/* --trace: a datagram left (datagram.c) */
void nic_ud_trace_sent(const struct nic_pkt *pkt);

/* doorbell.c: UAR writes counted per QP, UAR page and slot */
void nic_doorbell_map(struct emu_nic_qp *q);
void nic_doorbell_watch(struct emu_nic_qp *q);
/* the counts changed since the last clean (the attribution file) */
bool nic_doorbell_dirty(void);
void nic_doorbell_clean(void);
void nic_doorbell_forget(void);
/* the QP goes: its counters stay in the process's totals */
void nic_doorbell_retire(struct emu_nic_qp *q);

/* datagram.c: UD datagrams' fates in --trace and their counts */
void nic_ud_report(struct nic_dev *dev, const struct nic_qp *qp,
		   const struct nic_pkt *pkt, enum nic_ud_fate fate);
/* the counts changed since the last clean (the attribution file) */
bool nic_ud_counts_dirty(void);
void nic_ud_counts_clean(void);
void nic_ud_counts_forget(void);

#endif
