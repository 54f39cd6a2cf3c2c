// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Seeded random sequences (issue 33): MLX5_DIFF_RANDOM=SEED:COUNT runs
 * COUNT sequences from SEED instead of the matrix. A sequence is one to
 * SEQ_POSTS posts of random lists on a random QP pair (a fresh pair every
 * PAIR_SEQUENCES sequences), then maybe a drain, the QPs moved to ERR and
 * back through RESET, only through RESET, or a list longer than the SQ.
 *
 * A list is NULL/empty, one WR or up to LIST_MAX, posted through
 * ibv_post_send or, on a QP that has them, ibv_wr_* (the two interleave on
 * one QP). Each WR has a random opcode of the QP type, flags, an SGE count
 * from 0 to one past the QP's limit, and lengths: inline totals around each
 * 16-byte boundary (of the data and of the data with its 4-byte header),
 * around max_inline_data, and first SGEs past the limit followed by others
 * of up to 0xffffffff bytes, so that the sum wraps 32 bits; gathered data
 * of 0 to DATA_MAX bytes. Drains poll in a random style and batch size.
 *
 * What it leaves out, so that both runs see the same device behaviour:
 * gathered lengths the device would fail (beyond the region, a receive
 * buffer or the MTU: the library does not read them); an ibv_wr_* batch
 * on a full SQ (65.0 writes through a stale WQE pointer, see the series'
 * "Keep the ibv_wr_* builders out of a full send queue"); inline SGEs
 * whose 65.0 int sum wraps before the limit is passed ("Refuse inline
 * data whose SGE lengths wrap an int"); ERR with WRs in flight (which of
 * them complete is timing); a post to a QP taken back to RESET.
 */
#include <endian.h>
#include <string.h>

#include "mlx5_diff.h"

#define PAIR_SEQUENCES 64
#define SEQ_POSTS 8
#define LIST_MAX 16
#define DATA_MAX 16384 /* gathered bytes of one WR */
#define RECV_MAX (64 + 2048) /* a receive's two buffers */
#define UD_MAX 1024 /* the path MTU */
#define AREA (1u << 20) /* each of the region's four areas */

struct rng {
	uint64_t s;
};

/* splitmix64 */
static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int pick(struct rng *r, unsigned int n)
{
	return rnd(r) % n;
}

static bool chance(struct rng *r, unsigned int percent)
{
	return pick(r, 100) < percent;
}

static void random_config(struct rng *r, struct ep_config *cfg)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };

	memset(cfg, 0, sizeof(*cfg));
	cfg->type = types[pick(r, 3)];
	cfg->td = chance(r, 50);
	cfg->wr_api = chance(r, 50);
	cfg->narrow = chance(r, 25);
	/* a TD's CQs are extended (created on its parent domain) */
	cfg->cq_ex = cfg->td || chance(r, 50);
	cfg->cq_single_threaded = !cfg->td && cfg->cq_ex && chance(r, 50);
	cfg->srq = chance(r, 25);
}

/* a list length: mostly short, sometimes empty */
static unsigned int list_len(struct rng *r)
{
	unsigned int c = pick(r, 100);

	if (c < 5)
		return 0;
	if (c < 60)
		return 1;
	if (c < 85)
		return 2 + pick(r, 3);
	return 5 + pick(r, LIST_MAX - 4);
}

/* an inline total near a 16-byte boundary or near max */
static uint32_t inline_total(struct rng *r, unsigned int max)
{
	int t;

	if (chance(r, 25))
		t = (int)max - 1 + (int)pick(r, 3);
	else
		t = (int)pick(r, max / 16 + 2) * 16 - (chance(r, 50) ? 4 : 0) -
		    1 + (int)pick(r, 3);
	return t < 0 ? 0 : t;
}

/* total split over nsge SGEs */
static void split(struct rng *r, struct ibv_sge *sge, unsigned int nsge,
		  uint32_t total)
{
	unsigned int i;

	for (i = 0; i + 1 < nsge; i++) {
		sge[i].length = total ? pick(r, total + 1) : 0;
		total -= sge[i].length;
	}
	sge[nsge - 1].length = total;
}

