/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Limits and configuration of the emulated device (rxe_param.h's job):
 * the fixed sizes, and emu_cfg, which config.c fills once from the
 * environment through the option table (option.h). The values of choice
 * options are their index in the option's list of choices.
 */
#ifndef MLX5EMU_PARAM_H
#define MLX5EMU_PARAM_H

#include <limits.h>
#include <stdbool.h>

#include "fault_spec.h"
#include "peers.h"
#include "model.h"

#define EMU_MAX_FDS 65536
#define EMU_ADAPTER_PAGE 4096 /* one HW UAR */
#define EMU_NON_FP_BFREGS_PER_UAR 2
#define EMU_BFREGS_PER_UAR 4
#define EMU_MAX_BFREGS 512
#define EMU_FIRST_UAR_ID 0x10 /* low HW UARs belong to the driver */
#define EMU_FIRST_QPN 0x100
#define EMU_SEND_WQE_BB 64 /* MLX5_SEND_WQE_BB */
/*
 * QPNs are (fabric slot + 1) << 16 | n: a process (per device) has the
 * QPNs from EMU_FIRST_QPN up to its slot's end, and that is the max_qp
 * the device reports.
 */
#define EMU_QPN_SLOT_SIZE 0x10000
#define EMU_MAX_QP (EMU_QPN_SLOT_SIZE - EMU_FIRST_QPN)
#define EMU_INVALID_BFREG (-1)
#define EMU_NUM_COMP_VECTORS 4
#define EMU_SRQ_MAX_SGE 31 /* 512-byte receive descriptor, less the link */
#define EMU_MMAP_CMD_SHIFT 8 /* mmap offsets: command in bits 8-15 */
#define EMU_MMAP_DYN_CMD 9 /* first command the kernel uses for entries */
#define EMU_FABRIC_NAME_MAX 64 /* its socket names must fit in sun_path */

enum emu_uar_mode {
	EMU_UAR_DYNAMIC,
	EMU_UAR_STATIC,
};

enum emu_transport {
	EMU_TRANSPORT_WRITE,
	EMU_TRANSPORT_IOCTL,
};

enum emu_nic_mode {
	EMU_NIC_POLL,
	EMU_NIC_SPIN,
};

/* the NIC thread's scheduling class (nic/engine/pace.c) */
enum emu_nic_sched {
	EMU_NIC_SCHED_AUTO,
	EMU_NIC_SCHED_FIFO,
	EMU_NIC_SCHED_SLICE,
	EMU_NIC_SCHED_OTHER,
};

/* what a doorbell rung while the NIC sleeps does (nic/engine/doorbell_trap.c) */
enum emu_doorbell_trap {
	EMU_TRAP_SIGNAL, /* the ringing thread does the NIC's pass */
	EMU_TRAP_WAKE, /* the fault wakes the NIC thread */
	EMU_TRAP_OFF, /* nothing: the thread polls */
};

struct emu_config {
	const struct emu_model *model;
	unsigned int ndevices;
	unsigned int nports;
	enum emu_uar_mode uar_mode;
	enum emu_transport transport;
	unsigned int uars_per_page; /* dynamic: 4 KB UARs per UAR object */
	unsigned int dyn_bfregs; /* static: num_dyn_bfregs reported */
	unsigned int uar_limit; /* HW UARs per context, 0 = no limit */
	unsigned int uar_id_end; /* HW UAR indices below this (device size) */
	int trace_fd; /* -1: tracing off */
	bool netlink; /* NETLINK_RDMA sockets answered (else refused) */
	bool maps_query; /* pointer checks may use PROCMAP_QUERY */
	enum emu_doorbell_trap doorbell_trap;
	bool onesided; /* one-sided operations without the responder's CPU */
	char stat_dir[PATH_MAX];
	char fabric[EMU_FABRIC_NAME_MAX + 1]; /* the fabric: who sees whom */
	struct fabric_peers peers; /* its hosts; n = 0: this one only */
	char fabric_secret[FABRIC_SECRET_MAX + 1]; /* what TCP peers show */
	bool nic_spin; /* the NIC thread never sleeps */
	enum emu_nic_sched nic_sched; /* the class it asks for */
	unsigned int nic_idle_us; /* its longest sleep, 0: 1 us */
	unsigned int nic_budget; /* WQEs per QP per pass */
	unsigned int max_qp; /* QPs per process and device, <= EMU_MAX_QP */
	struct emu_fault_cfg fault;
};

extern struct emu_config emu_cfg;
/* config.c: fill emu_cfg from the environment, once */
void emu_config_init(void);

#endif
