// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The capture side of the differential test of libmlx5's post and poll
 * paths (mlx5_diff.sh runs it on pristine rdma-core 65.0 and on the
 * series, under mlx5emu, and requires the two outputs identical).
 *
 *   mlx5_diff [OUTPUT]          (inside mlx5emu run; stdout by default)
 *
 * For every work-request shape of the matrix (QP type x thread domain or
 * not x ibv_post_send or ibv_wr_* x wide or narrow QP, then opcode, SGE
 * count, inline, flags, list length; then three times around the SQ) it
 * prints what the NIC reads: each send WQE's basic blocks in SQ order,
 * SND_DBR, the BlueFlame half the post wrote; each receive WQE and
 * RCV_DBR, or an SRQ's record and WQEs; and the return value and bad_wr
 * of every post. CQs are plain, extended, a TD's, or lock-free by flag. Every few posts
 * a signaled marker is posted and the CQs are drained once all their CQEs
 * are written, so that the polls (ibv_poll_cq by 1 or 16, or the extended
 * ibv_start_poll/ibv_next_poll) return the same batches in every run; each
 * completion's fields, what one more poll of the then empty CQ
 * returns, and the CQ's SET_CI record are printed. Then the
 * refusals (too many SGEs, inline too long, a bad WR inside a list, a full
 * SQ) and error completions (remote access error, flushed WRs of a QP in
 * error, flushed receives).
 *
 * Addresses are the same in every run (one region at a fixed address).
 * The WQEs carry QPNs as they are: a fresh fabric gives the same ones in
 * every run; completions print them relative to the first QP's. Not
 * compared: the first 8 bytes of a BlueFlame half (the ring, which the
 * emulated NIC swaps to zero when it sees it; they are the first 8 bytes
 * of the WQE's control segment, which the SQ's copy shows), and LOCAL_INV
 * and BIND_MW, which the emulator does not execute (no UMR, no MW).
 *
 * MLX5_DIFF_TD_SHARING=N asks every TD for sharing level N (the series'
 * ibv_td_init_attr), to compare each level with 65.0's one TD placement.
 * MLX5_DIFF_FLIP=N flips a bit of the Nth send basic block printed,
 * MLX5_DIFF_FLIP_WC=N one of the Nth completion's: the comparison must
 * catch either.
 */
#include <endian.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "endpoint.h"

#define MAX_LIST 1025 /* a full SQ's list: more than the SQ holds */
#define MAX_WR_SGE 32
#define DRAIN_AT (EP_SQ_DEPTH / 2) /* WRs between drains */
#define POLL_BATCH 16
#define CQE_WAIT_SEC 20
#define WRAP_TIMES 3
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum poll_mode { POLL_ONE, POLL_BATCH16, POLL_EX, NPOLL_MODES };

struct shape {
	enum ibv_wr_opcode op;
	unsigned int nsge;
	bool inl;
	unsigned int flags; /* IBV_SEND_SIGNALED, _FENCE, _SOLICITED */
	unsigned int list;
	/* refusals: an SGE count or an inline length past the QP's caps */
	unsigned int inl_len; /* one inline SGE of this length, if not 0 */
	int bad_at; /* the list's WR made bad, -1: none */
};

struct diff {
	FILE *out;
	struct ep_device dev;
	struct ep_pair *p;
	unsigned long shapes, posts, completions, failures;
	unsigned int round; /* drains so far: picks the poll mode */
	/* since the last drain */
	unsigned int sent, signaled, received;
	unsigned int recv_posted; /* receive WQEs posted and not consumed */
	unsigned long recv_seq;
	struct ibv_sge sge[MAX_LIST][MAX_WR_SGE];
	struct ibv_send_wr wr[MAX_LIST];
};

static uint8_t *at(struct diff *d, size_t off)
{
	return d->dev.region + off;
}

static void fail(struct diff *d, const char *what)
{
	fprintf(d->out, "FAIL %s\n", what);
	fprintf(stderr, "mlx5_diff: %s\n", what);
	d->failures++;
}

