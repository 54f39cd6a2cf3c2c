// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Requester: walk the SQ from our counter up to SND_DBR, execute each WQE
 * in order, and retire it (rxe's completer role; cqe_writer.c writes the
 * CQE). The SQ buffer and the doorbell record are the only truth;
 * BlueFlame copies are never read.
 *
 * Transmitted WQEs wait in a window (qp->fl) for their answer: at once
 * from a peer in this process, later from another process. They retire in
 * order; an RNR or "nobody there" answer goes back to that WQE and sends
 * it again in a new epoch, as RC go-back-N does.
 *
 * UC and UD have no answers: a WQE retires once it left, and what the
 * responder drops is never known here. A UD WQE names its destination
 * in its datagram segment; RC and UC ones go to the connected peer.
 *
 * Errors follow the IBA/mlx5 rules: the failing WQE gets an error CQE even
 * when unsignaled, the QP enters ERR (qp.c), and everything posted after
 * it (send and receive) completes with WR_FLUSH_ERR.
 */
#include "nic.h"

/* req_execute()'s word that fault injection lost it: no CQE syndrome */
#define NIC_SYNDROME_FAULT_LOST 0xff

static uint8_t ack_syndrome(enum nic_ack ack)
{
	switch (ack) {
	case NIC_NAK_ACCESS:
		return MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
	case NIC_NAK_INVAL:
		return MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
	case NIC_NAK_OP:
		return MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
	case NIC_NAK_RNR_EXC:
		return MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR;
	default:
		return MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
	}
}

int nic_req_cqe(struct nic_qp *qp, uint16_t idx, uint8_t opcode,
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
		if (w->inl_mask & (1ull << i)) {
			iov[i].base = (uint8_t *)w->inl_data + w->sge[i].addr;
			iov[i].len = w->sge[i].len;
			continue;
		}
		err = nic_mr_local(qp, w->sge[i].lkey, w->sge[i].addr,
				   w->sge[i].len, access, &iov[i].base);
		if (err)
			return err;
		iov[i].len = w->sge[i].len;
	}
	return 0;
}

/*
 * Send one parsed WQE to the responder. Returns its answer: NIC_ACK,
 * a NAK, NIC_PENDING when it went to another process, or NIC_LOCAL_ERR
 * with *syndrome when the requester's own checks failed.
 */
static enum nic_ack req_execute(struct nic_qp *qp, struct nic_wqe *w,
				uint8_t *syndrome)
{
	const struct nic_opcode *op = w->op;
	struct nic_iov iov[NIC_MAX_SGE];
	struct nic_pkt pkt = {
		.psn = qp->req_psn,
		.epoch = qp->epoch,
		.opcode = w->opcode,
		.qp_type = qp->type,
		.se = !!(w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED),
		.src_qpn = qp->qpn,
		.slid = qp->dev->lid,
		.dlid = qp->dlid,
		.dest_qpn = qp->dest_qpn,
		.raddr = w->raddr,
		.rkey = w->rkey,
		.imm = w->imm,
		.len = w->len,
		.swap_add = w->swap_add,
		.compare = w->compare,
	};
	enum nic_ack ack;
	int err;

	if (!(op->flags & (NIC_OPF_PAYLOAD | NIC_OPF_READ)))
		return NIC_ACK; /* NOP */
	if (!nic_qp_transport(qp)->connected) {
		pkt.dlid = w->ud_dlid;
		pkt.dest_qpn = w->ud_dqpn;
		/* the high bit asks for the sending QP's own Q_Key */
		pkt.qkey =
			(w->ud_qkey & NIC_QKEY_FROM_QP) ? qp->qkey : w->ud_qkey;
	}

	err = req_map(qp, w, iov,
		      (op->flags & NIC_OPF_READ) ? NIC_ACCESS_LOCAL_WRITE : 0);
	if (err) {
		*syndrome = err;
		return NIC_LOCAL_ERR;
	}
	if (op->flags & NIC_OPF_READ) {
		pkt.dst = iov;
		pkt.ndst = w->nsge;
	} else {
		pkt.src = iov;
		pkt.nsrc = w->nsge;
	}
	if (nic_unlikely(qp->dev->faults)) {
		switch (nic_fault_request(qp->dev, qp)) {
		case NIC_FAULT_DELAYED:
			return NIC_STALL; /* sent again after hold_until */
		case NIC_FAULT_LOST:
			qp->req_psn = (qp->req_psn + 1) & NIC_PSN_MASK;
			/* RC waits for an answer that never comes */
			if (!nic_qp_transport(qp)->reliable)
				return NIC_ACK;
			*syndrome = NIC_SYNDROME_FAULT_LOST;
			return NIC_PENDING;
		case NIC_FAULT_PASS:
			break;
		}
	}
	qp->req_psn = (qp->req_psn + 1) & NIC_PSN_MASK;
	ack = qp->dev->ops->xmit(qp->dev, qp, &pkt);
	if (ack != NIC_STALL && (op->flags & NIC_OPF_PAYLOAD))
		qp->cnt.dma_read += w->len - w->inl_len; /* inline came along */
	else if (ack == NIC_ACK && (op->flags & NIC_OPF_READ))
		qp->cnt.dma_write += w->len; /* a local peer wrote it */
	/* unreliable: gone is done, whatever became of it; a full link
	 * (NIC_STALL) did not take it, so it goes again later */
	return nic_qp_transport(qp)->reliable || ack == NIC_STALL ? ack :
								    NIC_ACK;
}

