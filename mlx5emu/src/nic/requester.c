// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Requester: walk the SQ from our counter up to SND_DBR, execute each WQE
 * in order, and retire it through the completer. The SQ buffer and the
 * doorbell record are the only truth; BlueFlame copies are never read.
 *
 * Errors follow the IBA/mlx5 rules: the failing WQE gets an error CQE even
 * when unsignaled, the QP enters ERR, and everything posted after it (send
 * and receive) completes with WR_FLUSH_ERR.
 */
#include "nic.h"

static uint8_t ack_syndrome(enum nic_ack ack)
{
	switch (ack) {
	case NIC_NAK_ACCESS:
		return MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
	case NIC_NAK_INVAL:
		return MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
	case NIC_NAK_OP:
		return MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
	default:
		return MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
	}
}

static int req_cqe(struct nic_qp *qp, uint16_t idx, uint8_t opcode,
		   uint8_t syndrome, uint32_t byte_cnt)
{
	struct nic_cqe_info ci = {
		.opcode = syndrome ? MLX5_CQE_REQ_ERR : MLX5_CQE_REQ,
		.syndrome = syndrome,
		.wqe_opcode = opcode,
		.wqe_counter = idx,
		.byte_cnt = byte_cnt,
	};

	return nic_cqe_write(qp->scq, qp, &ci);
}

/* Local SGEs to host iovecs: the lkey checks of the requester. */
static int req_map(struct nic_qp *qp, const struct nic_wqe *w,
		   struct nic_iov *iov, uint32_t access)
{
	uint32_t i;
	int err;

	for (i = 0; i < w->nsge; i++) {
		err = nic_mr_local(qp->dev, qp->pdn, w->sge[i].lkey,
				   w->sge[i].addr, w->sge[i].len, access,
				   &iov[i].base);
		if (err)
			return err;
		iov[i].len = w->sge[i].len;
	}
	return 0;
}

/*
 * Execute one parsed WQE. Returns 0 when done, an MLX5 syndrome when it
 * failed, or -1 when it must be retried later (RNR, responder's CQ full).
 */
static int req_execute(struct nic_qp *qp, struct nic_wqe *w)
{
	const struct nic_opcode *op = w->op;
	struct nic_iov iov[NIC_MAX_SGE], inl;
	struct nic_pkt pkt = {
		.opcode = w->opcode,
		.se = !!(w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED),
		.src_qpn = qp->qpn,
		.slid = qp->dev->lid,
		.raddr = w->raddr,
		.rkey = w->rkey,
		.imm = w->imm,
		.len = w->len,
	};
	enum nic_ack ack;
	int err;

	if (!(op->flags & (NIC_OPF_PAYLOAD | NIC_OPF_READ)))
		return 0; /* NOP */

	if (w->inl) {
		inl.base = w->inl_data;
		inl.len = w->len;
		pkt.src = &inl;
		pkt.nsrc = 1;
	} else {
		err = req_map(qp, w, iov,
			      (op->flags & NIC_OPF_READ) ?
				      NIC_ACCESS_LOCAL_WRITE :
				      0);
		if (err)
			return err;
		if (op->flags & NIC_OPF_READ) {
			pkt.dst = iov;
			pkt.ndst = w->nsge;
		} else {
			pkt.src = iov;
			pkt.nsrc = w->nsge;
		}
	}

	ack = qp->dev->ops->xmit(qp->dev, qp, &pkt);
	if (ack == NIC_ACK)
		return 0;
	if (ack == NIC_NAK_RNR || ack == NIC_STALL) {
		/* rnr_retry 7 is "forever": hold until the peer posts */
		qp->rnr_waits++;
		return -1;
	}
	return ack_syndrome(ack);
}

unsigned int nic_sq_process(struct nic_qp *qp, unsigned int budget)
{
	unsigned int done = 0;
	struct nic_wqe w;
	uint16_t pi;
	int err;

	if (qp->state == NIC_QPS_ERR)
		return nic_qp_flush(qp);
	if (qp->state != NIC_QPS_RTS)
		return 0;

	pi = nic_be32_load(&qp->dbrec[1]) & 0xffff;
	while (qp->sq_ci != pi && done < budget) {
		err = nic_wqe_parse(qp, qp->sq_ci, &w);
		/* a WQE may not claim BBs that were never posted */
		if (!err && w.nbb > (uint16_t)(pi - qp->sq_ci))
			err = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		/* make sure the CQE can be written before acting */
		if ((err || nic_wqe_signaled(qp, &w)) &&
		    !nic_cq_has_room(qp->scq, 1))
			break;
		if (!err) {
			err = req_execute(qp, &w);
			if (err < 0)
				break;
		}
		if (err) {
			/* the counter the CQE carries must be ours, not the WQE's */
			req_cqe(qp, qp->sq_ci, w.opcode, err, 0);
			qp->sq_ci += w.nbb < (uint16_t)(pi - qp->sq_ci) ?
					     w.nbb :
					     (uint16_t)(pi - qp->sq_ci);
			done++;
			nic_cq_poll_arm(qp->dev, qp->scq);
			nic_qp_error(qp);
			return done;
		}
		if (nic_wqe_signaled(qp, &w))
			req_cqe(qp, w.idx, w.opcode, 0,
				(w.op->flags & NIC_OPF_READ) ? w.len : 0);
		qp->sq_ci += w.nbb;
		qp->wqes++;
		qp->bytes += w.len;
		done++;
	}
	if (done)
		nic_cq_poll_arm(qp->dev, qp->scq);
	return done;
}

void nic_qp_error(struct nic_qp *qp)
{
	if (qp->state != NIC_QPS_ERR && qp->dev->ops->qp_error)
		qp->dev->ops->qp_error(qp->dev, qp);
	qp->state = NIC_QPS_ERR;
	nic_qp_flush(qp);
}

unsigned int nic_qp_flush(struct nic_qp *qp)
{
	unsigned int done = 0;
	uint16_t pi;

	pi = nic_be32_load(&qp->dbrec[1]) & 0xffff;
	while (qp->sq_ci != pi) {
		struct nic_wqe w;
		int err = nic_wqe_parse(qp, qp->sq_ci, &w);

		if (err || w.nbb > (uint16_t)(pi - qp->sq_ci))
			w.nbb = 1;
		if (req_cqe(qp, qp->sq_ci, w.opcode,
			    MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0))
			break;
		qp->sq_ci += w.nbb;
		done++;
	}
	if (qp->rq && qp->rcq) {
		pi = nic_be32_load(&qp->dbrec[0]) & 0xffff;
		while (qp->rq_ci != pi) {
			struct nic_cqe_info ci = {
				.opcode = MLX5_CQE_RESP_ERR,
				.syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
				.wqe_counter = qp->rq_ci,
			};

			if (nic_cqe_write(qp->rcq, qp, &ci))
				break;
			qp->rq_ci++;
			done++;
		}
		if (done)
			nic_cq_poll_arm(qp->dev, qp->rcq);
	}
	if (done)
		nic_cq_poll_arm(qp->dev, qp->scq);
	return done;
}

void nic_qp_reset(struct nic_qp *qp)
{
	qp->state = NIC_QPS_RESET;
	qp->sq_ci = 0;
	qp->rq_ci = 0;
}
