// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Responder: one incoming request against this QP's RQ (or SRQ) and
 * memory. Every check is made before the first byte moves, so a request
 * that fails leaves the target memory untouched. RC answers every
 * request; UC and UD drop what they cannot take, as the IBA says.
 */
#include <string.h>

#include "nic.h"

void nic_iov_copy(struct nic_iov *dst, uint32_t ndst, const struct nic_iov *src,
		  uint32_t nsrc, uint32_t len)
{
	uint32_t di = 0, si = 0, doff = 0, soff = 0;

	while (len && di < ndst && si < nsrc) {
		uint32_t n = dst[di].len - doff;

		if (n > src[si].len - soff)
			n = src[si].len - soff;
		if (n > len)
			n = len;
		memcpy(dst[di].base + doff, src[si].base + soff, n);
		len -= n;
		doff += n;
		soff += n;
		if (doff == dst[di].len) {
			di++;
			doff = 0;
		}
		if (soff == src[si].len) {
			si++;
			soff = 0;
		}
	}
}

/*
 * An atomic on 8 aligned bytes that other QPs and the host may touch at
 * the same time. ConnectX firmware in host-endian atomic mode (what
 * mlx5_ib requires before it reports IBV_ATOMIC_HCA) treats them as a
 * host-order integer and returns the old value in host order.
 */
