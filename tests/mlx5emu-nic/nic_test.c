// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The harness of the NIC core tests: two QPs and two CQs on plain memory
 * behind a device whose MRs are an array, a miniature libmlx5 post_send
 * and poll_cq, and the test groups of the nic_*_test.c files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nic_test.h"

/* the device is the env's first member */
static struct env *to_env(struct nic_dev *dev)
{
	return (struct env *)((char *)dev - offsetof(struct env, dev));
}

static int t_mr_lookup(struct nic_dev *dev, uint32_t key, struct nic_mr *mr)
{
	struct env *e = to_env(dev);
	unsigned int i;

	for (i = 0; i < e->nmr; i++)
		if ((e->mr[i].lkey >> 8) == (key >> 8)) {
			*mr = e->mr[i];
			return 0;
		}
	return -1;
}

static void t_comp_event(struct nic_dev *dev, struct nic_cq *cq)
{
	struct env *e = to_env(dev);

	(void)cq;
	e->events++;
}

static void t_qp_event(struct nic_dev *dev, struct nic_qp *qp, int event)
{
	struct env *e = to_env(dev);

	(void)qp;
	e->qp_events++;
	e->last_qp_event = event;
}

static enum nic_ack t_xmit(struct nic_dev *dev, struct nic_qp *qp,
			   const struct nic_pkt *pkt)
{
	struct env *e = to_env(dev);
	unsigned int i;

	(void)qp;
	/* one port, LID 7: a datagram to any other LID is lost */
	for (i = 0; i < 2 && pkt->dlid == e->dev.lid; i++)
		if (e->qp[i].qpn == pkt->dest_qpn)
			return nic_respond(&e->qp[i], pkt);
	return NIC_NAK_NOQP;
}

/* a peer in "another process": requests queue up, answered later */
struct remote_peer remote_peer;

static enum nic_ack t_xmit_remote(struct nic_dev *dev, struct nic_qp *qp,
				  const struct nic_pkt *pkt)
{
	if (!remote_peer.on)
		return t_xmit(dev, qp, pkt);
	remote_peer.psn[remote_peer.n] = pkt->psn;
	remote_peer.epoch[remote_peer.n] = pkt->epoch;
	remote_peer.pkt[remote_peer.n++] = *pkt;
	return remote_peer.unreachable ? NIC_LOST : NIC_PENDING;
}

const struct nic_dev_ops t_ops_remote = {
	.mr_lookup = t_mr_lookup,
	.comp_event = t_comp_event,
	.qp_event = t_qp_event,
	.xmit = t_xmit_remote,
};

static const struct nic_dev_ops t_ops = {
	.mr_lookup = t_mr_lookup,
	.comp_event = t_comp_event,
	.qp_event = t_qp_event,
	.xmit = t_xmit,
};

int env_setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	unsigned int i;

	e->dev.ops = &t_ops;
	e->dev.lid = 7;
	for (i = 0; i < 2; i++) {
		struct nic_cq *cq = &e->cq[i];
		struct nic_qp *qp = &e->qp[i];

		cq->ncqe = 16;
		cq->cqe_size = 64;
		cq->buf = aligned_alloc(64, 16 * 64);
		memset(cq->buf, 0, 16 * 64);
		for (unsigned int j = 0; j < 16; j++)
			cq->buf[j * 64 + 63] = 0xf0;
		cq->dbrec = e->cqdb[i];
		cq->cqn = i + 1;
		nic_cq_init(cq);

		qp->dev = &e->dev;
		qp->qpn = 0x100 + i;
		qp->type = NIC_QPT_RC;
		qp->dlid = 7;
		qp->uidx = 10 + i;
		qp->pdn = 1;
		qp->state = NIC_QPS_RTS;
		qp->timeout = 1; /* 8 us of transport retries */
		qp->rnr_retry = 7; /* forever */
		qp->access = NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ;
		qp->sq_bbs = 8;
		qp->sq = aligned_alloc(64, 8 * 64);
		memset(qp->sq, 0xee, 8 * 64);
		qp->rq_cnt = 4;
		qp->rq_shift = 5; /* two SGEs */
		qp->rq = aligned_alloc(64, 4 * 32);
		qp->dbrec = e->dbrec[i];
		qp->scq = cq;
		qp->rcq = cq;
		qp->dest_qpn = 0x101 - i;
	}
	*state = e;
	return 0;
}

int env_teardown(void **state)
{
	struct env *e = *state;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		free(e->cq[i].buf);
		free(e->qp[i].sq);
		free(e->qp[i].rq);
	}
	for (i = 0; i < e->nmr; i++)
		free(e->mr[i].va);
	free(e);
	return 0;
}

struct nic_mr *add_mr(struct env *e, size_t len, uint32_t access, uint32_t pdn)
{
	struct nic_mr *mr = &e->mr[e->nmr];

	mr->lkey = mr->rkey = (e->nmr + 2) << 8 | 0x42;
	mr->pdn = pdn;
	mr->access = access;
	mr->length = len;
	mr->va = calloc(1, len);
	mr->iova = 0x10000000ull * (e->nmr + 1);
	e->nmr++;
	return mr;
}