static bool consumes_recv(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static bool has_raddr(enum ibv_wr_opcode op)
{
	return op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM ||
	       op == IBV_WR_RDMA_READ;
}

static bool is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/* the WRs of shape number n: lengths, offsets and immediates vary with n */
static void build_wrs(struct diff *d, const struct shape *s, unsigned long n)
{
	struct ep_pair *p = d->p;
	unsigned int k, i;

	for (k = 0; k < s->list; k++) {
		struct ibv_send_wr *wr = &d->wr[k];
		size_t src = (n * 256 + k * 128) % (EP_DST_OFF - 4096);
		size_t dst = (n * 512 + k * 256) % (EP_DST_OFF - 4096);
		unsigned int nsge = is_atomic(s->op) ? 1 : s->nsge;

		memset(wr, 0, sizeof(*wr));
		wr->wr_id = (n << 8) | k;
		wr->next = k + 1 < s->list ? &d->wr[k + 1] : NULL;
		wr->opcode = s->op;
		wr->send_flags = s->flags | (s->inl ? IBV_SEND_INLINE : 0);
		wr->sg_list = d->sge[k];
		wr->num_sge = nsge;
		wr->imm_data = htobe32(0x1000 + n);
		if (s->op == IBV_WR_SEND_WITH_INV)
			wr->invalidate_rkey = 0x7700 + n;
		for (i = 0; i < nsge; i++) {
			struct ibv_sge *sge = &d->sge[k][i];

			sge->lkey = d->dev.mr->lkey;
			sge->length = 1 + (n * 7 + k * 5 + i * 13) % 31;
			/* of three SGEs the middle one is empty: no segment */
			if (nsge == 3 && i == 1)
				sge->length = 0;
			sge->addr = (uintptr_t)at(d, EP_SRC_OFF + src + i * 32);
			if (s->op == IBV_WR_RDMA_READ || is_atomic(s->op))
				sge->addr = (uintptr_t)at(
					d, EP_LOCAL_OFF + src + i * 32);
		}
		if (s->inl_len) {
			d->sge[k][0].length = s->inl_len;
			wr->num_sge = 1;
		}
		if (is_atomic(s->op)) {
			d->sge[k][0].length = 8;
			wr->wr.atomic.remote_addr =
				(uintptr_t)at(d, EP_DST_OFF + dst);
			wr->wr.atomic.rkey = d->dev.mr->rkey;
			wr->wr.atomic.compare_add = 0x0102030405060708ULL * n;
			wr->wr.atomic.swap = ~(uint64_t)n;
		} else if (has_raddr(s->op)) {
			wr->wr.rdma.remote_addr =
				(uintptr_t)at(d, EP_DST_OFF + dst);
			wr->wr.rdma.rkey = d->dev.mr->rkey;
		} else if (p->cfg.type == IBV_QPT_UD) {
			wr->wr.ud.ah = p->ah;
			wr->wr.ud.remote_qpn = p->resp.qp->qp_num;
			wr->wr.ud.remote_qkey = EP_QKEY;
		}
		if ((int)k == s->bad_at)
			wr->num_sge = p->cap.max_send_sge + 1;
	}
}

/* the same WRs through ibv_wr_*: returns what ibv_wr_complete returns */
static int post_wr_api(struct diff *d, unsigned int count)
{
	struct ibv_qp_ex *qpx = d->p->req.qpx;
	unsigned int k;

	ibv_wr_start(qpx);
	for (k = 0; k < count; k++) {
		struct ibv_send_wr *wr = &d->wr[k];

		qpx->wr_id = wr->wr_id;
		qpx->wr_flags = wr->send_flags & ~IBV_SEND_INLINE;
		switch (wr->opcode) {
		case IBV_WR_SEND:
			ibv_wr_send(qpx);
			break;
		case IBV_WR_SEND_WITH_IMM:
			ibv_wr_send_imm(qpx, wr->imm_data);
			break;
		case IBV_WR_SEND_WITH_INV:
			ibv_wr_send_inv(qpx, wr->invalidate_rkey);
			break;
		case IBV_WR_RDMA_WRITE:
			ibv_wr_rdma_write(qpx, wr->wr.rdma.rkey,
					  wr->wr.rdma.remote_addr);
			break;
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			ibv_wr_rdma_write_imm(qpx, wr->wr.rdma.rkey,
					      wr->wr.rdma.remote_addr,
					      wr->imm_data);
			break;
		case IBV_WR_RDMA_READ:
			ibv_wr_rdma_read(qpx, wr->wr.rdma.rkey,
					 wr->wr.rdma.remote_addr);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
			ibv_wr_atomic_cmp_swp(qpx, wr->wr.atomic.rkey,
					      wr->wr.atomic.remote_addr,
					      wr->wr.atomic.compare_add,
					      wr->wr.atomic.swap);
			break;
		default:
			ibv_wr_atomic_fetch_add(qpx, wr->wr.atomic.rkey,
						wr->wr.atomic.remote_addr,
						wr->wr.atomic.compare_add);
		}
		if (d->p->cfg.type == IBV_QPT_UD)
			ibv_wr_set_ud_addr(qpx, wr->wr.ud.ah,
					   wr->wr.ud.remote_qpn,
					   wr->wr.ud.remote_qkey);
		if (wr->send_flags & IBV_SEND_INLINE) {
			struct ibv_data_buf buf[MAX_WR_SGE];
			int i;

			for (i = 0; i < wr->num_sge; i++) {
				buf[i].addr =
					(void *)(uintptr_t)wr->sg_list[i].addr;
				buf[i].length = wr->sg_list[i].length;
			}
			if (wr->num_sge == 1)
				ibv_wr_set_inline_data(qpx, buf[0].addr,
						       buf[0].length);
			else
				ibv_wr_set_inline_data_list(qpx, wr->num_sge,
							    buf);
		} else if (wr->num_sge == 1) {
			ibv_wr_set_sge(qpx, wr->sg_list[0].lkey,
				       wr->sg_list[0].addr,
				       wr->sg_list[0].length);
		} else {
			ibv_wr_set_sge_list(qpx, wr->num_sge, wr->sg_list);
		}
	}
	return ibv_wr_complete(qpx);
}

/* posts the WRs built, prints what the NIC reads; how many were taken */
static unsigned int post(struct diff *d, unsigned int count)
{
	struct ep_side *req = &d->p->req;
	struct ibv_send_wr *bad = NULL;
	unsigned int taken = count;
	int ret;

	d->wr[count - 1].next = NULL;
	capture_sq_begin(&req->cap);
	if (req->qpx) {
		ret = post_wr_api(d, count);
		if (ret)
			taken = 0;
		fprintf(d->out, " ret %d\n", ret);
	} else {
		ret = ibv_post_send(req->qp, d->wr, &bad);
		if (ret)
			taken = bad ? (unsigned int)(bad - d->wr) : 0;
		fprintf(d->out, " ret %d bad %d\n", ret,
			ret && bad ? (int)(bad - d->wr) : -1);
	}
	capture_sq(d->out, &req->cap);
	d->posts++;
	return taken;
}

static void post_recvs(struct diff *d)
{
	struct ibv_recv_wr wr[EP_RQ_DEPTH], *bad;
	struct ibv_sge sge[EP_RQ_DEPTH][EP_RECV_SGE];
	unsigned int n = EP_RQ_DEPTH - d->recv_posted, k;

	if (!n)
		return;
	for (k = 0; k < n; k++) {
		size_t off = EP_RECV_OFF + (d->recv_seq++ % 128) * 4096;

		sge[k][0] = (struct ibv_sge){ (uintptr_t)at(d, off), 64,
					      d->dev.mr->lkey };
		sge[k][1] = (struct ibv_sge){ (uintptr_t)at(d, off + 64), 2048,
					      d->dev.mr->lkey };
		wr[k] = (struct ibv_recv_wr){ .wr_id = d->recv_seq,
					      .next = k + 1 < n ? &wr[k + 1] :
								  NULL,
					      .sg_list = sge[k],
					      .num_sge = EP_RECV_SGE };
	}
	if (d->p->srq) {
		fprintf(d->out, "post_srq_recv %u ret %d\n", n,
			ibv_post_srq_recv(d->p->srq, wr, &bad));
		capture_srq(d->out, &d->p->csrq);
	} else {
		fprintf(d->out, "post_recv %u ret %d\n", n,
			ibv_post_recv(d->p->resp.qp, wr, &bad));
		capture_rq(d->out, &d->p->resp.cap);
	}
	d->recv_posted = EP_RQ_DEPTH;
}

static void print_wc(struct diff *d, const struct ibv_wc *wc)
{
	const struct ep_device *dev = &d->dev;

	fprintf(d->out,
		"  wc %#llx st %d op %d vend %#x len %u imm %#x qp %u src %u flags %#x pkey %u slid %u sl %u dlid %u\n",
		(unsigned long long)(wc->wr_id ^ capture_wc_flip()), wc->status,
		wc->opcode, wc->vendor_err, wc->byte_len, be32toh(wc->imm_data),
		ep_qpn(dev, wc->qp_num),
		wc->src_qp ? ep_qpn(dev, wc->src_qp) : 0, wc->wc_flags,
		wc->pkey_index, wc->slid, wc->sl, wc->dlid_path_bits);
	d->completions++;
}

static void print_wc_ex(struct diff *d, struct ibv_cq_ex *cq)
{
	const struct ep_device *dev = &d->dev;
	uint64_t flags;

	fprintf(d->out, "  wcx %#llx st %d vend %#x",
		(unsigned long long)(cq->wr_id ^ capture_wc_flip()), cq->status,
		ibv_wc_read_vendor_err(cq));
	d->completions++;
	if (cq->status != IBV_WC_SUCCESS) {
		fprintf(d->out, " qp %u\n",
			ep_qpn(dev, ibv_wc_read_qp_num(cq)));
		return;
	}
	flags = ibv_wc_read_wc_flags(cq);
	fprintf(d->out, " op %d len %u qp %u flags %#llx",
		ibv_wc_read_opcode(cq), ibv_wc_read_byte_len(cq),
		ep_qpn(dev, ibv_wc_read_qp_num(cq)), (unsigned long long)flags);
	if (flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV))
		fprintf(d->out, " imm %#x", be32toh(ibv_wc_read_imm_data(cq)));
	if (ibv_wc_read_opcode(cq) & IBV_WC_RECV)
		fprintf(d->out, " src %u slid %u sl %u dlid %u",
			ep_qpn(dev, ibv_wc_read_src_qp(cq)),
			ibv_wc_read_slid(cq), ibv_wc_read_sl(cq),
			ibv_wc_read_dlid_path_bits(cq));
	fputc('\n', d->out);
}

