/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The software NIC: what a ConnectX does with the rings libmlx5 fills.
 *
 * Split the way Soft-RoCE splits it (rxe_req/rxe_resp/rxe_comp):
 *   wqe.c        parse send and receive WQEs out of the rings (wrap, checks)
 *   opcode.c     what each mlx5 send opcode means, as a table
 *   mr.c         lkey/rkey, PD, access and bounds checks
 *   requester.c  walk the SQ up to SND_DBR, transmit, retire in order,
 *                retries (rxe's completer role)
 *   qp.c         the QP's life: error, flush, reset
 *   responder.c  execute an incoming request against the RQ/SRQ and MRs
 *   srq.c        the shared receive queue: linked WQEs, limit event
 *   cqe_writer.c write CQEs, CQ arming and resize; events go out through
 *                struct nic_dev_ops
 *   fault.c      fault injection: which packets are lost or delayed
 *
 * The NIC core is those files and this header (src/nic/core/): it sees
 * plain memory (the rings as the application mapped them) plus callbacks
 * into the emulated device (struct nic_dev_ops), so the unit tests drive
 * it without libibverbs. It includes nothing above it but the fault
 * settings of src/base/. Its users embed its objects in their own and get
 * back to theirs with container_of.
 *
 * Above the core, in libmlx5emu.so only, the engine (src/nic/engine/,
 * glue.h): the NIC thread, doorbells and their trap, pacing, placement,
 * and glue.c, the NIC's side of the seam (src/seam/emu_nic.h).
 */
#ifndef MLX5EMU_NIC_H
#define MLX5EMU_NIC_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>

#include "base/fault_spec.h"

/* a branch the data path takes only under fault injection */
#define nic_unlikely(x) __builtin_expect(!!(x), 0)

#define NIC_BB 64 /* MLX5_SEND_WQE_BB */
#define NIC_MAX_DS 63 /* ds is six bits in qpn_ds */
#define NIC_MAX_SGE NIC_MAX_DS
#define NIC_MAX_INLINE (NIC_MAX_DS * 16)
#define NIC_INVALID_LKEY 0x100
#define NIC_WINDOW 64 /* WQEs a requester keeps in flight */
#define NIC_WINDOW_BYTES (64 * 1024) /* and bytes, below socket buffers */
#define NIC_PSN_MASK 0xffffff
#define NIC_RNR_DELAY_NS 640000 /* min_rnr_timer 12, what most apps set */
/* a lost peer's ACK timer at timeout 0 ("forever"): timeout 18, ~1.07 s */
#define NIC_LOST_PEER_TIMEOUT_NS (4096ull << 18)
#define NIC_UD_MTU 4096 /* the port's active MTU: a UD message's limit */
#define NIC_GRH_LEN 40 /* UD receive buffers start with room for a GRH */
#define NIC_QKEY_FROM_QP 0x80000000u /* WQE Q_Key bit: use the QP's */

/* transports, numerically enum ibv_qp_type */
enum nic_qp_type {
	NIC_QPT_RC = 2,
	NIC_QPT_UC = 3,
	NIC_QPT_UD = 4,
};

/* access flags, numerically those of enum ibv_access_flags */
enum {
	NIC_ACCESS_LOCAL_WRITE = 1,
	NIC_ACCESS_REMOTE_WRITE = 2,
	NIC_ACCESS_REMOTE_READ = 4,
	NIC_ACCESS_REMOTE_ATOMIC = 8,
};

/* async event numbers, those of enum ibv_event_type */
enum {
	NIC_EVENT_CQ_ERR = 0,
	NIC_EVENT_QP_FATAL = 1,
	NIC_EVENT_QP_REQ_ERR = 2,
	NIC_EVENT_QP_ACCESS_ERR = 3,
	NIC_EVENT_SRQ_LIMIT_REACHED = 15,
	NIC_EVENT_QP_LAST_WQE_REACHED = 16,
};

enum nic_qp_state {
	NIC_QPS_RESET,
	NIC_QPS_INIT,
	NIC_QPS_RTR,
	NIC_QPS_RTS,
	NIC_QPS_ERR,
};

/* A snapshot of one memory region as the device's MPT holds it. */
struct nic_mr {
	uint32_t lkey, rkey;
	uint32_t pdn;
	uint32_t access;
	uint64_t iova, length;
	uint8_t *va; /* where iova lands in this process */
};

struct nic_dev;
struct nic_qp;
struct nic_cq;
struct nic_srq;

/* ---- packets: what travels from requester to responder ------------ */

struct nic_iov {
	uint8_t *base;
	uint32_t len;
};

enum nic_ack {
	NIC_ACK = 0,
	NIC_NAK_RNR, /* no receive WQE: hold and retry */
	NIC_NAK_ACCESS, /* remote access error */
	NIC_NAK_INVAL, /* invalid request (e.g. too long for the RQ WQE) */
	NIC_NAK_OP, /* remote operational error */
	NIC_NAK_NOQP, /* the peer is gone: transport retries exhausted */
	NIC_NAK_RETRY, /* no QP ready to answer: retry until the timeout */
	NIC_NAK_RNR_EXC, /* rnr_retry used up */
	NIC_STALL, /* responder's CQ is full: retry later */
	NIC_NAK_SEQ, /* PSN out of sequence: dropped, not executed */
	NIC_PENDING, /* sent to another process: the answer comes later */
	NIC_LOCAL_ERR, /* failed before it left (requester's own checks) */
	NIC_DROPPED, /* UC/UD: silently discarded (no WQE, Q_Key, access) */
	NIC_DUPLICATE, /* responder's own: executed already, answer again */
	NIC_LOST, /* the peer cannot be reached: as if the packet were lost */
};

/*
 * What became of a UD datagram, counted per device (`mlx5emu stat`) and
 * told to the device (`--trace`). Everything but DELIVERED is a loss.
 */
enum nic_ud_fate {
	NIC_UD_DELIVERED,
	NIC_UD_NO_QP, /* no QP of that number behind the DLID */
	NIC_UD_QP_STATE, /* the QP is not in RTR or RTS */
	NIC_UD_QP_TYPE, /* the QP is not a UD QP, or the opcode not UD's */
	NIC_UD_QKEY, /* the Q_Key is not the QP's */
	NIC_UD_NO_WQE, /* no receive WQE posted */
	NIC_UD_CQ_OVERRUN, /* the receive CQ was full: it is in error now */
	NIC_UD_TOO_LONG, /* longer than the receive WQE: error CQE */
	NIC_UD_BAD_WQE, /* the receive WQE is malformed or its lkey bad */
	NIC_UD_UNREACHABLE, /* sender's side: the destination process is gone */
	NIC_UD_FATES
};

extern const char *const nic_ud_fate_names[NIC_UD_FATES];

struct nic_pkt {
	uint32_t psn;
	uint32_t epoch; /* requester's retransmission round */
	uint8_t opcode; /* MLX5_OPCODE_* */
	uint8_t qp_type; /* enum nic_qp_type of the requester */
	bool se;
	uint32_t src_qpn;
	uint16_t slid;
	uint16_t dlid; /* where it goes: the connection's, or UD's AV */
	uint32_t dest_qpn;
	uint32_t qkey; /* UD: the Q_Key the responder must hold */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;
	uint32_t len;
	uint64_t swap_add, compare; /* atomics, host order */
	const struct nic_iov *src; /* payload, len bytes in all */
	uint32_t nsrc;
	struct nic_iov *dst; /* READ: where the data goes */
	uint32_t ndst;
};

/* What the NIC needs from the emulated device and the fabric. */
struct nic_dev_ops {
	/* 0 and *mr filled if key names a live MR, -1 otherwise */
	int (*mr_lookup)(struct nic_dev *dev, uint32_t key, struct nic_mr *mr);
	/* a completion event for an armed CQ */
	void (*comp_event)(struct nic_dev *dev, struct nic_cq *cq);
	/* the QP entered ERR on its own (what QUERY_QP must now say) */
	void (*qp_error)(struct nic_dev *dev, struct nic_qp *qp);
	/* an affiliated async event (NIC_EVENT_*) */
	void (*qp_event)(struct nic_dev *dev, struct nic_qp *qp, int event);
	/* the SRQ's limit was reached (and is now disarmed) */
	void (*srq_event)(struct nic_dev *dev, struct nic_srq *srq, int event);
	/* a datagram's fate at qp (NULL: no such QP), counted already */
	void (*ud_fate)(struct nic_dev *dev, const struct nic_qp *qp,
			const struct nic_pkt *pkt, enum nic_ud_fate fate);
	/* the CQ overran (NIC_EVENT_CQ_ERR) */
	void (*cq_event)(struct nic_dev *dev, struct nic_cq *cq, int event);
	/* deliver a request to qp's peer and return its answer (fabric) */
	enum nic_ack (*xmit)(struct nic_dev *dev, struct nic_qp *qp,
			     const struct nic_pkt *pkt);
};

/*
 * Fault injection (fault.c). A device without it has no nic_faults: the
 * data path then tests one pointer and nothing else.
 */
struct nic_faults {
	uint64_t seed;
	struct emu_fault_sel drop, delay;
	uint64_t delay_ns;
	uint64_t ack_timeout_ns; /* 0: each QP's own */
	uint64_t cq_overrun; /* the Nth CQE of each CQ overruns it */
	bool port_down; /* every packet in or out is lost meanwhile */
	/* what happened, for `mlx5emu stat` */
	uint64_t lost, delayed; /* packets */
	uint64_t timeouts; /* local ACK timeouts: WQEs sent again */
	uint64_t retry_exc; /* WQEs failed with RETRY_EXC_ERR after them */
};

struct nic_dev {
	const struct nic_dev_ops *ops;
	struct nic_faults *faults; /* NULL: no fault injection */
	uint16_t lid;
	unsigned int index; /* the engine's device number */
	unsigned int mr_gen; /* bumped on every deregistration */
	uint64_t ud[NIC_UD_FATES]; /* datagrams that arrived here, by fate */
};

/* the last MR a QP used, valid while its gen is the device's */
struct nic_mr_cache {
	struct nic_mr mr;
	unsigned int gen;
	bool valid;
};

struct nic_cq {
	uint8_t *buf;
	uint32_t ncqe; /* power of two */
	uint32_t cqe_size; /* 64 or 128: the 64-byte CQE is the last half */
	uint32_t *dbrec; /* [0] SET_CI, [1] ARM_DB, both big endian */
	uint32_t cqn;
	uint32_t prod; /* next CQE index */

	/* arming: the last ARM_DB value taken, and what it asked for */
	bool armed;
	bool arm_solicited;
	uint32_t arm_ci;
	uint32_t se_prod; /* one past the last solicited or error CQE */

	uint64_t events; /* completion events raised */
	uint64_t stalls; /* CQE postponed: no room before SET_CI */
	/*
	 * A CQE that had no room and could not wait (a datagram) overran
	 * the CQ: as on hardware the CQ is in error from then on and
	 * takes no CQE.
	 */
	bool overrun;
	uint64_t fault_cqes; /* CQEs seen by fault injection */
};

/*
 * A shared receive queue: WQEs of 1 << shift bytes, each starting with
 * struct mlx5_wqe_srq_next_seg whose next_wqe_index links the free list
 * the application (libmlx5 or UCX) keeps. The NIC takes them in list
 * order and reports the index taken in the CQE's wqe_counter.
 */
struct nic_srq {
	struct nic_dev *dev;
	uint8_t *buf;
	uint32_t nwqe; /* power of two */
	uint32_t shift;
	uint32_t *dbrec; /* [0]: WQEs posted so far, big endian */
	uint32_t srqn;
	uint16_t head; /* index of the next WQE to take */
	uint16_t ci; /* WQEs taken so far */
	uint32_t limit; /* fire below this many posted WQEs; 0: disarmed */
	uint64_t taken;
};

/*
 * What the device moved for one QP, counted where it happens (the UAR
 * writes are the engine's, nic/engine/doorbell.c): `mlx5emu stat`.
 */
struct nic_counters {
	uint64_t wqe_bbs; /* send WQE basic blocks executed from the SQ */
	uint64_t sq_dbr, rq_dbr; /* doorbell-record advances seen */
	uint64_t dma_read; /* payload read from host memory */
	uint64_t dma_write; /* payload written into host memory */
	uint64_t cqes; /* CQEs written for the QP's WQEs */
	uint16_t sq_seen, rq_seen; /* the records' values last seen */
};

struct nic_qp {
	struct nic_dev *dev;
	uint32_t qpn;
	enum nic_qp_type type;
	uint32_t qkey; /* UD */
	struct nic_srq *srq; /* receives come from it, not from rq */
	uint32_t uidx; /* copied into every CQE (cqe_version 1) */
	uint32_t pdn;
	enum nic_qp_state state;
	uint32_t access; /* qp_access_flags: remote rights of the peer */
	bool sig_all;

	uint8_t *sq;
	uint32_t sq_bbs; /* SQ size in 64-byte basic blocks, power of 2 */
	uint8_t *rq;
	uint32_t rq_cnt; /* receive WQEs, power of 2 */
	uint32_t rq_shift; /* log2 of the receive WQE stride */
	uint32_t *dbrec; /* [0] RCV_DBR, [1] SND_DBR, big endian */

	uint16_t sq_ci; /* counter of the next send WQE to retire */
	uint16_t sq_sent; /* counter of the next send WQE to transmit */
	uint16_t rq_ci; /* counter of the next receive WQE to consume */

	/* RC transport: sent but unanswered WQEs, oldest first */
	uint32_t req_psn, resp_psn; /* next PSN to send / to accept */
	uint32_t epoch; /* bumped on every go-back: stale answers drop */
	uint8_t timeout, retry_cnt; /* from modify to RTS */
	uint64_t retry_until; /* CLOCK_MONOTONIC ns, 0: not retrying */
	uint8_t rnr_retry; /* 7: forever */
	uint8_t rnr_count; /* RNR NAKs for the oldest WQE */
	uint64_t hold_until; /* RNR timer: send nothing before, 0: none */
	uint64_t ack_due; /* local ACK timer of the oldest, 0: not running */
	uint8_t ack_retries; /* timeouts of the oldest WQE so far */
	bool peer_lost; /* its link closed or refused: the ACK timer runs */
	uint64_t fault_seq; /* packets this QP sent (fault injection) */
	/* the results of the last atomics, for duplicates */
	struct nic_atomic_result {
		uint32_t psn;
		bool valid;
		uint64_t old;
	} atomics[NIC_WINDOW];
	uint32_t fl_head, fl_tail;
	uint32_t fl_bytes;
	struct nic_flight {
		uint16_t idx;
		uint8_t nbb;
		uint8_t opcode;
		uint8_t ack; /* enum nic_ack, NIC_PENDING until answered */
		uint8_t syndrome; /* NIC_LOCAL_ERR */
		bool signaled;
		uint32_t psn;
		uint32_t len;
		uint64_t fault_seq; /* the QP's fault_seq before it went */
		bool fault_lost; /* lost by fault injection */
	} fl[NIC_WINDOW];

	struct nic_cq *scq, *rcq;

	/* connection, from modify to RTR */
	uint16_t dlid;
	uint32_t dest_qpn;
	struct nic_mr_cache lcache, rcache; /* translations, by lkey/rkey */
	struct nic_qp *peer; /* fabric's cache of the local responder */
	unsigned int peer_gen;

	/* statistics */
	uint64_t wqes, bytes, rnr_waits, retries;
	struct nic_counters cnt;
};

/* ---- wqe.c -------------------------------------------------------- */

struct nic_sge {
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
};

struct nic_opcode;

/* One send WQE as read from the SQ (never from a BlueFlame copy). */
struct nic_wqe {
	uint16_t idx; /* wqe_counter from the control segment */
	uint8_t opcode;
	uint8_t ds;
	uint8_t nbb;
	uint8_t fm_ce_se;
	uint32_t imm; /* raw big endian */
	const struct nic_opcode *op;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add, compare; /* atomic segment, host order */
	uint32_t ud_qkey, ud_dqpn; /* UD: the datagram segment */
	uint16_t ud_dlid;
	uint32_t len; /* payload bytes */
	/*
	 * The segments in WQE order. Bit i of inl_mask set: sge[i] is
	 * inline, its bytes at inl_data + sge[i].addr.
	 */
	uint32_t nsge;
	struct nic_sge sge[NIC_MAX_SGE];
	uint64_t inl_mask;
	uint32_t inl_len;
	uint8_t inl_data[NIC_MAX_INLINE];
};

int nic_wqe_parse(const struct nic_qp *qp, uint16_t idx, struct nic_wqe *w);
int nic_recv_wqe_parse(const struct nic_qp *qp, uint16_t idx,
		       struct nic_sge *sge, uint32_t *nsge);
/* the data segments of size bytes at wqe, up to an invalid lkey */
int nic_scatter_parse(const uint8_t *wqe, uint32_t size, struct nic_sge *sge,
		      uint32_t *nsge);

static inline bool nic_wqe_signaled(const struct nic_qp *qp,
				    const struct nic_wqe *w)
{
	return qp->sig_all || (w->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE);
}

/* ---- opcode.c ----------------------------------------------------- */

/*
 * What a transport means to the NIC: consulted instead of checking
 * qp->type (rxe keeps such masks per QP type in rxe_opcode.c).
 */
struct nic_transport {
	const char *name;
	bool reliable; /* answered: ACK/NAK, go-back, retries (RC) */
	bool connected; /* one peer from RTR on; else every WQE names its
			 * destination and Q_Key, which the responder checks */
	uint32_t recv_hdr; /* receive buffers start with this much room */
	uint32_t max_msg; /* longest message; 0: only the 2 GB of the CQE */
};

const struct nic_transport *nic_transport(enum nic_qp_type type);

static inline const struct nic_transport *
nic_qp_transport(const struct nic_qp *qp)
{
	return nic_transport(qp->type);
}

enum {
	NIC_OPF_VALID = 1 << 0,
	NIC_OPF_RADDR = 1 << 1, /* raddr segment follows the control seg */
	NIC_OPF_PAYLOAD = 1 << 2, /* data goes requester -> responder */
	NIC_OPF_READ = 1 << 3, /* data goes responder -> requester */
	NIC_OPF_RECV = 1 << 4, /* consumes a receive WQE */
	NIC_OPF_IMM = 1 << 5, /* carries immediate data */
	NIC_OPF_INV = 1 << 6, /* carries an rkey to invalidate */
	NIC_OPF_ATOMIC = 1 << 7, /* atomic segment after raddr, 8 bytes back */
};

struct nic_opcode {
	const char *name;
	uint32_t flags;
	uint32_t transports; /* 1 << enum nic_qp_type that may post it */
	uint32_t remote_access; /* NIC_ACCESS_* the responder must grant */
	uint8_t resp_cqe; /* MLX5_CQE_RESP_* on the responder, if RECV */
};

const struct nic_opcode *nic_opcode(uint8_t opcode);

/* ---- mr.c --------------------------------------------------------- */

/* Resolve [addr, addr+len) under key; returns 0 or an MLX5 syndrome. */
int nic_mr_local(struct nic_qp *qp, uint32_t lkey, uint64_t addr, uint32_t len,
		 uint32_t access, uint8_t **va);
int nic_mr_remote(struct nic_qp *qp, uint32_t rkey, uint64_t addr, uint32_t len,
		  uint32_t access, uint8_t **va);

/* ---- srq.c -------------------------------------------------------- */

void nic_srq_init(struct nic_srq *srq);
/* WQEs posted and not taken yet */
uint16_t nic_srq_posted(const struct nic_srq *srq);
/*
 * Take the next WQE: its index and scatter list. Returns 0, a syndrome
 * for a malformed WQE (taken all the same), or -1 when none is posted.
 */
int nic_srq_take(struct nic_srq *srq, uint16_t *idx, struct nic_sge *sge,
		 uint32_t *nsge);

/* ---- responder.c -------------------------------------------------- */

enum nic_ack nic_respond(struct nic_qp *qp, const struct nic_pkt *pkt);
/* count a datagram's fate at dev and tell the device (qp may be NULL) */
void nic_ud_fate(struct nic_dev *dev, const struct nic_qp *qp,
		 const struct nic_pkt *pkt, enum nic_ud_fate fate);
void nic_iov_copy(struct nic_iov *dst, uint32_t ndst, const struct nic_iov *src,
		  uint32_t nsrc, uint32_t len);

/* ---- requester.c -------------------------------------------------- */

/* Execute up to budget posted WQEs; returns how many were retired. */
unsigned int nic_sq_process(struct nic_qp *qp, unsigned int budget);
/* The answer to a request that went to another process (NIC_PENDING);
 * data is what a READ returned. */
void nic_req_answer(struct nic_qp *qp, uint32_t epoch, uint32_t psn,
		    enum nic_ack ack, const uint8_t *data, uint32_t len);
/*
 * The link to the peer process closed: what is in flight and was not
 * answered is treated as lost, sent again after the ACK timeout and
 * failed once the QP's retries are used up, as the HCA does.
 */
void nic_req_lost(struct nic_qp *qp);
/* would the application notice an answer now (see requester.c)? */
bool nic_req_awaits_answer(const struct nic_qp *qp);
/* a requester CQE for send WQE idx: a syndrome makes it an error CQE */
int nic_req_cqe(struct nic_qp *qp, uint16_t idx, uint8_t opcode,
		uint8_t syndrome, uint32_t byte_cnt);

/* ---- qp.c --------------------------------------------------------- */

/* Move to ERR (e.g. modify_qp) and flush what is posted. */
void nic_qp_error(struct nic_qp *qp);
unsigned int nic_qp_flush(struct nic_qp *qp);
/* RESET: the rings are zeroed by libmlx5, so are our counters. */
void nic_qp_reset(struct nic_qp *qp);

/* ---- fault.c ------------------------------------------------------ */

enum nic_fault_verdict {
	NIC_FAULT_PASS,
	NIC_FAULT_LOST,
	NIC_FAULT_DELAYED, /* qp->hold_until is set */
};

/* the fate of the next request qp sends */
enum nic_fault_verdict nic_fault_request(struct nic_dev *dev,
					 struct nic_qp *qp);
/* whether the next answer qp's responder gives (or a request that
 * arrives while the port is down) is lost */
bool nic_fault_answer_lost(struct nic_dev *dev, struct nic_qp *qp);
/* whether seq (0-based) of the QP numbered qpn is hit by sel */
bool nic_fault_hits(const struct emu_fault_sel *sel, uint64_t seed,
		    uint32_t qpn, uint64_t seq);
/* the CQE about to be written overruns cq (it is in error now) */
bool nic_fault_cq_overrun(struct nic_dev *dev, struct nic_cq *cq);
/* the local ACK timeout of qp in ns; 0: infinite */
uint64_t nic_ack_timeout_ns(const struct nic_qp *qp);
uint64_t nic_now_ns(void);

/* ---- cqe_writer.c -------------------------------------------------- */

struct nic_cqe_info {
	uint8_t opcode; /* MLX5_CQE_* */
	uint8_t syndrome; /* error CQEs */
	uint8_t wqe_opcode; /* requester: the WQE's opcode */
	uint16_t wqe_counter;
	uint32_t byte_cnt;
	uint32_t imm; /* raw big endian */
	uint32_t src_qpn;
	uint16_t slid;
	bool se;
};

bool nic_cq_has_room(const struct nic_cq *cq, uint32_t n);
/* a CQE that cannot wait found no room: the CQ goes to error */
void nic_cq_overrun(struct nic_dev *dev, struct nic_cq *cq);
int nic_cqe_write(struct nic_cq *cq, struct nic_qp *qp,
		  const struct nic_cqe_info *info);
/* Pick up ARM_DB, raise an event if due; returns true if one was. */
bool nic_cq_poll_arm(struct nic_dev *dev, struct nic_cq *cq);
void nic_cq_init(struct nic_cq *cq);
/* switch to a new ring; -EINVAL if it cannot hold the unpolled CQEs,
 * -EBUSY if the old one has no slot left for the marker */
int nic_cq_resize(struct nic_cq *cq, uint8_t *buf, uint32_t ncqe,
		  uint32_t cqe_size);

#define NIC_ARM_IDLE 0xffffffffu /* ARM_DB value no arm can produce */

static inline uint32_t nic_be32_load(const uint32_t *p)
{
	return be32toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

/*
 * The doorbell records, as the rings they belong to see them: a QP
 * created without a send (receive) queue ignores its SND_DBR (RCV_DBR),
 * as hardware does, however the application moves it.
 */
static inline uint16_t nic_sq_doorbell(const struct nic_qp *qp)
{
	return qp->sq_bbs ? nic_be32_load(&qp->dbrec[1]) & 0xffff : qp->sq_ci;
}

static inline uint16_t nic_rq_doorbell(const struct nic_qp *qp)
{
	return qp->rq_cnt ? nic_be32_load(&qp->dbrec[0]) & 0xffff : qp->rq_ci;
}

#endif
