// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The software NIC's core on plain memory: WQEs are written the way
 * libmlx5 writes them, CQEs are read the way its poll_cq reads them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nic.h"

#define NMR 8

struct env {
	struct nic_dev dev;
	struct nic_mr mr[NMR];
	unsigned int nmr;
	struct nic_qp qp[2];
	struct nic_cq cq[2];
	uint32_t dbrec[2][2], cqdb[2][2];
	uint16_t sq_pi[2], rq_pi[2];
	uint32_t cq_ci[2];
	unsigned int events, qp_events;
	int last_qp_event;
};

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
static struct {
	bool on;
	unsigned int n;
	uint32_t psn[64], epoch[64];
	struct nic_pkt pkt[64];
} remote;

static enum nic_ack t_xmit_remote(struct nic_dev *dev, struct nic_qp *qp,
				  const struct nic_pkt *pkt)
{
	if (!remote.on)
		return t_xmit(dev, qp, pkt);
	remote.psn[remote.n] = pkt->psn;
	remote.epoch[remote.n] = pkt->epoch;
	remote.pkt[remote.n++] = *pkt;
	return NIC_PENDING;
}

static const struct nic_dev_ops t_ops_remote = {
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

static int setup(void **state)
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

static int teardown(void **state)
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

static struct nic_mr *add_mr(struct env *e, size_t len, uint32_t access,
			     uint32_t pdn)
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

struct post {
	uint8_t opcode;
	bool signaled, solicited;
	uint32_t imm;
	uint64_t raddr;
	uint32_t rkey;
	const struct nic_sge *sge;
	unsigned int nsge;
	const void *inl;
	uint32_t inl_len;
	int force_ds; /* != 0: write this ds instead, < 0: ds 0 */
	bool atomic;
	uint64_t swap_add, compare;
	bool ud, ud_ext; /* datagram segment, 16 or 48 bytes */
	uint32_t ud_dqpn, ud_qkey;
	uint16_t ud_dlid;
};

static void post(struct env *e, int q, const struct post *p)
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

static void ring(struct env *e, int q)
{
	e->dbrec[q][1] = htobe32(e->sq_pi[q]);
}

/* rings SQ 0's doorbell and lets the NIC run it: the WQEs it executed */
static unsigned int run_sq(struct env *e)
{
	ring(e, 0);
	return nic_sq_process(&e->qp[0], 64);
}

/* posts one WQE on SQ 0 and runs it: the WQEs the NIC executed */
static unsigned int post_run(struct env *e, const struct post *p)
{
	post(e, 0, p);
	return run_sq(e);
}

/* a signaled 8-byte inline RDMA WRITE of *v to the start of dst */
static struct post inline_write(const struct nic_mr *dst, const uint64_t *v)
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

static void post_recv(struct env *e, int q, const struct nic_sge *sge,
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

static struct mlx5_cqe64 *poll(struct env *e, int c)
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
static struct mlx5_cqe64 *poll_cqe(struct env *e, int c)
{
	struct mlx5_cqe64 *cqe = poll(e, c);

	assert_non_null(cqe);
	return cqe;
}

static void arm(struct env *e, int c, bool solicited)
{
	e->cqdb[c][1] =
		htobe32((solicited ? 1u << 24 : 0) | (e->cq_ci[c] & 0xffffff));
}

/* after an error: back to RTS, as a reconnect with fresh PSNs would */
static void revive(struct env *e)
{
	e->qp[0].state = e->qp[1].state = NIC_QPS_RTS;
	e->qp[1].resp_psn = e->qp[0].req_psn;
	e->qp[0].resp_psn = e->qp[1].req_psn;
}

/* ---- tests ---- */

static void test_inline_write(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct mlx5_cqe64 *cqe;
	struct post p = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova + 8,
		.rkey = dst->rkey,
		.inl = "12345678",
		.inl_len = 8,
	};

	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(dst->va + 8, "12345678", 8);
	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), 0);
	assert_int_equal(be32toh(cqe->srqn_uidx), 10);
	assert_int_equal(be32toh(cqe->sop_drop_qpn),
			 MLX5_OPCODE_RDMA_WRITE << 24 | 0x100);
	assert_int_equal(cqe->op_own & 0x0c, 0); /* never scattered */
	assert_null(poll(e, 0));
}