static bool window_full(const struct nic_qp *qp, uint32_t len)
{
	uint32_t n = qp->fl_tail - qp->fl_head;

	return n == NIC_WINDOW || (n && qp->fl_bytes + len > NIC_WINDOW_BYTES);
}

/* the newest WQE in flight was answered with a NAK, or faults lost it */
static bool window_naked(const struct nic_qp *qp)
{
	const struct nic_flight *f = &qp->fl[(qp->fl_tail - 1) % NIC_WINDOW];

	return f->fault_lost || (f->ack != NIC_ACK && f->ack != NIC_PENDING);
}

/* the local ACK timer's period; a lost peer is given up on at timeout 0 too */
static uint64_t ack_timer_ns(const struct nic_qp *qp)
{
	uint64_t tmo = nic_ack_timeout_ns(qp);

	return !tmo && qp->peer_lost ? NIC_LOST_PEER_TIMEOUT_NS : tmo;
}

/*
 * The peer cannot be reached now: while something sent to it waits for
 * the ACK timer, nothing more is sent, so the requester tries (and, when
 * nobody holds the peer's slot, connects) once per ACK timeout, not on
 * every pass.
 */
static bool req_held_for_peer(const struct nic_qp *qp)
{
	return qp->peer_lost && qp->fl_tail != qp->fl_head;
}

