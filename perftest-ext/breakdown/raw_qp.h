/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A post path of our own over mlx5dv: libmlx5 keeps a QP's producer index
 * and BlueFlame offset private, so this QP is never touched through libmlx5
 * after mlx5dv_init_obj(). One 8-byte inline RDMA WRITE per WQE (64 bytes,
 * one BlueFlame copy). The steps are inline functions so that the timed and
 * the untimed post run the same instructions.
 */
#ifndef BD_RAW_QP_H
#define BD_RAW_QP_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "barriers.h"

/* a CQ's doorbell record: consumer index first, then the arm word */
enum { BD_CQ_SET_CI = 0 };

struct bd_raw_cq {
	uint8_t *buf;
	volatile __be32 *dbrec;
	uint32_t cqe_cnt;
	uint32_t cqe_size;
	uint32_t ci;
};

struct bd_raw_qp {
	uint8_t *sq_buf;
	uint32_t sq_wqe_cnt;
	volatile __be32 *dbrec;
	uint8_t *bf_reg;
	uint32_t bf_size;
	uint32_t bf_offset;
	uint32_t qpn;
	uint16_t pi; /* next WQE */
	uint16_t acked; /* WQEs the CQ has reported done */
	uint64_t raddr;
	uint32_t rkey;
	struct bd_raw_cq cq;
};

/* from libmlx5's QP and CQ; raddr/rkey is where the writes go */
int bd_raw_cq_init(struct bd_raw_cq *r, struct ibv_cq *cq);
int bd_raw_qp_init(struct bd_raw_qp *r, struct ibv_qp *qp, struct ibv_cq *cq,
		   uint64_t raddr, uint32_t rkey);

/* WQEs that may still be posted without overwriting unexecuted ones */
static inline uint32_t bd_raw_room(const struct bd_raw_qp *r)
{
	return r->sq_wqe_cnt - (uint16_t)(r->pi - r->acked);
}

/* step 1: control, remote address and inline segments of the next WQE */
static inline void *bd_raw_build(struct bd_raw_qp *r, uint64_t value,
				 bool signaled)
{
	uint8_t *wqe =
		r->sq_buf + (r->pi & (r->sq_wqe_cnt - 1)) * MLX5_SEND_WQE_BB;
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5_wqe_raddr_seg *raddr = (void *)(ctrl + 1);
	struct mlx5_wqe_inl_data_seg *inl = (void *)(raddr + 1);

	/* ctrl + raddr + (inline header + 8 bytes) = 3 units of 16 bytes */
	mlx5dv_set_ctrl_seg(ctrl, r->pi, MLX5_OPCODE_RDMA_WRITE, 0, r->qpn,
			    signaled ? MLX5_WQE_CTRL_CQ_UPDATE : 0, 3, 0, 0);
	raddr->raddr = htobe64(r->raddr);
	raddr->rkey = htobe32(r->rkey);
	raddr->reserved = 0;
	inl->byte_count = htobe32(8 | MLX5_INLINE_SEG);
	memcpy(inl + 1, &value, 8);
	r->pi++;
	return wqe;
}

/* step 3: the doorbell record the device reads the producer index from */
static inline void bd_raw_dbr(struct bd_raw_qp *r)
{
	r->dbrec[MLX5_SND_DBR] = htobe32(r->pi);
}

/* step 5: the whole WQE to the BlueFlame register */
static inline void bd_raw_bf_copy(struct bd_raw_qp *r, const void *wqe)
{
	bd_copy64(r->bf_reg + r->bf_offset, wqe);
}

/* after the flush: the other half of the BlueFlame register next time */
static inline void bd_raw_bf_toggle(struct bd_raw_qp *r)
{
	r->bf_offset ^= r->bf_size;
}

/*
 * Untimed, before a timed post: the lines the next post writes (its WQE
 * slot, the doorbell record, the BlueFlame half) made ours and drained. On
 * the emulated device a NIC thread reads and writes those lines through the
 * CPU caches, and a loaded machine evicts them between posts; neither
 * happens to a real NIC's WC BlueFlame register. The timed post then costs
 * its own instructions, not the emulator's cache traffic.
 */
static inline void bd_raw_warm(struct bd_raw_qp *r)
{
	volatile uint64_t *slot =
		(volatile uint64_t *)(r->sq_buf +
				      (r->pi & (r->sq_wqe_cnt - 1)) *
					      MLX5_SEND_WQE_BB);
	volatile uint64_t *bf = (volatile uint64_t *)(r->bf_reg + r->bf_offset);

	*slot = *slot;
	r->dbrec[MLX5_SND_DBR] = r->dbrec[MLX5_SND_DBR];
	/* zero is no doorbell: the device ignores it */
	*bf = 0;
	bd_flush_writes();
}

/* the whole post, untimed: build, barrier, DBR, WC start, copy, flush */
static inline void bd_raw_post(struct bd_raw_qp *r, uint64_t value,
			       bool signaled)
{
	void *wqe = bd_raw_build(r, value, signaled);

	bd_to_device_barrier();
	bd_raw_dbr(r);
	bd_wc_start();
	bd_raw_bf_copy(r, wqe);
	bd_flush_writes();
	bd_raw_bf_toggle(r);
}

static inline struct mlx5_cqe64 *bd_raw_cqe(const struct bd_raw_cq *c)
{
	uint8_t *p = c->buf + (c->ci & (c->cqe_cnt - 1)) * c->cqe_size;

	/* a 128-byte CQE carries the 64-byte one in its second half */
	return (struct mlx5_cqe64 *)(p + c->cqe_size - 64);
}

/* a CQE is there for the consumer index (does not consume it) */
static inline bool bd_raw_cqe_ready(const struct bd_raw_cq *c)
{
	struct mlx5_cqe64 *cqe = bd_raw_cqe(c);
	uint8_t op_own = *(volatile uint8_t *)&cqe->op_own;

	return (op_own >> 4) != MLX5_CQE_INVALID &&
	       (op_own & MLX5_CQE_OWNER_MASK) == !!(c->ci & c->cqe_cnt);
}

/*
 * LLP_prog: consume one CQE. 1 and *wqe_counter when there was one, 0 when
 * not, -1 on an error CQE.
 */
static inline int bd_raw_poll(struct bd_raw_cq *c, uint16_t *wqe_counter)
{
	struct mlx5_cqe64 *cqe;
	uint8_t opcode;

	if (!bd_raw_cqe_ready(c))
		return 0;
	cqe = bd_raw_cqe(c);
	/* the rest of the CQE only after its owner bit */
	bd_from_device_barrier();
	opcode = mlx5dv_get_cqe_opcode(cqe);
	*wqe_counter = be16toh(cqe->wqe_counter);
	c->ci++;
	c->dbrec[BD_CQ_SET_CI] = htobe32(c->ci & 0xffffff);
	return opcode == MLX5_CQE_REQ ? 1 : -1;
}

/* one poll of the QP's CQ; moves acked on */
static inline int bd_raw_reap(struct bd_raw_qp *r)
{
	uint16_t counter;
	int n = bd_raw_poll(&r->cq, &counter);

	if (n > 0)
		r->acked = counter + 1;
	return n;
}

#endif