/* one more poll, of a CQ all of whose CQEs were polled */
static void poll_empty(struct diff *d, struct ep_side *s, enum poll_mode mode)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc[POLL_BATCH];
	int ret;

	if (mode == POLL_EX) {
		ret = ibv_start_poll(s->cqx, &attr);
		fprintf(d->out, " empty start_poll %d\n", ret);
		if (!ret)
			ibv_end_poll(s->cqx);
	} else {
		fprintf(d->out, " empty polled %d\n",
			ibv_poll_cq(s->cq, mode == POLL_ONE ? 1 : POLL_BATCH,
				    wc));
	}
}

/* polls `want` CQEs, all already written, the way this round says */
static unsigned int poll_side(struct diff *d, struct ep_side *s,
			      unsigned int want, bool expect_ok)
{
	enum poll_mode mode = d->round % (s->cqx ? NPOLL_MODES : POLL_EX);
	unsigned int got = 0;
	int n, i;

	if (mode == POLL_EX) {
		struct ibv_poll_cq_attr attr = {};

		if (!want || ibv_start_poll(s->cqx, &attr))
			return 0;
		do {
			if (expect_ok && s->cqx->status != IBV_WC_SUCCESS)
				fail(d, "a completion failed");
			print_wc_ex(d, s->cqx);
		} while (++got < want && !ibv_next_poll(s->cqx));
		ibv_end_poll(s->cqx);
		fprintf(d->out, " ex-polled %u\n", got);
	} else {
		struct ibv_wc wc[POLL_BATCH];
		int batch = mode == POLL_ONE ? 1 : POLL_BATCH;

		while (got < want) {
			memset(wc, 0, sizeof(wc));
			n = ibv_poll_cq(s->cq, batch, wc);
			fprintf(d->out, " polled %d\n", n);
			if (n <= 0)
				break;
			for (i = 0; i < n; i++) {
				if (expect_ok && wc[i].status != IBV_WC_SUCCESS)
					fail(d, "a completion failed");
				print_wc(d, &wc[i]);
			}
			got += n;
		}
	}
	if (expect_ok && got == want)
		poll_empty(d, s, mode);
	s->cq_ci += got;
	capture_cq_ci(d->out, &s->ccq);
	return got;
}