/* 16 unsignaled + 1 signaled: one CQE with the signaled WQE's counter,
 * across SQ wrap-around and CQ owner-bit flips */
static void test_coalescing_and_wrap(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 4096, NIC_ACCESS_REMOTE_WRITE, 1);
	struct mlx5_cqe64 *cqe;
	unsigned int round, i;
	uint64_t val;

	for (round = 0; round < 40; round++) {
		for (i = 0; i < 6; i++) {
			val = round * 100 + i;
			struct post p = {
				.opcode = MLX5_OPCODE_RDMA_WRITE,
				.signaled = i == 5,
				.raddr = dst->iova + 8 * i,
				.rkey = dst->rkey,
				.inl = &val,
				.inl_len = 8,
			};
			post(e, 0, &p);
		}
		assert_int_equal(run_sq(e), 6);
		memcpy(&val, dst->va + 40, 8);
		assert_int_equal(val, round * 100 + 5);
		cqe = poll_cqe(e, 0);
		assert_int_equal(be16toh(cqe->wqe_counter),
				 (uint16_t)(e->sq_pi[0] - 1));
		assert_null(poll(e, 0));
	}
}

/* a 3-SGE WQE is 2 BBs: place it so data segments wrap at qend */
static void test_sgl_write_wraps(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 256, 0, 1);
	struct nic_mr *dst = add_mr(e, 256, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_sge sge[3];
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	for (i = 0; i < 256; i++)
		src->va[i] = i;
	for (i = 0; i < 3; i++) {
		sge[i].addr = src->iova + 50 * i;
		sge[i].len = 10 + i;
		sge[i].lkey = src->lkey;
	}
	e->sq_pi[0] = e->qp[0].sq_ci = e->qp[0].sq_sent = 7; /* last BB */
	struct post p = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova + 1,
		.rkey = dst->rkey,
		.sge = sge,
		.nsge = 3,
	};
	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(dst->va + 1, src->va, 10);
	assert_memory_equal(dst->va + 11, src->va + 50, 11);
	assert_memory_equal(dst->va + 22, src->va + 100, 12);
	assert_int_equal(dst->va[34], 0);
	cqe = poll_cqe(e, 0);
	assert_int_equal(be16toh(cqe->wqe_counter), 7);
	assert_int_equal(e->qp[0].sq_ci, 9);
}

static void test_inline_wraps(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 256, NIC_ACCESS_REMOTE_WRITE, 1);
	uint8_t data[100];
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = 0xa0 ^ i;
	/* 16-bit counters too */
	e->sq_pi[0] = e->qp[0].sq_ci = e->qp[0].sq_sent = 0x1237;
	struct post p = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = data,
		.inl_len = sizeof(data),
	};
	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(dst->va, data, sizeof(data));
	assert_non_null(poll(e, 0));
}

static void test_send_recv_rnr(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 20, src->lkey };
	struct nic_sge r[2] = { { rbuf->iova, 8, rbuf->lkey },
				{ rbuf->iova + 32, 32, rbuf->lkey } };
	struct mlx5_cqe64 *cqe;

	memcpy(src->va, "abcdefghijklmnopqrst", 20);
	struct post p = {
		.opcode = MLX5_OPCODE_SEND_IMM,
		.signaled = true,
		.solicited = true,
		.imm = htobe32(0x1234),
		.sge = &s,
		.nsge = 1,
	};
	post(e, 0, &p);
	ring(e, 0);
	/* no receive posted: held, nothing completes */
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
	assert_null(poll(e, 0));
	assert_true(e->qp[0].rnr_waits > 0);

	post_recv(e, 1, r, 2);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 1);
	assert_memory_equal(rbuf->va, "abcdefgh", 8);
	assert_memory_equal(rbuf->va + 32, "ijklmnopqrst", 12);

	cqe = poll_cqe(e, 1);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND_IMM);
	assert_true(cqe->op_own & 2); /* solicited */
	assert_int_equal(be32toh(cqe->byte_cnt), 20);
	assert_int_equal(cqe->imm_inval_pkey, htobe32(0x1234));
	assert_int_equal(be32toh(cqe->flags_rqpn) & 0xffffff, 0x100);
	assert_int_equal(be16toh(cqe->slid), 7);
	assert_int_equal(be32toh(cqe->srqn_uidx), 11);
	assert_int_equal(be16toh(cqe->wqe_counter), 0);

	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
}

