/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The object model of the emulated device (mirrors mlx5_ib + ib_uverbs):
 *   emu_device   one per emulated HCA; owns the number spaces a NIC looks
 *                things up by (QPN, CQN, mkey index, HW UAR index) under
 *                dev->lock.
 *   emu_context  one per open() of the cdev: the uverbs file + ucontext.
 *                Owns the uobject handle table and the UAR pages.
 *   emu_pd/mr/cq/srq/qp/uar_page   the uobjects.
 *
 * A CQ, SRQ or QP the NIC executes carries a typed pointer to the NIC's
 * state for it (emu_nic.h). The control path owns these objects; the NIC
 * reads the rings and numbers they hold, which is why they sit in the
 * seam, below the control path and above the NIC. Only the kernel uAPI
 * headers are used; nothing of libmlx5's private headers.
 */
#ifndef MLX5EMU_VERBS_H
#define MLX5EMU_VERBS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "base/emu_param.h"
#include "base/emu_util.h"

struct emu_nic_cq;
struct emu_nic_qp;
struct emu_nic_srq;

enum emu_obj_type {
	EMU_OBJ_PD = 1,
	EMU_OBJ_MR,
	EMU_OBJ_CQ,
	EMU_OBJ_QP,
	EMU_OBJ_UAR,
	EMU_OBJ_SRQ,
};

struct emu_context;

/* What the kernel keeps per uobject: handle, owner and users. */
struct emu_uobj {
	enum emu_obj_type type;
	uint32_t handle;
	struct emu_context *ctx;
	uint64_t user_handle;
	unsigned int usecnt; /* other objects pointing at this one */
};

struct emu_event_file;

struct emu_pd {
	struct emu_uobj uobj;
	uint32_t pdn;
};

struct emu_mr {
	struct emu_uobj uobj;
	struct emu_pd *pd;
	uint32_t lkey, rkey; /* index << 8 | key byte; never 0x100 */
	uint64_t start, length, iova;
	uint32_t access;
};

enum emu_uar_kind {
	EMU_UAR_KIND_STATIC, /* GET_CONTEXT, mmap command 0/2/3 */
	EMU_UAR_KIND_ALLOC_WC, /* legacy dynamic page, mmap command 6 */
	EMU_UAR_KIND_OBJ_BF, /* UAR_OBJ_ALLOC type BF */
	EMU_UAR_KIND_OBJ_NC, /* UAR_OBJ_ALLOC type NC */
};

/*
 * One system page of UARs (nuars 4 KB HW UARs, ids page_id..+nuars-1),
 * backed by a slot of the context's memfd so the emulator keeps its own
 * alias of what the application writes there.
 */
struct emu_uar_page {
	struct emu_uobj uobj; /* handle only for UAR objects */
	struct emu_list node; /* ctx->uar_pages */
	enum emu_uar_kind kind;
	uint32_t index; /* static page i or ALLOC_WC index k */
	uint32_t page_id;
	uint32_t nuars;
	uint32_t slot; /* UAR objects: mmap entry slot, else UINT32_MAX */
	uint64_t file_off; /* in the memfd: the offset libmlx5 maps */
	size_t len;
	uint64_t mmap_offset; /* what the application passes to mmap() */
	void *alias; /* emulator's own mapping */
	unsigned int app_maps;
	bool destroyed; /* uobject gone, waits for munmap */
	unsigned int nqps;
	unsigned int ncqs;
	struct emu_list stat_node; /* ctx->stat_pages, under the stat lock */
};

struct emu_cq {
	struct emu_uobj uobj;
	uint32_t cqn;
	uint32_t ncqe; /* power of two; the app sees cqe = ncqe - 1 */
	uint32_t cqe_size;
	uint64_t buf_addr, db_addr;
	uint32_t comp_vector;
	struct emu_uar_page *uar; /* where the arm doorbell rings */
	struct emu_event_file *channel;
	/* destroy answers these; the NIC's CQE writer raises the events */
	uint32_t comp_events_reported;
	uint32_t async_events_reported;
	struct emu_nic_cq *nic; /* the NIC's state for this CQ */
};

/* A basic SRQ: a ring of linked receive WQEs (mlx5_wqe_srq_next_seg). */
struct emu_srq {
	struct emu_uobj uobj;
	uint32_t srqn;
	struct emu_pd *pd;
	uint32_t nwqe; /* power of two; the app may post nwqe - 1 */
	uint32_t max_sge; /* data segments that fit a WQE */
	uint32_t wqe_shift;
	uint64_t buf_addr, db_addr;
	uint32_t limit; /* armed limit, 0 once the event fired */
	uint32_t events_reported;
	struct emu_nic_srq *nic; /* the NIC's state for this SRQ */
};

enum emu_qp_state {
	EMU_QPS_RESET,
	EMU_QPS_INIT,
	EMU_QPS_RTR,
	EMU_QPS_RTS,
	EMU_QPS_SQD,
	EMU_QPS_SQE,
	EMU_QPS_ERR,
};