static bool wait_cqes(struct ep_side *s, unsigned int want)
{
	time_t end = time(NULL) + CQE_WAIT_SEC;

	while (want && !capture_cqe_ready(&s->ccq, s->cq_ci, want - 1)) {
		if (time(NULL) > end)
			return false;
		sched_yield();
	}
	return true;
}

/* waits for the CQEs expected on both sides, polls them, reposts */
static void collect(struct diff *d, unsigned int send_cqes,
		    unsigned int recv_cqes, bool expect_ok)
{
	struct ep_pair *p = d->p;

	fprintf(d->out, "collect %u %u round %u\n", send_cqes, recv_cqes,
		d->round);
	if (!wait_cqes(&p->req, send_cqes) || !wait_cqes(&p->resp, recv_cqes))
		fail(d, "CQEs missing");
	if (poll_side(d, &p->req, send_cqes, expect_ok) != send_cqes ||
	    poll_side(d, &p->resp, recv_cqes, expect_ok) != recv_cqes)
		fail(d, "fewer CQEs than expected");
	if (p->srq)
		capture_srq(d->out, &p->csrq); /* the WQEs polled are free */
	d->round++;
	d->recv_posted -= recv_cqes;
	d->sent = d->signaled = d->received = 0;
}

/* a signaled marker after the WRs since the last drain, then collect */
static void drain(struct diff *d)
{
	struct shape marker = { .op = IBV_WR_RDMA_WRITE,
				.flags = IBV_SEND_SIGNALED,
				.list = 1,
				.bad_at = -1 };

	if (d->p->cfg.type == IBV_QPT_UD)
		marker.op = IBV_WR_SEND;
	fprintf(d->out, "marker");
	build_wrs(d, &marker, 0);
	if (post(d, 1) != 1)
		fail(d, "the marker was refused");
	collect(d, d->signaled + 1, d->received + consumes_recv(marker.op),
		true);
	post_recvs(d);
}