static void test_read(void **state)
{
	struct env *e = *state;
	struct nic_mr *remote = add_mr(e, 64, NIC_ACCESS_REMOTE_READ, 1);
	struct nic_mr *local = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { local->iova + 4, 16, local->lkey };
	struct mlx5_cqe64 *cqe;

	memcpy(remote->va, "0123456789ABCDEFGHIJ", 20);
	struct post p = {
		.opcode = MLX5_OPCODE_RDMA_READ,
		.signaled = true,
		.raddr = remote->iova + 2,
		.rkey = remote->rkey,
		.sge = &s,
		.nsge = 1,
	};
	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(local->va + 4, "23456789ABCDEFGH", 16);
	cqe = poll_cqe(e, 0);
	assert_int_equal(be32toh(cqe->byte_cnt), 16);
	assert_int_equal(be32toh(cqe->sop_drop_qpn) >> 24,
			 MLX5_OPCODE_RDMA_READ);
}

static void expect_err(struct env *e, int c, uint8_t opcode, uint8_t syndrome,
		       uint16_t counter)
{
	struct mlx5_err_cqe *ecqe = (void *)poll(e, c);

	assert_non_null(ecqe);
	assert_int_equal(ecqe->op_own >> 4, opcode);
	assert_int_equal(ecqe->syndrome, syndrome);
	assert_int_equal(be16toh(ecqe->wqe_counter), counter);
}

static void test_remote_access_error(void **state)
{
	struct env *e = *state;
	/* readable, not writable: a WRITE must bounce */
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_READ, 1);
	uint64_t v = 0x1122334455667788ull;
	uint8_t zero[64] = {};
	struct post w = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = &v,
		.inl_len = 8,
	};

	post(e, 0, &w); /* unsignaled: the error CQE comes anyway */
	w.signaled = true;
	post(e, 0, &w); /* flushed */
	run_sq(e);
	assert_memory_equal(dst->va, zero, 64);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		   0);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 1);
	assert_int_equal(e->qp[0].state, NIC_QPS_ERR);
	assert_int_equal(e->qp[1].state, NIC_QPS_ERR);
	assert_int_equal(e->last_qp_event, NIC_EVENT_QP_ACCESS_ERR);

	/* out of bounds, wrong key byte, wrong PD: all refused */
	struct nic_mr *ok = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_mr *otherpd = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 2);
	uint64_t bad[3][2] = { { ok->iova + 60, ok->rkey },
			       { ok->iova, ok->rkey ^ 1 },
			       { otherpd->iova, otherpd->rkey } };
	for (int i = 0; i < 3; i++) {
		revive(e);
		w.raddr = bad[i][0];
		w.rkey = bad[i][1];
		post_run(e, &w);
		expect_err(e, 0, MLX5_CQE_REQ_ERR,
			   MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
			   e->sq_pi[0] - 1);
	}
	assert_memory_equal(ok->va, zero, 64);
	assert_memory_equal(otherpd->va, zero, 64);
}

