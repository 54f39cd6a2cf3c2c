// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * CQE writer: CQEs in the format libmlx5's poll_cq parses, and CQ arming.
 *
 * A CQE is published by its op_own byte, so bytes 0-62 are written first
 * and op_own last with release ordering; the owner bit flips on every
 * pass over the ring. Nothing is kept in the CQ buffer itself: libmlx5
 * compacts it in place when a QP is reset or destroyed.
 */
#include <errno.h>
#include <string.h>

#include "nic.h"

/* 24-bit counter distance a - b, signed */
static int32_t ci_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

void nic_cq_init(struct nic_cq *cq)
{
	cq->prod = 0;
	cq->se_prod = 0;
	cq->overrun = false;
	/* libmlx5 zeroes ARM_DB, and its first arm writes 0 too: mark idle */
	__atomic_store_n(&cq->dbrec[1], NIC_ARM_IDLE, __ATOMIC_RELEASE);
}

bool nic_cq_has_room(const struct nic_cq *cq, uint32_t n)
{
	uint32_t ci = nic_be32_load(&cq->dbrec[0]) & 0xffffff;

	return ci_diff(cq->prod + n, ci) <= (int32_t)cq->ncqe;
}

/*
 * A CQ overrun, as ConnectX reports it: the CQ enters error and the
 * device raises IBV_EVENT_CQ_ERR once; from then on no CQE is written
 * to it (the application must destroy it).
 */
void nic_cq_overrun(struct nic_dev *dev, struct nic_cq *cq)
{
	if (cq->overrun)
		return;
	cq->overrun = true;
	if (dev->ops->cq_event)
		dev->ops->cq_event(dev, cq, NIC_EVENT_CQ_ERR);
}

int nic_cqe_write(struct nic_cq *cq, struct nic_qp *qp,
		  const struct nic_cqe_info *info)
{
	uint8_t *slot =
		cq->buf + (size_t)(cq->prod & (cq->ncqe - 1)) * cq->cqe_size;
	struct mlx5_cqe64 *cqe = (void *)(slot + cq->cqe_size - 64);
	uint8_t owner = !!(cq->prod & cq->ncqe);
	bool err = info->opcode == MLX5_CQE_REQ_ERR ||
		   info->opcode == MLX5_CQE_RESP_ERR;
	uint8_t op_own;

	if (cq->overrun)
		return -1;
	if (nic_unlikely(qp->dev->faults) && nic_fault_cq_overrun(qp->dev, cq))
		return -1;
	if (!nic_cq_has_room(cq, 1)) {
		cq->stalls++;
		return -1;
	}

	memset(cqe, 0, offsetof(struct mlx5_cqe64, op_own));
	cqe->srqn_uidx = htobe32(qp->uidx & 0xffffff);
	cqe->wqe_counter = htobe16(info->wqe_counter);
	if (err) {
		struct mlx5_err_cqe *ecqe = (void *)cqe;

		ecqe->syndrome = info->syndrome;
		ecqe->s_wqe_opcode_qpn =
			htobe32((uint32_t)info->wqe_opcode << 24 | qp->qpn);
	} else if (info->opcode == MLX5_CQE_REQ) {
		cqe->byte_cnt = htobe32(info->byte_cnt);
		cqe->sop_drop_qpn =
			htobe32((uint32_t)info->wqe_opcode << 24 | qp->qpn);
	} else {
		cqe->byte_cnt = htobe32(info->byte_cnt);
		cqe->imm_inval_pkey = info->imm;
		cqe->flags_rqpn = htobe32(info->src_qpn & 0xffffff);
		cqe->slid = htobe16(info->slid);
		cqe->sop_drop_qpn = htobe32(qp->qpn);
	}

	op_own = info->opcode << 4 | owner;
	if (info->se && !err && info->opcode != MLX5_CQE_REQ)
		op_own |= 1 << 1;
	__atomic_store_n(&cqe->op_own, op_own, __ATOMIC_RELEASE);

	cq->prod++;
	qp->cnt.cqes++;
	if (info->se || err)
		cq->se_prod = cq->prod;
	return 0;
}

/*
 * RESIZE_CQ as mlx5 does it: a RESIZE_CQ CQE at the producer index of the
 * old ring marks where the old ring ends, and the producer index goes on in
 * the new ring past it. libmlx5 copies the CQEs it has not polled into the
 * new ring, one index on, and steps its consumer index over the marker.
 * Nothing may move the CQ meanwhile (the NIC lock is held).
 */
int nic_cq_resize(struct nic_cq *cq, uint8_t *buf, uint32_t ncqe,
		  uint32_t cqe_size)
{
	uint32_t ci = nic_be32_load(&cq->dbrec[0]) & 0xffffff;
	int32_t outstanding = ci_diff(cq->prod, ci);
	uint8_t *slot =
		cq->buf + (size_t)(cq->prod & (cq->ncqe - 1)) * cq->cqe_size;
	struct mlx5_cqe64 *cqe = (void *)(slot + cq->cqe_size - 64);
	uint32_t raw, arm;

	/* the new ring must hold what is not polled yet, the old the marker */
	if (outstanding < 0 || (uint32_t)outstanding > ncqe)
		return -EINVAL;
	if ((uint32_t)outstanding >= cq->ncqe)
		return -EBUSY;
	memset(cqe, 0, offsetof(struct mlx5_cqe64, op_own));
	__atomic_store_n(&cqe->op_own,
			 MLX5_CQE_RESIZE_CQ << 4 | !!(cq->prod & cq->ncqe),
			 __ATOMIC_RELEASE);
	/*
	 * An arm taken for "the next CQE" must not fire on the marker: the
	 * consumer steps over it, so the arm's index moves on with it.
	 */
	raw = __atomic_load_n(&cq->dbrec[1], __ATOMIC_ACQUIRE);
	arm = be32toh(raw);
	if (raw != NIC_ARM_IDLE && ci_diff(cq->prod, arm & 0xffffff) <= 0) {
		uint32_t moved =
			htobe32((arm & ~0xffffffu) | ((arm + 1) & 0xffffff));

		__atomic_compare_exchange_n(&cq->dbrec[1], &raw, moved, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
	cq->prod++;
	cq->buf = buf;
	cq->ncqe = ncqe;
	cq->cqe_size = cqe_size;
	return 0;
}

bool nic_cq_poll_arm(struct nic_dev *dev, struct nic_cq *cq)
{
	uint32_t raw = __atomic_load_n(&cq->dbrec[1], __ATOMIC_ACQUIRE);
	uint32_t v, ci, upto;

	if (raw == NIC_ARM_IDLE)
		return false;
	v = be32toh(raw);
	ci = v & 0xffffff;
	upto = (v & (1u << 24)) ? cq->se_prod : cq->prod;
	if (ci_diff(upto, ci) <= 0)
		return false;
	/* one event per arm: a re-arm written meanwhile is answered too */
	__atomic_exchange_n(&cq->dbrec[1], NIC_ARM_IDLE, __ATOMIC_ACQ_REL);
	cq->events++;
	if (dev->ops->comp_event)
		dev->ops->comp_event(dev, cq);
	return true;
}
