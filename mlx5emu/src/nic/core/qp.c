// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The QP's life outside the transport (rxe_qp.c's job): entering ERR,
 * flushing what is posted, and RESET. The control path drives them
 * through modify_qp; the requester and responder enter ERR on their own.
 */
#include <string.h>

#include "nic.h"

void nic_qp_error(struct nic_qp *qp)
{
	bool entering = qp->state != NIC_QPS_ERR;

	if (entering && qp->dev->ops->qp_error)
		qp->dev->ops->qp_error(qp->dev, qp);
	qp->state = NIC_QPS_ERR;
	nic_qp_flush(qp);
	/*
	 * A QP in error takes nothing more from its SRQ; the receives it had
	 * taken are done or flushed above. Applications wait for this event
	 * before they destroy such a QP.
	 */
	if (entering && qp->srq && qp->dev->ops->qp_event)
		qp->dev->ops->qp_event(qp->dev, qp,
				       NIC_EVENT_QP_LAST_WQE_REACHED);
}

unsigned int nic_qp_flush(struct nic_qp *qp)
{
	unsigned int done = 0;
	uint16_t pi;

	/* whatever was in flight is flushed from sq_ci on */
	qp->fl_head = qp->fl_tail;
	qp->fl_bytes = 0;
	qp->epoch++;

	pi = nic_sq_doorbell(qp);
	while (qp->sq_ci != pi) {
		struct nic_wqe w;
		/*
		 * A WQE the NIC cannot execute still spans the blocks its
		 * control segment gives (the parse says 1 when that is
		 * unreadable): each WQE is one flushed completion.
		 */
		nic_wqe_parse(qp, qp->sq_ci, &w);
		if (w.nbb > (uint16_t)(pi - qp->sq_ci))
			w.nbb = 1;
		if (nic_req_cqe(qp, qp->sq_ci, w.opcode,
				MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0))
			break;
		qp->sq_ci += w.nbb;
		done++;
	}
	if (qp->rq && qp->rcq) {
		pi = nic_rq_doorbell(qp);
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
	qp->sq_sent = qp->sq_ci;
	if (done)
		nic_cq_poll_arm(qp->dev, qp->scq);
	return done;
}

void nic_qp_reset(struct nic_qp *qp)
{
	qp->state = NIC_QPS_RESET;
	qp->sq_ci = 0;
	qp->sq_sent = 0;
	qp->rq_ci = 0;
	qp->fl_head = qp->fl_tail = 0;
	qp->fl_bytes = 0;
	qp->retry_until = 0;
	qp->rnr_count = 0;
	qp->hold_until = 0;
	qp->ack_due = 0;
	qp->ack_retries = 0;
	qp->peer_lost = false;
	qp->cnt.sq_seen = qp->cnt.rq_seen = 0;
	memset(qp->atomics, 0, sizeof(qp->atomics));
	qp->epoch++;
}