static void run_shape(struct diff *d, const struct shape *s)
{
	unsigned long n = ++d->shapes;
	unsigned int taken, k;

	if (d->sent + s->list + 1 > DRAIN_AT)
		drain(d);
	fprintf(d->out, "shape %lu op %d sge %u inl %d flags %#x list %u", n,
		s->op, s->nsge, s->inl, s->flags, s->list);
	build_wrs(d, s, n);
	taken = post(d, s->list);
	for (k = 0; k < taken; k++) {
		d->sent++;
		d->signaled +=
			(s->flags & IBV_SEND_SIGNALED) || d->p->cfg.narrow;
		d->received += consumes_recv(s->op);
	}
}

static const unsigned int flag_sets[] = {
	0,
	IBV_SEND_SIGNALED,
	IBV_SEND_SIGNALED | IBV_SEND_FENCE,
	IBV_SEND_SIGNALED | IBV_SEND_SOLICITED,
	IBV_SEND_FENCE | IBV_SEND_SOLICITED,
};
#define NFLAG_SETS ARRAY_SIZE(flag_sets)

static const unsigned int sge_counts[] = { 0, 1, 2, 3, EP_MAX_SGE };
#define NSGE_COUNTS ARRAY_SIZE(sge_counts)

static const enum ibv_wr_opcode rc_ops[] = {
	IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM,
	IBV_WR_SEND_WITH_INV,
	IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM,
	IBV_WR_RDMA_READ,
	IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_WR_ATOMIC_FETCH_AND_ADD,
};
static const enum ibv_wr_opcode uc_ops[] = {
	IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM,
};
static const enum ibv_wr_opcode ud_ops[] = { IBV_WR_SEND,
					     IBV_WR_SEND_WITH_IMM };