static void test_malformed(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 1;
	struct post w = {
		.opcode = 0x77, /* no such opcode */
		.signaled = true,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = &v,
		.inl_len = 8,
	};
	int ds[] = { -1, 63, 5 };
	unsigned int i;

	post_run(e, &w);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   0);
	assert_int_equal(e->qp[0].sq_ci, e->sq_pi[0]);

	/* ds of 0, ds past the ring (63 units > 8 BBs), ds past what
	 * was posted, and an inline length past the WQE */
	w.opcode = MLX5_OPCODE_RDMA_WRITE;
	for (i = 0; i < 3; i++) {
		e->qp[0].state = NIC_QPS_RTS;
		w.force_ds = ds[i];
		post_run(e, &w);
		expect_err(e, 0, MLX5_CQE_REQ_ERR,
			   MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
			   (uint16_t)(e->sq_pi[0] - 1));
		assert_int_equal(e->qp[0].sq_ci, e->sq_pi[0]);
	}
	e->qp[0].state = NIC_QPS_RTS;
	w.force_ds = 0;
	w.inl_len = 8;
	post(e, 0, &w);
	/* corrupt the inline byte_count to claim 900 bytes */
	{
		uint32_t bb = (e->sq_pi[0] - 1) & 7;
		uint32_t bc = htobe32(900 | MLX5_INLINE_SEG);

		memcpy(e->qp[0].sq + bb * 64 + 32, &bc, 4);
	}
	run_sq(e);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   (uint16_t)(e->sq_pi[0] - 1));
	/* a stale counter in the control segment */
	e->qp[0].state = NIC_QPS_RTS;
	post(e, 0, &w);
	e->qp[0].sq[((e->sq_pi[0] - 1) & 7) * 64 + 2] ^= 0x5;
	run_sq(e);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   (uint16_t)(e->sq_pi[0] - 1));
	assert_int_equal(dst->va[0], 0);
}

static void test_local_errors(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 32, src->lkey ^ 0x3 };
	struct nic_sge r = { rbuf->iova, 16, rbuf->lkey };
	struct post w = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.signaled = true,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.sge = &s,
		.nsge = 1,
	};

	post_run(e, &w);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, 0);

	/* a SEND longer than the receive WQE: responder LOCAL_LENGTH,
	 * requester remote invalid request */
	revive(e);
	s.lkey = src->lkey;
	w.opcode = MLX5_OPCODE_SEND;
	w.raddr = 0;
	w.rkey = 0;
	post_recv(e, 1, &r, 1);
	post_recv(e, 1, &r, 1); /* flushed */
	post_run(e, &w);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, 1);
	/* qp[1] shares the test's CQ 1 */
	expect_err(e, 1, MLX5_CQE_RESP_ERR, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
		   0);
	expect_err(e, 1, MLX5_CQE_RESP_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 1);
	assert_null(poll(e, 1));
}

static void test_cq_overflow_stalls(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 5;
	struct post w = inline_write(dst, &v);
	unsigned int i, n = 0;

	e->cq[0].ncqe = 4;
	for (i = 0; i < 6; i++)
		post(e, 0, &w);
	assert_int_equal(run_sq(e), 4);
	assert_true(e->cq[0].stalls == 0); /* checked before executing */
	assert_int_equal(e->qp[0].sq_ci, 4);
	while (poll(e, 0))
		n++;
	assert_int_equal(n, 4);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 2);
}

static void test_arming(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge r = { rbuf->iova, 64, rbuf->lkey };
	uint64_t v = 5;
	struct post w = inline_write(dst, &v);

	e->qp[1].rcq = &e->cq[0]; /* responder CQEs next to requester's */
	/* not armed: no event */
	post_run(e, &w);
	assert_int_equal(e->events, 0);
	/* armed with a CQE already waiting at ci: fires at once, once */
	arm(e, 0, false); /* the very first arm writes 0 */
	assert_true(nic_cq_poll_arm(&e->dev, &e->cq[0]));
	assert_false(nic_cq_poll_arm(&e->dev, &e->cq[0]));
	assert_int_equal(e->events, 1);
	assert_non_null(poll(e, 0));
	/* armed on an empty CQ: fires when a CQE appears */
	arm(e, 0, false);
	assert_false(nic_cq_poll_arm(&e->dev, &e->cq[0]));
	post_run(e, &w);
	assert_int_equal(e->events, 2);
	assert_non_null(poll(e, 0));
	/* solicited only: a plain CQE does not fire, a solicited one does */
	arm(e, 0, true);
	post_run(e, &w);
	assert_int_equal(e->events, 2);
	post_recv(e, 1, &r, 1);
	w.opcode = MLX5_OPCODE_SEND;
	w.solicited = true;
	w.raddr = 0;
	w.rkey = 0;
	post_run(e, &w);
	assert_int_equal(e->events, 3);
}