/* Transmit posted WQEs; returns how many are left waiting for answers. */
static unsigned int req_transmit(struct nic_qp *qp, uint16_t pi,
				 unsigned int budget)
{
	unsigned int sent = 0, pending = 0;
	struct nic_wqe w;

	if (qp->hold_until) {
		if (nic_now_ns() < qp->hold_until)
			return 0;
		qp->hold_until = 0;
	}
	/*
	 * Under fault injection nothing follows a NAK until the requester
	 * went back, so a run sends the same packets whatever the timing.
	 */
	if (nic_unlikely(qp->dev->faults) && qp->fl_tail != qp->fl_head &&
	    window_naked(qp))
		return 0;
	if (req_held_for_peer(qp))
		return 0;

	while (qp->sq_sent != pi && sent < budget) {
		uint16_t avail = pi - qp->sq_sent;
		struct nic_flight *f;
		uint32_t psn = qp->req_psn;
		uint64_t fault_seq = qp->fault_seq;
		uint8_t syndrome = 0;
		enum nic_ack ack;
		bool lost;
		int err;

		err = nic_wqe_parse(qp, qp->sq_sent, &w);
		/* a WQE may not claim BBs that were never posted */
		if (!err && w.nbb > avail)
			err = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		/* an error entry takes a window slot like any WQE */
		if (window_full(qp, err ? 0 : w.len))
			break;
		if (err) {
			ack = NIC_LOCAL_ERR;
			syndrome = err;
		} else {
			ack = req_execute(qp, &w, &syndrome);
		}
		/* nobody there (the connect was refused): a lost packet */
		lost = ack == NIC_LOST;
		if (lost) {
			qp->peer_lost = true;
			ack = NIC_PENDING;
		}
		f = &qp->fl[qp->fl_tail++ % NIC_WINDOW];
		f->idx = qp->sq_sent;
		f->nbb = w.nbb < avail ? w.nbb : avail;
		f->opcode = w.opcode;
		f->ack = ack;
		f->syndrome = syndrome;
		f->signaled = !err && nic_wqe_signaled(qp, &w);
		f->psn = psn;
		f->len = w.len;
		f->fault_seq = fault_seq;
		/*
		 * How many packets would follow a lost one (or one whose
		 * answer was lost) before its ACK timer fires depends on
		 * timing: under fault injection none does, so the go-back
		 * starts from the same fault sequence.
		 */
		f->fault_lost = syndrome == NIC_SYNDROME_FAULT_LOST;
		/* a local responder answers at once: none is a lost answer */
		if (nic_unlikely(qp->dev->faults) && ack == NIC_PENDING &&
		    qp->peer)
			f->fault_lost = true;
		if (f->fault_lost)
			f->syndrome = 0;
		qp->fl_bytes += w.len;
		qp->sq_sent += f->nbb;
		qp->cnt.wqe_bbs += f->nbb;
		sent++;
		if (ack == NIC_PENDING)
			pending++;
		else if (ack != NIC_ACK)
			break; /* nothing after a NAK goes out */
		if (lost || f->fault_lost)
			break; /* nor after a packet that went nowhere */
	}
	return pending;
}

/*
 * Nobody answered: retry like the HCA does, for (retry_cnt + 1) local ACK
 * timeouts of 4.096 us << timeout (timeout 0: forever), so a peer that is
 * still on its way to RTR is waited for.
 */
static bool retry_expired(struct nic_qp *qp)
{
	uint64_t now;

	if (!qp->timeout)
		return false;
	now = nic_now_ns();
	if (!qp->retry_until) {
		qp->retry_until =
			now + (qp->retry_cnt + 1ull) * nic_ack_timeout_ns(qp);
		return false;
	}
	return now >= qp->retry_until;
}

/*
 * Go back to the oldest WQE and send it and all after it again. The ACK
 * timer starts again too: an answer (an RNR NAK) came, or it expired.
 */
static void req_go_back(struct nic_qp *qp, const struct nic_flight *f)
{
	qp->ack_due = 0;
	qp->sq_sent = f->idx;
	qp->req_psn = f->psn;
	qp->fl_tail = qp->fl_head;
	qp->fl_bytes = 0;
	qp->epoch++;
}

/*
 * The oldest WQE got no answer (packets are lost only when faults are
 * injected or the link to the peer closed): after the local ACK timeout
 * send it again, as go-back-N does, and after retry_cnt retries fail it
 * with RETRY_EXC_ERR. A sequence NAK (the responder missed a packet) goes
 * back at once and counts as a retry too. Returns true when it went back.
 */