/* inline lengths; past the limit when !valid */
static void inline_lengths(struct diff *d, struct rng *r, struct ibv_sge *sge,
			   unsigned int nsge, bool valid)
{
	unsigned int max = d->p->cap.max_inline_data, i;
	uint32_t t = inline_total(r, max);

	if (valid && t > max)
		t = max;
	if (valid || !chance(r, 30)) {
		split(r, sge, nsge, t);
		return;
	}
	/* 65.0 refuses at the first SGE; the rest may wrap the sum */
	sge[0].length = max + 1 + pick(r, 0x7fffffff - max);
	for (i = 1; i < nsge; i++)
		sge[i].length = chance(r, 30) ? 0xffffffff : (uint32_t)rnd(r);
}

/* gathered lengths, within what the device and the responder take */
static void gather_lengths(struct diff *d, struct rng *r, struct ibv_sge *sge,
			   unsigned int nsge, enum ibv_wr_opcode op)
{
	uint32_t limit = DATA_MAX, total = 0;
	unsigned int i, c;

	if (consumes_recv(op) && op != IBV_WR_RDMA_WRITE_WITH_IMM)
		limit = d->p->cfg.type == IBV_QPT_UD ? UD_MAX : RECV_MAX;
	for (i = 0; i < nsge; i++) {
		c = pick(r, 10);
		sge[i].length = c < 1 ? 0 :
				c < 6 ? 1 + pick(r, 64) :
				c < 9 ? 65 + pick(r, 1984) :
					pick(r, DATA_MAX / nsge + 1);
		if (total + sge[i].length > limit)
			sge[i].length = limit - total;
		total += sge[i].length;
	}
}

static unsigned int sge_count(struct diff *d, struct rng *r,
			      enum ibv_wr_opcode op, bool valid)
{
	unsigned int max = d->p->cap.max_send_sge;

	if (is_atomic(op))
		return 1;
	if (!valid && chance(r, 20))
		return max + 1;
	return pick(r, max + 1);
}

/* the addresses and remote side of WR k (its lengths are set) */
static void place(struct diff *d, struct rng *r, struct ibv_send_wr *wr)
{
	struct ep_pair *p = d->p;
	size_t local = wr->opcode == IBV_WR_RDMA_READ || is_atomic(wr->opcode) ?
			       EP_LOCAL_OFF :
			       EP_SRC_OFF;
	size_t off = pick(r, AREA - 2 * DATA_MAX) & ~7u;
	uint64_t raddr = (uintptr_t)at(d, EP_DST_OFF + off);
	int i;

	for (i = 0; i < wr->num_sge && wr->sg_list[i].length <= DATA_MAX; i++) {
		wr->sg_list[i].addr = (uintptr_t)at(d, local + off);
		off += wr->sg_list[i].length;
	}
	if (is_atomic(wr->opcode)) {
		wr->sg_list[0].length = 8;
		wr->wr.atomic.remote_addr = raddr;
		wr->wr.atomic.rkey = d->dev.mr->rkey;
		wr->wr.atomic.compare_add = rnd(r);
		wr->wr.atomic.swap = rnd(r);
	} else if (has_raddr(wr->opcode)) {
		wr->wr.rdma.remote_addr = raddr;
		wr->wr.rdma.rkey = d->dev.mr->rkey;
	} else if (p->cfg.type == IBV_QPT_UD) {
		wr->wr.ud.ah = p->ah;
		wr->wr.ud.remote_qpn = p->resp.qp->qp_num;
		wr->wr.ud.remote_qkey = EP_QKEY;
	}
}