static void test_reset_and_states(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 5;
	struct post w = inline_write(dst, &v);

	/* RTR executes nothing from the SQ */
	e->qp[0].state = NIC_QPS_RTR;
	assert_int_equal(post_run(e, &w), 0);
	/* a responder not in RTR/RTS drops: transport retries exceeded */
	e->qp[0].state = NIC_QPS_RTS;
	e->qp[1].state = NIC_QPS_INIT;
	nic_sq_process(&e->qp[0], 64);
	assert_int_equal(e->qp[0].state, NIC_QPS_RTS); /* still retrying */
	assert_true(e->qp[0].retries > 0);
	while (e->qp[0].state == NIC_QPS_RTS)
		nic_sq_process(&e->qp[0], 64);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, 0);
	/* app moves to ERR: everything posted is flushed */
	post(e, 0, &w);
	post(e, 0, &w);
	ring(e, 0);
	nic_qp_flush(&e->qp[0]);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 1);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 2);
	/* RESET zeroes the counters, as libmlx5 zeroes the DBRs */
	nic_qp_reset(&e->qp[0]);
	e->dbrec[0][0] = e->dbrec[0][1] = 0;
	e->sq_pi[0] = 0;
	assert_int_equal(e->qp[0].sq_ci, 0);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
}

/* pipelined requests: nothing retires before its answer; an RNR answer
 * sends the WQE again in a new epoch and stale answers are ignored */
static void test_pipeline_rnr(void **state)
{
	struct env *e = *state;
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	uint64_t v = 9;
	struct post w = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.raddr = dst->iova,
		.rkey = dst->rkey,
		.inl = &v,
		.inl_len = 8,
	};
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	e->dev.ops = &t_ops_remote;
	memset(&remote, 0, sizeof(remote));
	remote.on = true;
	e->qp[0].req_psn = 100;
	for (i = 0; i < 3; i++) {
		w.signaled = i == 2;
		post(e, 0, &w);
	}
	assert_int_equal(run_sq(e), 3); /* in flight */
	assert_int_equal(remote.n, 3);
	assert_int_equal(remote.psn[2], 102);
	assert_null(poll(e, 0));
	/* the first is RNR'd, the others were dropped by the responder */
	nic_req_answer(&e->qp[0], remote.epoch[0], 100, NIC_NAK_RNR, NULL, 0);
	nic_req_answer(&e->qp[0], remote.epoch[1], 101, NIC_NAK_SEQ, NULL, 0);
	/* this pass goes back; the next one sends again (RNR timer) */
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 3);
	assert_int_equal(remote.n, 6);
	assert_int_equal(remote.psn[3], 100);
	assert_true(remote.epoch[3] != remote.epoch[0]);
	/* a stale answer from the old epoch changes nothing */
	nic_req_answer(&e->qp[0], remote.epoch[2], 102, NIC_NAK_SEQ, NULL, 0);
	for (i = 3; i < 6; i++)
		nic_req_answer(&e->qp[0], remote.epoch[i], remote.psn[i],
			       NIC_ACK, NULL, 0);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 3);
	cqe = poll_cqe(e, 0);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), 2);
	assert_null(poll(e, 0));
	/* the peer dies: what is in flight fails, the rest is flushed */
	post(e, 0, &w);
	post_run(e, &w);
	nic_req_lost(&e->qp[0]);
	nic_sq_process(&e->qp[0], 64);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, 3);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 4);
	remote.on = false;
}