static bool req_ack_timeout(struct nic_qp *qp, struct nic_flight *f)
{
	uint64_t tmo = ack_timer_ns(qp), now;

	if (f->ack == NIC_PENDING) {
		if (!tmo)
			return false;
		now = nic_now_ns();
		if (!qp->ack_due) {
			qp->ack_due = now + tmo;
			return false;
		}
		if (now < qp->ack_due)
			return false;
	}
	qp->ack_due = 0;
	if (++qp->ack_retries > qp->retry_cnt) {
		f->ack = NIC_NAK_NOQP; /* retries exhausted */
		if (qp->dev->faults)
			qp->dev->faults->retry_exc++;
		return false;
	}
	qp->retries++;
	if (qp->dev->faults)
		qp->dev->faults->timeouts++;
	req_go_back(qp, f);
	return true;
}

/* Retire answered WQEs in order; returns how many. */
static unsigned int req_complete(struct nic_qp *qp)
{
	unsigned int done = 0;

	while (qp->fl_head != qp->fl_tail) {
		struct nic_flight *f = &qp->fl[qp->fl_head % NIC_WINDOW];
		uint8_t err = 0;

		if (f->ack == NIC_PENDING || f->ack == NIC_NAK_SEQ) {
			/* nothing is lost unless faults are injected */
			if (!qp->dev->faults && !qp->peer_lost) {
				if (f->ack == NIC_PENDING)
					break;
			} else if (req_ack_timeout(qp, f) ||
				   f->ack == NIC_PENDING) {
				break;
			}
		}
		if (f->ack == NIC_NAK_RETRY && retry_expired(qp))
			f->ack = NIC_NAK_NOQP;
		/*
		 * How many RNR NAKs come depends on when the receive is
		 * posted: the packets they cost must not move the fault
		 * sequence, so the try that gets in is judged as the first.
		 */
		if (f->ack == NIC_NAK_RNR)
			qp->fault_seq = f->fault_seq;
		/* a finite rnr_retry waits the RNR timer between tries */
		if (f->ack == NIC_NAK_RNR && qp->rnr_retry < 7) {
			if (++qp->rnr_count > qp->rnr_retry)
				f->ack = NIC_NAK_RNR_EXC;
			else
				qp->hold_until =
					nic_now_ns() + NIC_RNR_DELAY_NS;
		}
		if (f->ack == NIC_NAK_RETRY || f->ack == NIC_NAK_RNR ||
		    f->ack == NIC_STALL) {
			/*
			 * rnr_retry 7 is "forever": go back to this WQE and
			 * send it again later; the responder dropped all that
			 * followed, and their answers belong to the old epoch.
			 */
			if (f->ack == NIC_NAK_RETRY)
				qp->retries++;
			else
				qp->rnr_waits++;
			req_go_back(qp, f);
			break;
		}
		if (f->ack == NIC_LOCAL_ERR)
			err = f->syndrome;
		else if (f->ack != NIC_ACK)
			err = ack_syndrome(f->ack);
		/* the CQE must fit before the WQE may retire */
		if ((err || f->signaled) && !nic_cq_has_room(qp->scq, 1))
			break;
		if (err) {
			qp->peer_lost = false;
			qp->retry_until = 0;
			qp->rnr_count = 0;
			qp->ack_due = 0;
			qp->ack_retries = 0;
			/* the failing WQE completes even when unsignaled */
			nic_req_cqe(qp, f->idx, f->opcode, err, 0);
			qp->sq_ci += f->nbb;
			qp->fl_head = qp->fl_tail;
			qp->fl_bytes = 0;
			nic_cq_poll_arm(qp->dev, qp->scq);
			nic_qp_error(qp);
			return done + 1;
		}
		if (f->signaled)
			nic_req_cqe(qp, f->idx, f->opcode, 0,
				    nic_opcode(f->opcode)->flags &
						    NIC_OPF_READ ?
					    f->len :
					    0);
		qp->sq_ci += f->nbb;
		qp->retry_until = 0;
		qp->rnr_count = 0;
		qp->ack_due = 0;
		qp->ack_retries = 0;
		qp->fl_head++;
		qp->fl_bytes -= f->len;
		qp->wqes++;
		qp->bytes += f->len;
		done++;
	}
	if (done)
		nic_cq_poll_arm(qp->dev, qp->scq);
	return done;
}

