// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Responder: one incoming request against this QP's RQ and memory. Every
 * check is made before the first byte moves, so a request that fails
 * leaves the target memory untouched.
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
 * the same time; ConnectX treats them as big endian and returns the old
 * value as it was in memory.
 */
static uint64_t nic_atomic(const struct nic_pkt *pkt, uint64_t *p)
{
	uint64_t old, val;

	if (pkt->opcode == MLX5_OPCODE_ATOMIC_CS) {
		/* on a mismatch, old is updated to what memory holds */
		old = htobe64(pkt->compare);
		__atomic_compare_exchange_n(p, &old, htobe64(pkt->swap_add),
					    false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		return old;
	}
	old = __atomic_load_n(p, __ATOMIC_RELAXED);
	do
		val = htobe64(be64toh(old) + pkt->swap_add);
	while (!__atomic_compare_exchange_n(
		p, &old, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return old;
}

/* The responder side of an error: CQE, ERR state, async event. */
static void resp_fail(struct nic_qp *qp, uint8_t syndrome, int event)
{
	if (syndrome) {
		struct nic_cqe_info ci = {
			.opcode = MLX5_CQE_RESP_ERR,
			.syndrome = syndrome,
			.wqe_counter = qp->rq_ci,
		};

		/* room was checked before the receive WQE was taken */
		if (!nic_cqe_write(qp->rcq, qp, &ci))
			qp->rq_ci++;
	}
	nic_qp_error(qp);
	if (event && qp->dev->ops->qp_event)
		qp->dev->ops->qp_event(qp->dev, qp, event);
}

static enum nic_ack resp_recv(struct nic_qp *qp, const struct nic_opcode *op,
			      const struct nic_pkt *pkt, struct nic_iov *dst,
			      uint32_t *ndst)
{
	struct nic_sge sge[NIC_MAX_SGE];
	uint32_t i, n, room = 0;
	int err;

	err = nic_recv_wqe_parse(qp, qp->rq_ci, sge, &n);
	for (i = 0; !err && i < n; i++) {
		err = nic_mr_local(qp, sge[i].lkey, sge[i].addr, sge[i].len,
				   NIC_ACCESS_LOCAL_WRITE, &dst[i].base);
		dst[i].len = sge[i].len;
		room += sge[i].len;
	}
	if (err) {
		resp_fail(qp, err, NIC_EVENT_QP_FATAL);
		return NIC_NAK_OP;
	}
	if (!(op->flags & NIC_OPF_RADDR) && pkt->len > room) {
		resp_fail(qp, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
			  NIC_EVENT_QP_REQ_ERR);
		return NIC_NAK_INVAL;
	}
	*ndst = n;
	return NIC_ACK;
}

enum nic_ack nic_respond(struct nic_qp *qp, const struct nic_pkt *pkt)
{
	const struct nic_opcode *op = nic_opcode(pkt->opcode);
	struct nic_iov rdst[NIC_MAX_SGE], mem;
	uint32_t nrdst = 0;
	enum nic_ack ack;
	int err;

	if (qp->state != NIC_QPS_RTR && qp->state != NIC_QPS_RTS)
		return NIC_NAK_RETRY; /* dropped: the requester retries */
	/* after an RNR NAK everything up to its retransmission is dropped */
	if (pkt->psn != qp->resp_psn)
		return NIC_NAK_SEQ;
	if (!op || !(op->flags & (NIC_OPF_PAYLOAD | NIC_OPF_READ))) {
		resp_fail(qp, 0, NIC_EVENT_QP_REQ_ERR);
		return NIC_NAK_INVAL;
	}

	if (op->flags & NIC_OPF_RECV) {
		uint32_t pi = nic_be32_load(&qp->dbrec[0]) & 0xffff;

		if (qp->rq_ci == pi) {
			qp->rnr_waits++;
			return NIC_NAK_RNR;
		}
		if (!nic_cq_has_room(qp->rcq, 1))
			return NIC_STALL;
	}

	if (op->flags & NIC_OPF_RADDR) {
		err = nic_mr_remote(qp, pkt->rkey, pkt->raddr, pkt->len,
				    op->remote_access, &mem.base);
		if (err) {
			resp_fail(qp, 0, NIC_EVENT_QP_ACCESS_ERR);
			return NIC_NAK_ACCESS;
		}
		if ((op->flags & NIC_OPF_ATOMIC) &&
		    (pkt->len != 8 || (pkt->raddr & 7))) {
			resp_fail(qp, 0, NIC_EVENT_QP_REQ_ERR);
			return NIC_NAK_INVAL;
		}
		mem.len = pkt->len;
	}

	if ((op->flags & NIC_OPF_RECV) && !(op->flags & NIC_OPF_RADDR)) {
		ack = resp_recv(qp, op, pkt, rdst, &nrdst);
		if (ack != NIC_ACK)
			return ack;
		nic_iov_copy(rdst, nrdst, pkt->src, pkt->nsrc, pkt->len);
	} else if (op->flags & NIC_OPF_ATOMIC) {
		uint64_t old = nic_atomic(pkt, (uint64_t *)mem.base);
		struct nic_iov res = { (uint8_t *)&old, 8 };

		nic_iov_copy(pkt->dst, pkt->ndst, &res, 1, 8);
	} else if (op->flags & NIC_OPF_READ) {
		nic_iov_copy(pkt->dst, pkt->ndst, &mem, 1, pkt->len);
	} else if (pkt->len) {
		nic_iov_copy(&mem, 1, pkt->src, pkt->nsrc, pkt->len);
	}

	if (op->flags & NIC_OPF_RECV) {
		struct nic_cqe_info ci = {
			.opcode = op->resp_cqe,
			.wqe_counter = qp->rq_ci,
			.byte_cnt = pkt->len,
			.imm = (op->flags & (NIC_OPF_IMM | NIC_OPF_INV)) ?
				       pkt->imm :
				       0,
			.src_qpn = pkt->src_qpn,
			.slid = pkt->slid,
			.se = pkt->se,
		};

		nic_cqe_write(qp->rcq, qp, &ci);
		qp->rq_ci++;
		nic_cq_poll_arm(qp->dev, qp->rcq);
	}
	qp->bytes += pkt->len;
	qp->resp_psn = (qp->resp_psn + 1) & NIC_PSN_MASK;
	return NIC_ACK;
}