static void test_atomics(void **state)
{
	struct env *e = *state;
	struct nic_mr *tgt = add_mr(e, 64, NIC_ACCESS_REMOTE_ATOMIC, 1);
	struct nic_mr *res = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { res->iova, 8, res->lkey };
	struct post p = {
		.opcode = MLX5_OPCODE_ATOMIC_FA,
		.signaled = true,
		.raddr = tgt->iova + 8,
		.rkey = tgt->rkey,
		.sge = &s,
		.nsge = 1,
		.atomic = true,
		.swap_add = 40,
	};
	struct mlx5_cqe64 *cqe;
	uint64_t v;

	e->qp[1].access |= NIC_ACCESS_REMOTE_ATOMIC;
	/* host order throughout: what IBV_ATOMIC_HCA promises on mlx5 */
	v = 2;
	memcpy(tgt->va + 8, &v, 8);
	post(e, 0, &p);
	p.opcode = MLX5_OPCODE_ATOMIC_CS; /* 42 -> 7 */
	p.compare = 42;
	p.swap_add = 7;
	s.addr += 8;
	assert_int_equal(post_run(e, &p), 2);
	memcpy(&v, res->va, 8);
	assert_int_equal(v, 2); /* the old value */
	memcpy(&v, res->va + 8, 8);
	assert_int_equal(v, 42);
	memcpy(&v, tgt->va + 8, 8);
	assert_int_equal(v, 7);
	/* a compare that misses returns memory and leaves it alone */
	p.compare = 1;
	p.swap_add = 99;
	s.addr += 8;
	assert_int_equal(post_run(e, &p), 1);
	memcpy(&v, res->va + 16, 8);
	assert_int_equal(v, 7);
	memcpy(&v, tgt->va + 8, 8);
	assert_int_equal(v, 7);
	poll_cqe(e, 0);
	cqe = poll_cqe(e, 0);
	assert_int_equal(be32toh(cqe->byte_cnt), 8);
	cqe = poll_cqe(e, 0);
	/* misaligned: invalid request, target untouched */
	p.raddr = tgt->iova + 4;
	post_run(e, &p);
	expect_err(e, 0, MLX5_CQE_REQ_ERR,
		   MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, 3);
	memcpy(&v, tgt->va + 8, 8);
	assert_int_equal(v, 7);
}

/* rnr_retry 1: one more try after the RNR timer, then RNR_RETRY_EXC */
static void test_rnr_retry_exceeded(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_sge s = { src->iova, 8, src->lkey };
	struct post p = {
		.opcode = MLX5_OPCODE_SEND,
		.signaled = true,
		.sge = &s,
		.nsge = 1,
	};
	unsigned int spins = 0;

	e->qp[0].rnr_retry = 1;
	post_run(e, &p);
	assert_int_equal(e->qp[0].state, NIC_QPS_RTS);
	assert_true(e->qp[0].hold_until != 0);
	/* held for the timer: nothing goes out meanwhile */
	while (e->qp[0].state == NIC_QPS_RTS && ++spins < 100000000)
		nic_sq_process(&e->qp[0], 64);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR,
		   0);
	assert_int_equal(e->qp[0].rnr_waits, 1);
}

/* ---- SRQ, UD and UC ---- */

#define SRQ_WQES 8
#define SRQ_STRIDE 32