/* ---- a miniature libmlx5 post_send ---- */

static void put_unit(struct nic_qp *qp, uint32_t bb, uint32_t k,
		     const void *src)
{
	uint32_t units = qp->sq_bbs * 4;

	memcpy(qp->sq + ((bb * 4 + k) & (units - 1)) * 16, src, 16);
}

void sq_post(struct env *e, int q, const struct post *p)
{
	struct nic_qp *qp = &e->qp[q];
	uint16_t idx = e->sq_pi[q];
	uint32_t bb = idx & (qp->sq_bbs - 1);
	uint8_t u[16];
	uint32_t k = 1, ds, v;
	unsigned int i;

	if (p->ud) {
		uint8_t av[48] = {};

		v = htobe32(p->ud_qkey);
		memcpy(av, &v, 4);
		v = htobe32(p->ud_dqpn | (p->ud_ext ? MLX5_EXTENDED_UD_AV : 0));
		memcpy(av + 8, &v, 4);
		v = htobe32(p->ud_dlid);
		memcpy(av + 12, &v, 4);
		for (i = 0; i < (p->ud_ext ? 3u : 1u); i++)
			put_unit(qp, bb, k++, av + 16 * i);
	}
	if (p->raddr || p->rkey) {
		uint64_t a = htobe64(p->raddr);

		memset(u, 0, 16);
		memcpy(u, &a, 8);
		v = htobe32(p->rkey);
		memcpy(u + 8, &v, 4);
		put_unit(qp, bb, k++, u);
	}
	if (p->atomic) {
		uint64_t a = htobe64(p->swap_add), c = htobe64(p->compare);

		memcpy(u, &a, 8);
		memcpy(u + 8, &c, 8);
		put_unit(qp, bb, k++, u);
	}
	if (p->inl) {
		uint8_t buf[NIC_MAX_INLINE] = {};
		uint32_t n = (4 + p->inl_len + 15) / 16;

		v = htobe32(p->inl_len | MLX5_INLINE_SEG);
		memcpy(buf, &v, 4);
		memcpy(buf + 4, p->inl, p->inl_len);
		for (i = 0; i < n; i++)
			put_unit(qp, bb, k++, buf + 16 * i);
	}
	for (i = 0; i < p->nsge; i++) {
		uint64_t a = htobe64(p->sge[i].addr);

		v = htobe32(p->sge[i].len);
		memcpy(u, &v, 4);
		v = htobe32(p->sge[i].lkey);
		memcpy(u + 4, &v, 4);
		memcpy(u + 8, &a, 8);
		put_unit(qp, bb, k++, u);
	}
	ds = p->force_ds < 0 ? 0 : p->force_ds ? (uint32_t)p->force_ds : k;
	memset(u, 0, 16);
	v = htobe32((uint32_t)idx << 8 | p->opcode);
	memcpy(u, &v, 4);
	v = htobe32(qp->qpn << 8 | ds);
	memcpy(u + 4, &v, 4);
	u[11] = (p->signaled ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
		(p->solicited ? MLX5_WQE_CTRL_SOLICITED : 0);
	memcpy(u + 12, &p->imm, 4);
	put_unit(qp, bb, 0, u);
	e->sq_pi[q] += (k * 16 + 63) / 64;
}

void sq_ring(struct env *e, int q)
{
	e->dbrec[q][1] = htobe32(e->sq_pi[q]);
}

/* rings SQ 0's doorbell and lets the NIC run it: the WQEs it executed */
unsigned int run_sq(struct env *e)
{
	sq_ring(e, 0);
	return nic_sq_process(&e->qp[0], 64);
}

/* posts one WQE on SQ 0 and runs it: the WQEs the NIC executed */
unsigned int post_run(struct env *e, const struct post *p)
{
	sq_post(e, 0, p);
	return run_sq(e);
}

/* a signaled 8-byte inline RDMA WRITE of *v to the start of dst */
struct post inline_write(const struct nic_mr *dst, const uint64_t *v)
{
	struct post w = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = v,
		.inl_len = 8,
	};

	return w;
}

void post_recv(struct env *e, int q, const struct nic_sge *sge,
	       unsigned int nsge)
{
	struct nic_qp *qp = &e->qp[q];
	uint8_t *w = qp->rq + (e->rq_pi[q] & (qp->rq_cnt - 1)) * 32;
	unsigned int i;
	uint32_t v;

	memset(w, 0, 32);
	for (i = 0; i < nsge; i++) {
		uint64_t a = htobe64(sge[i].addr);

		v = htobe32(sge[i].len);
		memcpy(w + 16 * i, &v, 4);
		v = htobe32(sge[i].lkey);
		memcpy(w + 16 * i + 4, &v, 4);
		memcpy(w + 16 * i + 8, &a, 8);
	}
	if (nsge < 2) {
		v = htobe32(NIC_INVALID_LKEY);
		memcpy(w + 16 * nsge + 4, &v, 4);
	}
	e->rq_pi[q]++;
	e->dbrec[q][0] = htobe32(e->rq_pi[q]);
}

/* ---- a miniature libmlx5 poll_cq ---- */