/* one opcode: its SGE counts, inline or not, flags, then lists of 2, 32 */
static void run_opcode(struct diff *d, enum ibv_wr_opcode op)
{
	bool data = !is_atomic(op) && op != IBV_WR_RDMA_READ;
	unsigned int g, inl, f, list;

	for (f = 0; f < NFLAG_SETS; f++)
		for (g = 0; g < (is_atomic(op) ? 1 : NSGE_COUNTS); g++)
			for (inl = 0; inl <= data; inl++) {
				struct shape s = { op,	sge_counts[g],
						   inl, flag_sets[f],
						   1,	0,
						   -1 };

				run_shape(d, &s);
			}
	for (list = 2; list <= 32; list *= 16)
		for (inl = 0; inl <= data; inl++) {
			struct shape s = { op,	 2,
					   inl,	 inl ? IBV_SEND_SIGNALED : 0,
					   list, 0,
					   -1 };

			run_shape(d, &s);
		}
}

/* the opcodes the QP type allows */
static const enum ibv_wr_opcode *type_ops(struct diff *d, unsigned int *nops)
{
	switch (d->p->cfg.type) {
	case IBV_QPT_UC:
		*nops = ARRAY_SIZE(uc_ops);
		return uc_ops;
	case IBV_QPT_UD:
		*nops = ARRAY_SIZE(ud_ops);
		return ud_ops;
	default:
		*nops = ARRAY_SIZE(rc_ops);
		return rc_ops;
	}
}

/* every opcode the QP type allows */
static void run_matrix(struct diff *d)
{
	unsigned int nops, o;
	const enum ibv_wr_opcode *ops = type_ops(d, &nops);

	for (o = 0; o < nops; o++)
		run_opcode(d, ops[o]);
	drain(d);
}

/*
 * Around the SQ WRAP_TIMES times with WQEs of one to three basic blocks,
 * so that WQEs, and inline data and SGEs inside them, wrap at its end.
 */
static void run_wrap(struct diff *d)
{
	const struct capture_qp *c = &d->p->req.cap;
	uint32_t target = WRAP_TIMES * c->dv.sq.wqe_cnt, done = 0, i;
	unsigned int nops;
	const enum ibv_wr_opcode *ops = type_ops(d, &nops);

	fprintf(d->out, "wrap sq wqe_cnt %u\n", c->dv.sq.wqe_cnt);
	for (i = 0; done < target && i < 4 * target; i++) {
		enum ibv_wr_opcode op = ops[i % nops];
		bool wide = !d->p->cfg.narrow;
		bool data = !is_atomic(op) && op != IBV_WR_RDMA_READ;
		struct shape s = { op,
				   wide ? 1 + (i / nops) % EP_MAX_SGE : 1,
				   wide && data && (i / 3) % 2,
				   i % 3 ? 0 : IBV_SEND_SIGNALED,
				   i % 11 ? 1 : 3,
				   0,
				   -1 };
		uint16_t before = c->sq_pi;

		run_shape(d, &s);
		done += (uint16_t)(c->sq_pi - before);
	}
	drain(d);
}