static unsigned int srq_events;

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
static void srq_attach(struct env *e, struct nic_srq *srq, uint32_t *db,
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
static void srq_post(struct nic_srq *srq, uint32_t *db, uint16_t idx,
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

static struct post send_of(const struct nic_sge *s)
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
static void test_srq_linked_list(void **state)
{
	static const uint16_t next[SRQ_WQES] = { 5, 7, 3, 1, 0, 2, 4, 6 };
	static const uint16_t order[] = { 0, 5, 2, 3 };
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 256, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 4, src->lkey };
	struct post p = send_of(&s);
	struct mlx5_cqe64 *cqe;
	struct nic_srq srq;
	uint32_t db;
	unsigned int i;

	srq_attach(e, &srq, &db, next);
	for (i = 0; i < 4; i++) {
		struct nic_sge r = { rbuf->iova + 64 * i, 64, rbuf->lkey };

		srq_post(&srq, &db, order[i], &r);
	}
	assert_int_equal(nic_srq_posted(&srq), 4);
	for (i = 0; i < 4; i++) {
		memset(src->va, 'a' + i, 4);
		assert_int_equal(post_run(e, &p), 1);
		cqe = poll_cqe(e, 1);
		assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
		assert_int_equal(be16toh(cqe->wqe_counter), order[i]);
		/* cqe_version 1: the QP's user index, not the SRQN */
		assert_int_equal(be32toh(cqe->srqn_uidx), 11);
		assert_int_equal(rbuf->va[64 * i + 3], 'a' + i);
		poll_cqe(e, 0);
	}
	/* none left: RC waits (RNR), the WQE is not lost */
	post(e, 0, &p);
	ring(e, 0);
	assert_int_equal(nic_sq_process(&e->qp[0], 64), 0);
	assert_null(poll(e, 1));
	free(srq.buf);
}

/* limit 2 with 4 posted: the event comes once, at the 3rd message */
static void test_srq_limit_event(void **state)
{
	static const uint16_t next[SRQ_WQES] = { 1, 2, 3, 4, 5, 6, 7, 0 };
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 4, src->lkey };
	struct nic_sge r = { rbuf->iova, 64, rbuf->lkey };
	struct post p = send_of(&s);
	struct nic_srq srq;
	unsigned int i, events[5] = { 0, 0, 1, 1, 1 };
	uint32_t db;

	srq_attach(e, &srq, &db, next);
	for (i = 0; i < 4; i++)
		srq_post(&srq, &db, i, &r);
	srq.limit = 2;
	for (i = 0; i < 4; i++) {
		assert_int_equal(post_run(e, &p), 1);
		assert_int_equal(srq_events, events[i]);
		poll_cqe(e, 0);
		poll_cqe(e, 1);
	}
	assert_int_equal(srq.limit, 0); /* disarmed */
	/* a QP error does not flush the SRQ's WQEs */
	srq_post(&srq, &db, 4, &r);
	nic_qp_error(&e->qp[1]);
	assert_null(poll(e, 1));
	assert_int_equal(nic_srq_posted(&srq), 1);
	free(srq.buf);
}

static void make_ud(struct env *e, uint32_t qkey)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		e->qp[i].type = NIC_QPT_UD;
		e->qp[i].qkey = qkey;
		e->qp[i].dest_qpn = 0; /* nothing connected */
	}
}

static struct post ud_send(const struct nic_sge *s, uint32_t dqpn,
			   uint16_t dlid, uint32_t qkey, bool ext)
{
	struct post p = send_of(s);

	p.ud = true;
	p.ud_ext = ext;
	p.ud_dqpn = dqpn;
	p.ud_dlid = dlid;
	p.ud_qkey = qkey;
	return p;
}

/* delivery: GRH room, CQE fields, both AV sizes, the QP's own Q_Key */
static void test_ud_delivery(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 256, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 10, src->lkey };
	struct nic_sge r = { rbuf->iova, 128, rbuf->lkey };
	struct mlx5_cqe64 *cqe;
	unsigned int i;

	make_ud(e, 0x11112222);
	memcpy(src->va, "datagram!!", 10);
	for (i = 0; i < 3; i++) {
		struct post p =
			ud_send(&s, 0x101, 7,
				i == 2 ? NIC_QKEY_FROM_QP : 0x11112222, i == 1);

		memset(rbuf->va, 0xaa, 128);
		post_recv(e, 1, &r, 1);
		assert_int_equal(post_run(e, &p), 1);
		/* the first 40 bytes are the GRH's, left alone */
		assert_int_equal(rbuf->va[0], 0xaa);
		assert_int_equal(rbuf->va[NIC_GRH_LEN - 1], 0xaa);
		assert_memory_equal(rbuf->va + NIC_GRH_LEN, "datagram!!", 10);
		cqe = poll_cqe(e, 1);
		assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
		assert_int_equal(be32toh(cqe->byte_cnt), 10 + NIC_GRH_LEN);
		/* source QPN, no GRH flag (bits 28-29), SL 0 */
		assert_int_equal(be32toh(cqe->flags_rqpn), 0x100);
		assert_int_equal(be16toh(cqe->slid), 7);
		assert_int_equal(be16toh(cqe->wqe_counter), i);
		cqe = poll_cqe(e, 0);
		assert_int_equal(cqe->op_own >> 4, MLX5_CQE_REQ);
	}
}