/* WR k of a list of n; one the QP takes when valid */
static void random_wr(struct diff *d, struct rng *r, unsigned int k,
		      unsigned int n, bool valid)
{
	static const unsigned int flag_bits[] = { IBV_SEND_SIGNALED,
						  IBV_SEND_FENCE,
						  IBV_SEND_SOLICITED };
	struct ibv_send_wr *wr = &d->wr[k];
	struct ibv_sge *sge = d->sge[k];
	unsigned int nops, i;
	const enum ibv_wr_opcode *ops = type_ops(d, &nops);
	bool data, narrow = d->p->cfg.narrow;

	memset(wr, 0, sizeof(*wr));
	memset(sge, 0, sizeof(d->sge[k]));
	wr->wr_id = rnd(r);
	wr->next = k + 1 < n ? &d->wr[k + 1] : NULL;
	wr->opcode = ops[pick(r, nops)];
	wr->imm_data = (uint32_t)rnd(r);
	wr->invalidate_rkey = (uint32_t)rnd(r);
	for (i = 0; i < 3; i++)
		if (chance(r, 40))
			wr->send_flags |= flag_bits[i];
	data = !is_atomic(wr->opcode) && wr->opcode != IBV_WR_RDMA_READ;
	if (data && (!narrow || !valid) && chance(r, 40))
		wr->send_flags |= IBV_SEND_INLINE;
	wr->sg_list = sge;
	wr->num_sge = sge_count(d, r, wr->opcode, valid);
	if (wr->num_sge > (int)d->p->cap.max_send_sge)
		/* refused for the count: lengths past DATA_MAX, not placed */
		for (i = 0; i < (unsigned int)wr->num_sge; i++)
			sge[i].length =
				DATA_MAX + 1 + pick(r, 0xffffffff - DATA_MAX);
	else if (wr->send_flags & IBV_SEND_INLINE && wr->num_sge)
		inline_lengths(d, r, sge, wr->num_sge, valid);
	else if (wr->num_sge)
		gather_lengths(d, r, sge, wr->num_sge, wr->opcode);
	for (i = 0; i < (unsigned int)wr->num_sge; i++)
		sge[i].lkey = d->dev.mr->lkey;
	place(d, r, wr);
}

/* counts what a post took, for the next drain */
static void account(struct diff *d, unsigned int taken)
{
	unsigned int k;

	for (k = 0; k < taken; k++) {
		d->sent++;
		d->signaled += (d->wr[k].send_flags & IBV_SEND_SIGNALED) ||
			       d->p->cfg.narrow;
		d->received += consumes_recv(d->wr[k].opcode);
	}
}

static void random_drain(struct diff *d, struct rng *r)
{
	d->round = pick(r, 6);
	d->poll_batch = 1 + pick(r, POLL_BATCH);
	drain(d);
}

/* n random WRs, only valid ones if asked, and a random API for them */
static void build_list(struct diff *d, struct rng *r, unsigned int n,
		       bool all_valid, bool signaled)
{
	unsigned int k;

	for (k = 0; k < n; k++) {
		random_wr(d, r, k, n, all_valid || !chance(r, 10));
		if (signaled)
			d->wr[k].send_flags |= IBV_SEND_SIGNALED;
	}
	d->via_post_send = !d->p->req.qpx || chance(r, 50);
}

static unsigned int random_list(struct diff *d, struct rng *r, unsigned int n,
				bool all_valid, bool signaled)
{
	build_list(d, r, n, all_valid, signaled);
	fprintf(d->out, "rand list %u %s", n,
		d->via_post_send ? "post_send" : "wr");
	return post(d, n);
}

static void random_post(struct diff *d, struct rng *r)
{
	unsigned int n = list_len(r);

	if (d->sent + n + 1 > DRAIN_AT)
		random_drain(d, r);
	account(d, random_list(d, r, n, false, false));
}

/* both QPs through RESET back to RTS; the SQ and RQ start over */
static void random_reset(struct diff *d)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ep_pair *p = d->p;

	if (ibv_modify_qp(p->req.qp, &a, IBV_QP_STATE) ||
	    ibv_modify_qp(p->resp.qp, &a, IBV_QP_STATE)) {
		fail(d, "cannot move the QPs to RESET");
		return;
	}
	p->req.cap.sq_pi = be32toh(p->req.cap.dv.dbrec[MLX5_SND_DBR]);
	p->req.cap.rq_pi = be32toh(p->req.cap.dv.dbrec[MLX5_RCV_DBR]);
	p->resp.cap.sq_pi = be32toh(p->resp.cap.dv.dbrec[MLX5_SND_DBR]);
	p->resp.cap.rq_pi = be32toh(p->resp.cap.dv.dbrec[MLX5_RCV_DBR]);
	fprintf(d->out, "reset sq_pi %u rq_pi %u\n", p->req.cap.sq_pi,
		p->resp.cap.rq_pi);
	if (ep_pair_reconnect(&d->dev, p))
		fail(d, "cannot bring the QPs back to RTS");
	if (!p->srq)
		d->recv_posted = 0;
	post_recvs(d);
}