/* WRs the library must refuse, with the same errno and bad_wr */
static void run_refusals(struct diff *d)
{
	enum ibv_wr_opcode op =
		d->p->cfg.type == IBV_QPT_UD ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
	struct shape many_sge = { op, 1, false, IBV_SEND_SIGNALED, 1, 0, 0 };
	struct shape long_inline = { op,   1,
				     true, IBV_SEND_SIGNALED,
				     1,	   d->p->cap.max_inline_data + 1,
				     -1 };
	struct shape bad_second = { op, 1, false, IBV_SEND_SIGNALED, 3, 0, 1 };

	fprintf(d->out, "refusals max_send_sge %u max_inline %u\n",
		d->p->cap.max_send_sge, d->p->cap.max_inline_data);
	run_shape(d, &many_sge);
	run_shape(d, &long_inline);
	run_shape(d, &bad_second);
	drain(d);
}

/*
 * More WRs in one list than the SQ holds (each takes a basic block at
 * least). Last: the SQ stays full, the QP is in error and its flushed WRs
 * are not polled.
 */
static void run_full_sq(struct diff *d)
{
	struct shape full = { IBV_WR_SEND, 0, false, 0, 0, 0, -1 };

	full.list = d->p->req.cap.dv.sq.wqe_cnt + 1;
	if (full.list > MAX_LIST) {
		fail(d, "the SQ is longer than MAX_LIST");
		return;
	}
	fprintf(d->out, "full sq:");
	build_wrs(d, &full, ++d->shapes);
	post(d, full.list);
}

static int modify_to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* a remote access error (RC), then WRs flushed from a QP in error */
static void run_errors(struct diff *d)
{
	struct shape flushed = { IBV_WR_SEND, 1, false, IBV_SEND_SIGNALED,
				 3,	      0, -1 };

	if (d->p->cfg.type == IBV_QPT_RC) {
		struct shape bad_rkey = {
			IBV_WR_RDMA_WRITE, 1, false, IBV_SEND_SIGNALED, 1, 0, -1
		};

		fprintf(d->out, "remote access error:");
		build_wrs(d, &bad_rkey, ++d->shapes);
		d->wr[0].wr.rdma.rkey ^= 0x5a5a00;
		post(d, 1);
		collect(d, 1, 0, false);
	}
	if (modify_to_error(d->p->req.qp))
		fail(d, "the requester did not go to error");
	fprintf(d->out, "flushed:");
	build_wrs(d, &flushed, ++d->shapes);
	post(d, flushed.list);
	if (modify_to_error(d->p->resp.qp))
		fail(d, "the responder did not go to error");
	/* an SRQ's receives outlive the QP: none is flushed */
	collect(d, flushed.list, d->p->srq ? 0 : d->recv_posted, false);
}

/*
 * A QP that has not reached RTS refuses every WR (65.0: ENOMEM), also on
 * the series' paths that decide per QP.
 */
static void run_before_rts(struct diff *d)
{
	struct ibv_qp_init_attr a = {
		.send_cq = d->p->req.cq,
		.recv_cq = d->p->req.cq,
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = 16 },
		.qp_type = d->p->cfg.type,
	};
	uint64_t value = 0x1122334455667788ULL;
	struct ibv_sge sge = { .addr = (uintptr_t)&value, .length = 8 };
	struct ibv_send_wr wr = { .wr_id = 1,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags =
					  IBV_SEND_INLINE | IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad = NULL;
	struct ibv_qp *qp = ibv_create_qp(d->p->qp_pd, &a);
	int ret;

	if (!qp) {
		fail(d, "cannot create a QP in RESET");
		return;
	}
	if (d->p->cfg.type != IBV_QPT_UD)
		wr.opcode = IBV_WR_RDMA_WRITE;
	ret = ibv_post_send(qp, &wr, &bad);
	fprintf(d->out, "post in RESET: %d bad_wr %s\n", ret,
		bad == &wr ? "wr" : "other");
	if (ibv_destroy_qp(qp))
		fail(d, "cannot destroy the QP in RESET");
}