/* what UD cannot deliver is dropped; the sender still completes */
static void test_ud_drops(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 8192, 0, 1);
	struct nic_mr *rbuf = add_mr(e, 256, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 10, src->lkey };
	struct nic_sge r = { rbuf->iova, 128, rbuf->lkey };
	struct nic_sge big = { src->iova, NIC_UD_MTU + 1, src->lkey };
	struct post bad[] = {
		ud_send(&s, 0x101, 7, 0x1234, false), /* wrong Q_Key */
		ud_send(&s, 0x101, 9, 0x5555, false), /* no such LID */
		ud_send(&s, 0x177, 7, 0x5555, false), /* no such QP */
	};
	struct post p = ud_send(&s, 0x101, 7, 0x5555, false);
	struct post rd = ud_send(&s, 0x101, 7, 0x5555, false);
	unsigned int i;

	make_ud(e, 0x5555);
	/* no receive WQE: no RNR wait, the message is gone */
	assert_int_equal(post_run(e, &p), 1);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_null(poll(e, 0));
	post_recv(e, 1, &r, 1);
	for (i = 0; i < 3; i++) {
		assert_int_equal(post_run(e, &bad[i]), 1);
		assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	}
	assert_null(poll(e, 0));
	/* the receive WQE is still there for a good one */
	assert_int_equal(post_run(e, &p), 1);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(be16toh(poll_cqe(e, 1)->wqe_counter), 0);
	/* beyond the MTU, or an RC-only opcode: the sender's error */
	p.sge = &big;
	post_run(e, &p);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
		   5);
	e->qp[0].state = NIC_QPS_RTS;
	rd.opcode = MLX5_OPCODE_RDMA_READ;
	post_run(e, &rd);
	expect_err(e, 0, MLX5_CQE_REQ_ERR, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR,
		   6);
}

/* UC: WRITE and SEND without answers; what fails is dropped */
static void test_uc(void **state)
{
	struct env *e = *state;
	struct nic_mr *src = add_mr(e, 64, 0, 1);
	struct nic_mr *dst = add_mr(e, 64, NIC_ACCESS_REMOTE_WRITE, 1);
	struct nic_mr *rbuf = add_mr(e, 64, NIC_ACCESS_LOCAL_WRITE, 1);
	struct nic_sge s = { src->iova, 8, src->lkey };
	struct nic_sge r = { rbuf->iova, 64, rbuf->lkey };
	struct post w = send_of(&s);
	struct post p = send_of(&s);

	w.opcode = MLX5_OPCODE_RDMA_WRITE;
	w.raddr = dst->iova;
	w.rkey = dst->rkey;
	e->qp[0].type = e->qp[1].type = NIC_QPT_UC;
	memcpy(src->va, "unreliab", 8);
	assert_int_equal(post_run(e, &w), 1);
	assert_memory_equal(dst->va, "unreliab", 8);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	/* a bad rkey: dropped, both QPs stay up */
	w.rkey ^= 0x100;
	assert_int_equal(post_run(e, &w), 1);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(e->qp[1].state, NIC_QPS_RTS);
	/* no receive WQE: dropped, not retried */
	assert_int_equal(post_run(e, &p), 1);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_null(poll(e, 0));
	post_recv(e, 1, &r, 1);
	assert_int_equal(post_run(e, &p), 1);
	assert_memory_equal(rbuf->va, "unreliab", 8);
	assert_int_equal(poll_cqe(e, 0)->op_own >> 4, MLX5_CQE_REQ);
	assert_int_equal(poll_cqe(e, 1)->op_own >> 4, MLX5_CQE_RESP_SEND);
	assert_int_equal(e->qp[1].state, NIC_QPS_RTS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_inline_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_coalescing_and_wrap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sgl_write_wraps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_inline_wraps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_send_recv_rnr, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remote_access_error, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_local_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cq_overflow_stalls, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_arming, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_and_states, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pipeline_rnr, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_atomics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rnr_retry_exceeded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srq_linked_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srq_limit_event, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ud_delivery, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ud_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uc, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