static uint64_t nic_atomic(const struct nic_pkt *pkt, uint64_t *p)
{
	uint64_t old;

	if (pkt->opcode == MLX5_OPCODE_ATOMIC_CS) {
		/* on a mismatch, old is updated to what memory holds */
		old = pkt->compare;
		__atomic_compare_exchange_n(p, &old, pkt->swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		return old;
	}
	return __atomic_fetch_add(p, pkt->swap_add, __ATOMIC_SEQ_CST);
}

/* The receive WQE a message lands in, from the SRQ or the QP's RQ. */
struct resp_wqe {
	uint16_t idx; /* the CQE's wqe_counter */
	uint32_t nsge;
	struct nic_sge sge[NIC_MAX_SGE];
};

static bool resp_wqe_posted(const struct nic_qp *qp)
{
	if (qp->srq)
		return nic_srq_posted(qp->srq) != 0;
	return qp->rq_ci != nic_rq_doorbell(qp);
}

/* Take the next receive WQE; returns 0 or the syndrome of a bad one. */
static int resp_wqe_take(struct nic_qp *qp, struct resp_wqe *rw)
{
	uint16_t pi;
	int err;

	if (qp->srq)
		return nic_srq_take(qp->srq, &rw->idx, rw->sge, &rw->nsge);
	pi = nic_rq_doorbell(qp);
	if (pi != qp->cnt.rq_seen) {
		qp->cnt.rq_dbr++;
		qp->cnt.rq_seen = pi;
	}
	rw->idx = qp->rq_ci++;
	err = nic_recv_wqe_parse(qp, rw->idx, rw->sge, &rw->nsge);
	return err;
}

/* The responder side of an error: CQE, ERR state, async event. */
static void resp_fail(struct nic_qp *qp, const struct resp_wqe *rw,
		      uint8_t syndrome, int event)
{
	if (rw) {
		struct nic_cqe_info ci = {
			.opcode = MLX5_CQE_RESP_ERR,
			.syndrome = syndrome,
			.wqe_counter = rw->idx,
		};

		/* room was checked before the receive WQE was taken */
		nic_cqe_write(qp->rcq, qp, &ci);
	}
	nic_qp_error(qp);
	if (event && qp->dev->ops->qp_event)
		qp->dev->ops->qp_event(qp->dev, qp, event);
}

/* Drop the first skip bytes of a scatter list (UD's GRH room). */
static void iov_skip(struct nic_iov *iov, uint32_t *n, uint32_t skip)
{
	uint32_t i = 0, j;

	while (i < *n && skip >= iov[i].len)
		skip -= iov[i++].len;
	if (i < *n) {
		iov[i].base += skip;
		iov[i].len -= skip;
	}
	for (j = 0; i < *n; i++, j++)
		iov[j] = iov[i];
	*n = j;
}

/* Map the WQE's scatter list; the message must fit it. */
static enum nic_ack resp_scatter(struct nic_qp *qp, const struct resp_wqe *rw,
				 const struct nic_pkt *pkt, struct nic_iov *dst,
				 uint32_t *ndst)
{
	uint32_t i, room = 0, hdr = nic_qp_transport(qp)->recv_hdr;
	int err = 0;

	for (i = 0; !err && i < rw->nsge; i++) {
		err = nic_mr_local(qp, rw->sge[i].lkey, rw->sge[i].addr,
				   rw->sge[i].len, NIC_ACCESS_LOCAL_WRITE,
				   &dst[i].base);
		dst[i].len = rw->sge[i].len;
		room += rw->sge[i].len;
	}
	if (err) {
		resp_fail(qp, rw, err, NIC_EVENT_QP_FATAL);
		return NIC_NAK_OP;
	}
	if ((uint64_t)pkt->len + hdr > room) {
		resp_fail(qp, rw, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
			  NIC_EVENT_QP_REQ_ERR);
		return NIC_NAK_INVAL;
	}
	*ndst = rw->nsge;
	/* the GRH room stays as it was: there is no GRH on this fabric */
	iov_skip(dst, ndst, hdr);
	return NIC_ACK;
}

/* psn comes before expected, within half the PSN space */
static bool psn_behind(uint32_t psn, uint32_t expected)
{
	return ((expected - psn - 1) & NIC_PSN_MASK) < (NIC_PSN_MASK + 1) / 2;
}

/*
 * A request executed already, sent again because its answer was lost:
 * a SEND or WRITE is only acknowledged again, a READ is read again and
 * an atomic returns the value it returned the first time, as the IBA
 * wants of a responder.
 */
static enum nic_ack resp_duplicate(struct nic_qp *qp,
				   const struct nic_opcode *op,
				   const struct nic_pkt *pkt)
{
	const struct nic_atomic_result *a;
	struct nic_iov mem;

	if (!op || !(op->flags & NIC_OPF_READ))
		return NIC_ACK;
	if (op->flags & NIC_OPF_ATOMIC) {
		a = &qp->atomics[pkt->psn % NIC_WINDOW];
		if (!a->valid || a->psn != pkt->psn)
			return NIC_NAK_INVAL; /* too old to answer */
		mem.base = (uint8_t *)&a->old;
		mem.len = 8;
	} else {
		if (nic_mr_remote(qp, pkt->rkey, pkt->raddr, pkt->len,
				  op->remote_access, &mem.base))
			return NIC_NAK_ACCESS;
		mem.len = pkt->len;
	}
	nic_iov_copy(pkt->dst, pkt->ndst, &mem, 1, mem.len);
	if (!(op->flags & NIC_OPF_ATOMIC)) /* its result is kept, not read */
		qp->cnt.dma_read += mem.len;
	return NIC_ACK;
}

/*
 * Whether this QP takes the packet at all. RC answers what it cannot
 * take; UC and UD drop it, and UD also drops a wrong Q_Key. *fate says
 * why a datagram goes no further.
 */
static enum nic_ack resp_admit(struct nic_qp *qp, const struct nic_opcode *op,
			       const struct nic_pkt *pkt,
			       enum nic_ud_fate *fate)
{
	const struct nic_transport *tp = nic_qp_transport(qp);
	bool rc = tp->reliable;

	*fate = NIC_UD_QP_STATE;
	if (qp->state != NIC_QPS_RTR && qp->state != NIC_QPS_RTS)
		return rc ? NIC_NAK_RETRY : NIC_DROPPED;
	*fate = NIC_UD_QP_TYPE;
	if (pkt->qp_type != qp->type)
		return rc ? NIC_NAK_INVAL : NIC_DROPPED;
	/*
	 * After an RNR NAK everything up to its retransmission is dropped;
	 * a PSN behind the expected one is a retransmission of something
	 * done already, whose answer was lost. Only fault injection loses
	 * answers: without it such a PSN is a peer's mistake (e.g. a QP
	 * connected to itself with the wrong PSN), and fails.
	 */
	if (rc && pkt->psn != qp->resp_psn)
		return qp->dev->faults && psn_behind(pkt->psn, qp->resp_psn) ?
			       NIC_DUPLICATE :
			       NIC_NAK_SEQ;
	if (!op || !(op->flags & (NIC_OPF_PAYLOAD | NIC_OPF_READ)) ||
	    !(op->transports & (1u << qp->type))) {
		if (!rc)
			return NIC_DROPPED;
		resp_fail(qp, NULL, 0, NIC_EVENT_QP_REQ_ERR);
		return NIC_NAK_INVAL;
	}
	*fate = NIC_UD_QKEY;
	if (!tp->connected && pkt->qkey != qp->qkey)
		return NIC_DROPPED;
	if (op->flags & NIC_OPF_RECV) {
		*fate = NIC_UD_NO_WQE;
		if (!resp_wqe_posted(qp)) {
			qp->rnr_waits++;
			return rc ? NIC_NAK_RNR : NIC_DROPPED;
		}
		/*
		 * RC holds the message (a stall is an RNR the requester
		 * does not count); a datagram cannot wait: it overruns the
		 * CQ, which takes nothing from then on.
		 */
		*fate = NIC_UD_CQ_OVERRUN;
		if (!tp->connected && qp->rcq->overrun)
			return NIC_DROPPED;
		if (!nic_cq_has_room(qp->rcq, 1)) {
			if (rc)
				return NIC_STALL;
			if (!tp->connected)
				nic_cq_overrun(qp->dev, qp->rcq);
			return NIC_DROPPED;
		}
	}
	*fate = NIC_UD_DELIVERED;
	return NIC_ACK;
}

const char *const nic_ud_fate_names[NIC_UD_FATES] = {
	[NIC_UD_DELIVERED] = "delivered",
	[NIC_UD_NO_QP] = "no_qp",
	[NIC_UD_QP_STATE] = "qp_state",
	[NIC_UD_QP_TYPE] = "qp_type",
	[NIC_UD_QKEY] = "qkey",
	[NIC_UD_NO_WQE] = "no_wqe",
	[NIC_UD_CQ_OVERRUN] = "cq_overrun",
	[NIC_UD_TOO_LONG] = "too_long",
	[NIC_UD_BAD_WQE] = "bad_wqe",
	[NIC_UD_UNREACHABLE] = "unreachable",
};

void nic_ud_fate(struct nic_dev *dev, const struct nic_qp *qp,
		 const struct nic_pkt *pkt, enum nic_ud_fate fate)
{
	dev->ud[fate]++;
	if (dev->ops->ud_fate)
		dev->ops->ud_fate(dev, qp, pkt, fate);
}

/* a datagram's fate, from the answer nic_respond() gives */
static enum nic_ack resp_ud_fate(struct nic_qp *qp, const struct nic_pkt *pkt,
				 enum nic_ack ack, enum nic_ud_fate fate)
{
	if (pkt->qp_type == NIC_QPT_UD)
		nic_ud_fate(qp->dev, qp, pkt,
			    ack == NIC_ACK ? NIC_UD_DELIVERED : fate);
	return ack;
}

static enum nic_ack resp_execute(struct nic_qp *qp, const struct nic_pkt *pkt,
				 enum nic_ud_fate *fate)
{
	const struct nic_opcode *op = nic_opcode(pkt->opcode);
	struct nic_iov rdst[NIC_MAX_SGE], mem;
	struct resp_wqe rw;
	uint32_t nrdst = 0;
	enum nic_ack ack;
	int err;

	ack = resp_admit(qp, op, pkt, fate);
	if (ack == NIC_DUPLICATE)
		return resp_duplicate(qp, op, pkt);
	if (ack != NIC_ACK)
		return ack;

	if (op->flags & NIC_OPF_RADDR) {
		err = nic_mr_remote(qp, pkt->rkey, pkt->raddr, pkt->len,
				    op->remote_access, &mem.base);
		if (err && !nic_qp_transport(qp)->reliable)
			return NIC_DROPPED; /* UC: a bad rkey loses the message */
		if (err) {
			resp_fail(qp, NULL, 0, NIC_EVENT_QP_ACCESS_ERR);
			return NIC_NAK_ACCESS;
		}
		if ((op->flags & NIC_OPF_ATOMIC) &&
		    (pkt->len != 8 || (pkt->raddr & 7))) {
			resp_fail(qp, NULL, 0, NIC_EVENT_QP_REQ_ERR);
			return NIC_NAK_INVAL;
		}
		mem.len = pkt->len;
	}

	if (op->flags & NIC_OPF_RECV) {
		err = resp_wqe_take(qp, &rw);
		if (err) {
			*fate = NIC_UD_BAD_WQE;
			resp_fail(qp, &rw, err, NIC_EVENT_QP_FATAL);
			return NIC_NAK_OP;
		}
	}
	if ((op->flags & NIC_OPF_RECV) && !(op->flags & NIC_OPF_RADDR)) {
		ack = resp_scatter(qp, &rw, pkt, rdst, &nrdst);
		if (ack != NIC_ACK) {
			*fate = ack == NIC_NAK_INVAL ? NIC_UD_TOO_LONG :
						       NIC_UD_BAD_WQE;
			return ack;
		}
		nic_iov_copy(rdst, nrdst, pkt->src, pkt->nsrc, pkt->len);
		qp->cnt.dma_write += pkt->len;
	} else if (op->flags & NIC_OPF_ATOMIC) {
		uint64_t old = nic_atomic(pkt, (uint64_t *)mem.base);
		struct nic_iov res = { (uint8_t *)&old, 8 };
		struct nic_atomic_result *a =
			&qp->atomics[pkt->psn % NIC_WINDOW];

		/* kept for a retransmission whose answer was lost */
		a->psn = pkt->psn;
		a->valid = true;
		a->old = old;

		nic_iov_copy(pkt->dst, pkt->ndst, &res, 1, 8);
		qp->cnt.dma_read += 8;
		qp->cnt.dma_write += 8;
	} else if (op->flags & NIC_OPF_READ) {
		nic_iov_copy(pkt->dst, pkt->ndst, &mem, 1, pkt->len);
		qp->cnt.dma_read += pkt->len;
	} else if (pkt->len) {
		nic_iov_copy(&mem, 1, pkt->src, pkt->nsrc, pkt->len);
		qp->cnt.dma_write += pkt->len;
	}

	if (op->flags & NIC_OPF_RECV) {
		struct nic_cqe_info ci = {
			.opcode = op->resp_cqe,
			.wqe_counter = rw.idx,
			/* UD counts the GRH room as received */
			.byte_cnt = pkt->len + nic_qp_transport(qp)->recv_hdr,
			.imm = (op->flags & (NIC_OPF_IMM | NIC_OPF_INV)) ?
				       pkt->imm :
				       0,
			.src_qpn = pkt->src_qpn,
			.slid = pkt->slid,
			.se = pkt->se,
		};

		nic_cqe_write(qp->rcq, qp, &ci);
		nic_cq_poll_arm(qp->dev, qp->rcq);
	}
	qp->bytes += pkt->len;
	qp->resp_psn = (qp->resp_psn + 1) & NIC_PSN_MASK;
	return NIC_ACK;
}

/*
 * Fault injection: a request that arrives while the port is down is not
 * seen at all, and an RC answer may be lost after the request was
 * executed (the requester then sends a duplicate).
 */
static enum nic_ack resp_faulty(struct nic_qp *qp, const struct nic_pkt *pkt)
{
	enum nic_ud_fate fate = NIC_UD_QP_TYPE;
	bool rc = pkt->qp_type == NIC_QPT_RC;
	enum nic_ack ack;

	if (qp->dev->faults->port_down) {
		qp->dev->faults->lost++;
		return rc ? NIC_PENDING : NIC_DROPPED;
	}
	ack = resp_ud_fate(qp, pkt, resp_execute(qp, pkt, &fate), fate);
	/* an RNR NAK is not lost: their number depends on timing */
	if (rc && ack != NIC_NAK_RNR && nic_fault_answer_lost(qp->dev, qp))
		return NIC_PENDING;
	return ack;
}

enum nic_ack nic_respond(struct nic_qp *qp, const struct nic_pkt *pkt)
{
	enum nic_ud_fate fate = NIC_UD_QP_TYPE;
	enum nic_ack ack;

	if (nic_unlikely(qp->dev->faults))
		return resp_faulty(qp, pkt);
	ack = resp_execute(qp, pkt, &fate);
	return resp_ud_fate(qp, pkt, ack, fate);
}