static uint64_t region_hash(struct diff *d)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < EP_REGION_SIZE; i++)
		h = (h ^ d->dev.region[i]) * 0x100000001b3ULL;
	return h;
}

static void run_config(struct diff *d, const struct ep_config *cfg)
{
	struct ep_pair p;

	fprintf(d->out,
		"config type %d td %d wr_api %d cq_ex %d cq_st %d narrow %d srq %d\n",
		cfg->type, cfg->td, cfg->wr_api, cfg->cq_ex,
		cfg->cq_single_threaded, cfg->narrow, cfg->srq);
	d->p = &p;
	d->sent = d->signaled = d->received = d->recv_posted = 0;
	if (ep_pair_open(&d->dev, &p, cfg)) {
		fail(d, "cannot open the QP pair");
		ep_pair_close(&p);
		return;
	}
	post_recvs(d);
	run_matrix(d);
	run_wrap(d);
	run_refusals(d);
	run_errors(d);
	run_full_sq(d);
	run_before_rts(d);
	fprintf(d->out, "region %#llx\n", (unsigned long long)region_hash(d));
	ep_pair_close(&p);
	d->p = NULL;
}

/* MLX5_DIFF_TD_SHARING=N: every TD asks for sharing level N (the series) */
static int td_sharing_from_env(struct diff *d)
{
	const char *s = getenv("MLX5_DIFF_TD_SHARING");
	char *end;

	if (!s)
		return 0;
	d->dev.td_sharing = strtoul(s, &end, 10);
	if (*s && !*end && d->dev.td_sharing <= IBV_TD_SHARING_REGISTER)
		return 0;
	fail(d, "MLX5_DIFF_TD_SHARING takes a level, 0 to 3");
	return -1;
}

/* every QP type, with and without a TD, both APIs, wide and narrow QPs */
static void run_all(struct diff *d)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };
	unsigned int i;

	for (i = 0; i < 8 * ARRAY_SIZE(types); i++) {
		struct ep_config cfg = { .type = types[i / 8],
					 .td = i & 4,
					 .wr_api = i & 2,
					 .narrow = i & 1 };

		/*
		 * a TD's CQs come from ibv_create_cq_ex (its parent domain);
		 * without one, the extended CQs of narrow QPs are lock-free
		 */
		cfg.cq_ex = cfg.td || cfg.wr_api;
		cfg.cq_single_threaded = !cfg.td && cfg.wr_api && cfg.narrow;
		/* narrow QPs posting through ibv_post_send receive from an SRQ */
		cfg.srq = !cfg.wr_api && cfg.narrow;
		run_config(d, &cfg);
	}
}

int main(int argc, char **argv)
{
	struct diff *d = calloc(1, sizeof(*d));
	int ret;

	if (!d || argc > 2) {
		fprintf(stderr, "usage: mlx5_diff [OUTPUT]\n");
		free(d);
		return 2;
	}
	d->out = argc == 2 ? fopen(argv[1], "w") : stdout;
	if (!d->out) {
		perror(argv[1]);
		free(d);
		return 2;
	}
	capture_flip_from_env();
	if (ep_device_open(&d->dev))
		fail(d, "cannot open the device");
	else if (!td_sharing_from_env(d))
		run_all(d);
	ep_device_close(&d->dev);
	fprintf(d->out, "shapes %lu posts %lu completions %lu failures %lu\n",
		d->shapes, d->posts, d->completions, d->failures);
	fprintf(stderr,
		"mlx5_diff: %lu shapes, %lu posts, %lu completions, %lu failures\n",
		d->shapes, d->posts, d->completions, d->failures);
	ret = d->failures ? 1 : 0;
	if (d->out != stdout)
		fclose(d->out);
	free(d);
	return ret;
}