struct mlx5_cqe64 *cq_poll(struct env *e, int c)
{
	struct nic_cq *cq = &e->cq[c];
	uint32_t ci = e->cq_ci[c];
	struct mlx5_cqe64 *cqe =
		(void *)(cq->buf + (ci & (cq->ncqe - 1)) * cq->cqe_size);

	if ((cqe->op_own >> 4) == MLX5_CQE_INVALID ||
	    (cqe->op_own & 1) != !!(ci & cq->ncqe))
		return NULL;
	e->cq_ci[c]++;
	e->cqdb[c][0] = htobe32(e->cq_ci[c] & 0xffffff);
	return cqe;
}

/* the next CQE of CQ c, which must be there */
struct mlx5_cqe64 *poll_cqe(struct env *e, int c)
{
	struct mlx5_cqe64 *cqe = cq_poll(e, c);

	assert_non_null(cqe);
	return cqe;
}

void cq_arm(struct env *e, int c, bool solicited)
{
	e->cqdb[c][1] =
		htobe32((solicited ? 1u << 24 : 0) | (e->cq_ci[c] & 0xffffff));
}

/* after an error: back to RTS, as a reconnect with fresh PSNs would */
void env_revive(struct env *e)
{
	e->qp[0].state = e->qp[1].state = NIC_QPS_RTS;
	e->qp[1].resp_psn = e->qp[0].req_psn;
	e->qp[0].resp_psn = e->qp[1].req_psn;
}

void expect_err(struct env *e, int c, uint8_t opcode, uint8_t syndrome,
		uint16_t counter)
{
	struct mlx5_err_cqe *ecqe = (void *)cq_poll(e, c);

	assert_non_null(ecqe);
	assert_int_equal(ecqe->op_own >> 4, opcode);
	assert_int_equal(ecqe->syndrome, syndrome);
	assert_int_equal(be16toh(ecqe->wqe_counter), counter);
}

unsigned int srq_events;

static void t_srq_event(struct nic_dev *dev, struct nic_srq *srq, int event)
{
	(void)dev;
	(void)srq;
	assert_int_equal(event, NIC_EVENT_SRQ_LIMIT_REACHED);
	srq_events++;
}

static const struct nic_dev_ops t_ops_srq = {
	.mr_lookup = t_mr_lookup,
	.comp_event = t_comp_event,
	.qp_event = t_qp_event,
	.srq_event = t_srq_event,
	.xmit = t_xmit,
};

/* QP 1 receives through srq; WQE i links to next[i] */
void srq_attach(struct env *e, struct nic_srq *srq, uint32_t *db,
		const uint16_t *next)
{
	unsigned int i;

	memset(srq, 0, sizeof(*srq));
	srq->dev = &e->dev;
	srq->nwqe = SRQ_WQES;
	srq->shift = 5;
	srq->buf = calloc(SRQ_WQES, SRQ_STRIDE);
	srq->dbrec = db;
	*db = 0;
	nic_srq_init(srq);
	for (i = 0; i < SRQ_WQES; i++) {
		uint16_t n = htobe16(next[i]);

		memcpy(srq->buf + i * SRQ_STRIDE + 2, &n, 2);
	}
	e->dev.ops = &t_ops_srq;
	e->qp[1].srq = srq;
	e->qp[1].rq = NULL;
	srq_events = 0;
}

/* fill SRQ WQE idx with one SGE and count it posted, as libmlx5 does */
void srq_post(struct nic_srq *srq, uint32_t *db, uint16_t idx,
	      const struct nic_sge *sge)
{
	uint8_t *d = srq->buf + idx * SRQ_STRIDE + 16;
	uint64_t a = htobe64(sge->addr);
	uint32_t v;

	v = htobe32(sge->len);
	memcpy(d, &v, 4);
	v = htobe32(sge->lkey);
	memcpy(d + 4, &v, 4);
	memcpy(d + 8, &a, 8);
	*db = htobe32(be32toh(*db) + 1);
}

struct post send_of(const struct nic_sge *s)
{
	struct post p = {
		.opcode = MLX5_OPCODE_SEND,
		.signaled = true,
		.sge = s,
		.nsge = 1,
	};

	return p;
}

/* the NIC follows the links, not the indices; wqe_counter says which */

void make_ud(struct env *e, uint32_t qkey)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		e->qp[i].type = NIC_QPT_UD;
		e->qp[i].qkey = qkey;
		e->qp[i].dest_qpn = 0; /* nothing connected */
	}
}

struct post ud_send(const struct nic_sge *s, uint32_t dqpn, uint16_t dlid,
		    uint32_t qkey, bool ext)
{
	struct post p = send_of(s);

	p.ud = true;
	p.ud_ext = ext;
	p.ud_dqpn = dqpn;
	p.ud_dlid = dlid;
	p.ud_qkey = qkey;
	return p;
}

int main(void)
{
	int failed = 0;

	failed += nic_rc_tests();
	failed += nic_errors_tests();
	failed += nic_cq_tests();
	failed += nic_srq_tests();
	failed += nic_ud_uc_tests();
	failed += nic_peer_lost_tests();
	return failed ? 1 : 0;
}