/* how the QP's doorbell UAR was chosen (mlx5_ib create_qp_user) */
enum emu_qp_uar_how {
	EMU_QP_UAR_STATIC_BFREG, /* kernel-allocated static bfreg */
	EMU_QP_UAR_BFREG_INDEX, /* MLX5_QP_FLAG_BFREG_INDEX: ALLOC_WC page */
	EMU_QP_UAR_PAGE_INDEX, /* MLX5_QP_FLAG_UAR_PAGE_INDEX: UAR object */
};

struct emu_qp {
	struct emu_uobj uobj;
	uint32_t qpn;
	uint8_t qp_type; /* IB_UVERBS_QPT_RC, UC or UD */
	bool sq_sig_all;
	uint32_t create_flags;
	struct emu_pd *pd;
	struct emu_cq *send_cq, *recv_cq;
	struct emu_srq *srq; /* receives through it instead of an RQ */
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge,
		max_inline_data;

	/* rings the NIC reads */
	uint64_t buf_addr, db_addr;
	uint32_t sq_wqe_cnt, rq_wqe_cnt, rq_wqe_shift;
	uint32_t uidx;
	uint32_t mlx5_flags;

	/* doorbell binding */
	struct emu_uar_page *uar;
	uint32_t uar_id; /* 4 KB HW UAR inside the page */
	enum emu_qp_uar_how uar_how;
	int bfregn; /* static bfreg number, EMU_INVALID_BFREG otherwise */
	uint32_t bfreg_index; /* as sent/answered */

	/* modify_qp state */
	enum emu_qp_state state;
	uint32_t access;
	uint16_t pkey_index;
	uint8_t port;
	uint8_t path_mtu;
	uint32_t dest_qp_num;
	uint32_t rq_psn, sq_psn;
	uint32_t qkey;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t path_mig_state;
	struct ib_uverbs_qp_dest ah;
	struct ib_uverbs_qp_dest alt_ah;

	uint32_t events_reported;
	pid_t tid; /* the thread that created it, for attribution */
	struct emu_list stat_node; /* ctx->stat_qps, under the stat lock */
	struct emu_nic_qp *nic; /* the NIC's state for this QP */
};

/* ---- device and context ---- */

struct emu_port {
	uint16_t lid;
	uint8_t state; /* IB_PORT_ACTIVE */
};

struct emu_device {
	unsigned int index;
	char name[16];
	uint64_t node_guid;
	struct emu_port port[EMU_MAX_PORTS];

	pthread_mutex_t lock; /* guards everything below */
	struct emu_table qps; /* by qpn - EMU_FIRST_QPN */
	struct emu_table cqs; /* by cqn */
	struct emu_table mrs; /* by mkey index */
	struct emu_table pds; /* by pdn */
	struct emu_table srqs; /* by srqn */
	uint8_t *uar_used; /* HW UAR index bitmap (bytes) */
	uint32_t uar_hint;
	uint8_t mkey_variant;
	struct emu_list contexts;
};

struct emu_context {
	struct emu_device *dev;
	int fd; /* memfd: the app's cmd_fd and the UAR backing store */
	pid_t pid; /* the process that opened it; children only inherit the fd */
	uint32_t id; /* process-wide, for attribution */
	struct emu_list node; /* dev->contexts */
	pthread_mutex_t lock; /* serialises the file's commands */
	bool ucontext;
	struct emu_table handles;
	struct emu_event_file *async;

	/* UARs (mlx5_bfreg_info) */
	enum emu_uar_mode uar_mode;
	uint32_t nupp;
	uint32_t tot_bfregs; /* static bfregs, 0 in dynamic mode */
	uint32_t low_lat_bfregs;
	uint32_t num_static_pages;
	uint32_t num_dyn_bfregs;
	uint32_t num_dyn_pages;
	uint32_t *bfreg_count; /* [tot_bfregs] */
	struct emu_uar_page **static_pages; /* [num_static_pages] */
	struct emu_uar_page **wc_pages; /* [num_dyn_pages] */
	struct emu_list uar_pages;
	uint32_t nr_uars; /* HW UARs held, against the limit */
	/* UAR requests refused, for attribution */
	uint32_t uar_refused;
	const char *uar_refused_what;
	int uar_refused_errno;
	uint32_t uctx_ver; /* 0: v1 request, 2: v2 */
	uint8_t cqe_version;

	/* attribution records, under the stat lock */
	struct emu_list stat_node;
	struct emu_list stat_pages;
	struct emu_list stat_qps;

	/* memfd slots backing the UAR pages */
	size_t slot_size;
	uint64_t file_size; /* of the memfd */
	bool maps_unseen; /* the app's mmap/munmap bypass us: scan the maps */
	uint32_t wc_refused; /* 1 + ALLOC_WC index refused in a scan */
	uint32_t nslots;
	uint8_t *slot_used;
};

/* a command as the uverbs write and ioctl paths hand it to its body */
struct emu_cmd {
	bool ex;
	bool native; /* a native ioctl method: no write-only side effects */
	const void *req; /* core request, zero-extended to req_size */
	size_t req_len;
	const void *drv_req; /* driver (UHW) request */
	size_t drv_req_len;
	void *resp; /* core response */
	size_t resp_len;
	void *drv_resp;
	size_t drv_resp_len;
};

#endif