/* ERR at a quiet point: a remote access error or modify, flushed WRs */
static void random_error(struct diff *d, struct rng *r)
{
	struct ep_pair *p = d->p;
	unsigned int taken;

	random_drain(d, r);
	fprintf(d->out, "to error\n");
	if (p->cfg.type == IBV_QPT_RC && chance(r, 50)) {
		build_list(d, r, 1, true, true);
		d->wr[0].opcode = IBV_WR_RDMA_WRITE;
		d->wr[0].send_flags &= ~IBV_SEND_INLINE;
		d->wr[0].num_sge = 0;
		d->wr[0].wr.rdma.remote_addr = (uintptr_t)at(d, EP_DST_OFF);
		d->wr[0].wr.rdma.rkey = d->dev.mr->rkey ^ 0x5a5a00;
		d->via_post_send = true;
		fprintf(d->out, "bad rkey");
		collect(d, post(d, 1), 0, false);
	}
	if (modify_to_error(p->req.qp))
		fail(d, "the requester did not go to error");
	/* flushed: all signaled, for a CQE each */
	taken = random_list(d, r, 1 + pick(r, 4), true, true);
	if (modify_to_error(p->resp.qp))
		fail(d, "the responder did not go to error");
	collect(d, taken, p->srq ? 0 : d->recv_posted, false);
	random_reset(d);
}

/* a list of RDMA WRITEs one longer than the SQ, all signaled */
static void random_full_sq(struct diff *d, struct rng *r)
{
	unsigned int n = d->p->cap.max_send_wr + 1 + pick(r, 3), k, taken;

	/* UD: its sends would need as many receives; and the CQ holds all */
	if (d->p->cfg.type == IBV_QPT_UD || n > MAX_LIST ||
	    d->p->cap.max_send_wr >= EP_CQ_DEPTH - 1)
		return;
	random_drain(d, r);
	for (k = 0; k < n; k++) {
		random_wr(d, r, k, n, true);
		d->wr[k].opcode = IBV_WR_RDMA_WRITE;
		d->wr[k].send_flags |= IBV_SEND_SIGNALED;
		place(d, r, &d->wr[k]);
	}
	d->via_post_send = true;
	fprintf(d->out, "rand full sq %u", n);
	taken = post(d, n);
	collect(d, taken, 0, true);
}

static void random_sequence(struct diff *d, struct rng *r, unsigned long seq)
{
	unsigned int posts = 1 + pick(r, SEQ_POSTS), i;

	fprintf(d->out, "seq %lu\n", seq);
	for (i = 0; i < posts; i++)
		random_post(d, r);
	switch (pick(r, 25)) {
	case 0:
		random_error(d, r);
		break;
	case 1:
		random_drain(d, r);
		random_reset(d);
		break;
	case 2:
		random_full_sq(d, r);
		break;
	default:
		if (chance(r, 50))
			random_drain(d, r);
	}
}

void run_random(struct diff *d, uint64_t seed, unsigned long count)
{
	struct rng r = { seed };
	unsigned long seq = 0, end;
	struct ep_config cfg;
	struct ep_pair p;

	fprintf(d->out, "random seed %#llx count %lu\n",
		(unsigned long long)seed, count);
	while (seq < count) {
		random_config(&r, &cfg);
		fprintf(d->out,
			"config type %d td %d wr_api %d cq_ex %d cq_st %d narrow %d srq %d\n",
			cfg.type, cfg.td, cfg.wr_api, cfg.cq_ex,
			cfg.cq_single_threaded, cfg.narrow, cfg.srq);
		d->p = &p;
		d->sent = d->signaled = d->received = d->recv_posted = 0;
		if (ep_pair_open(&d->dev, &p, &cfg)) {
			fail(d, "cannot open the QP pair");
			ep_pair_close(&p);
			return;
		}
		post_recvs(d);
		end = seq + PAIR_SEQUENCES < count ? seq + PAIR_SEQUENCES :
						     count;
		for (; seq < end; seq++) {
			d->shapes++;
			random_sequence(d, &r, seq);
		}
		random_drain(d, &r);
		ep_pair_close(&p);
		d->p = NULL;
	}
	d->via_post_send = false;
	d->poll_batch = 0;
}