unsigned int nic_sq_process(struct nic_qp *qp, unsigned int budget)
{
	unsigned int pending;
	uint16_t pi;

	if (qp->state == NIC_QPS_ERR)
		return nic_qp_flush(qp);
	if (qp->state != NIC_QPS_RTS)
		return 0;

	pi = nic_sq_doorbell(qp);
	if (pi != qp->cnt.sq_seen) {
		qp->cnt.sq_dbr++;
		qp->cnt.sq_seen = pi;
	}
	pending = req_transmit(qp, pi, budget);
	return pending + req_complete(qp);
}

/*
 * Does the application wait for an answer to what is in flight: a
 * completion it asked for, READ data or an atomic's result, or room for
 * WQEs the window holds back? The answers to the rest (unsignaled WRITEs
 * and SENDs) only free window slots, so a sleeping NIC need not wake for
 * them: it reads them when something else wakes it. In a round trip the
 * peer's answer comes just before its next request, and the wake-up
 * saved is one of the four per message a two-core machine pays for.
 */
bool nic_req_awaits_answer(const struct nic_qp *qp)
{
	uint32_t i;

	if (qp->state != NIC_QPS_RTS || qp->fl_head == qp->fl_tail)
		return false;
	/* with faults injected or the peer lost an ACK timer runs */
	if (qp->sq_sent != nic_sq_doorbell(qp) || qp->dev->faults ||
	    qp->peer_lost)
		return true;
	for (i = qp->fl_head; i != qp->fl_tail; i++) {
		const struct nic_flight *f = &qp->fl[i % NIC_WINDOW];
		const struct nic_opcode *op = nic_opcode(f->opcode);

		if (f->ack == NIC_PENDING &&
		    (f->signaled ||
		     (op && (op->flags & (NIC_OPF_READ | NIC_OPF_ATOMIC)))))
			return true;
	}
	return false;
}

void nic_req_answer(struct nic_qp *qp, uint32_t epoch, uint32_t psn,
		    enum nic_ack ack, const uint8_t *data, uint32_t len)
{
	uint32_t i;

	if (epoch != qp->epoch || qp->state != NIC_QPS_RTS)
		return; /* an answer to something we sent again since */
	qp->peer_lost = false; /* someone answers there again */
	for (i = qp->fl_head; i != qp->fl_tail; i++) {
		struct nic_flight *f = &qp->fl[i % NIC_WINDOW];
		struct nic_iov iov[NIC_MAX_SGE], src;
		struct nic_wqe w;
		int err;

		if (f->psn != psn || f->ack != NIC_PENDING)
			continue;
		f->ack = ack;
		if (ack != NIC_ACK || !len)
			return;
		/* READ data goes where the WQE, still in the SQ, says */
		err = nic_wqe_parse(qp, f->idx, &w);
		if (!err && len != w.len)
			err = MLX5_CQE_SYNDROME_BAD_RESP_ERR;
		if (!err)
			err = req_map(qp, &w, iov, NIC_ACCESS_LOCAL_WRITE);
		if (err) {
			f->ack = NIC_LOCAL_ERR;
			f->syndrome = err;
			return;
		}
		src.base = (uint8_t *)data;
		src.len = len;
		nic_iov_copy(iov, w.nsge, &src, 1, len);
		qp->cnt.dma_write += len;
		return;
	}
}

/*
 * A real HCA never learns that its peer went away: it retransmits until
 * the QP's timeout x (retry_cnt + 1) has passed. So a peer that exits
 * after its last ACK fails nobody, and answers read before the close
 * (nic_req_answer) stand. What is left waits for the ACK timer.
 */
void nic_req_lost(struct nic_qp *qp)
{
	uint32_t i;

	for (i = qp->fl_head; i != qp->fl_tail && !qp->peer_lost; i++)
		qp->peer_lost = qp->fl[i % NIC_WINDOW].ack == NIC_PENDING;
}
