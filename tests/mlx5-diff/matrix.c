// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The fixed matrix of shapes, the SQ wrap, refusals and error paths. */
#include <string.h>

#include "mlx5_diff.h"

void run_shape(struct diff *d, const struct shape *s)
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
const enum ibv_wr_opcode *type_ops(struct diff *d, unsigned int *nops)
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
void run_matrix(struct diff *d)
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
void run_wrap(struct diff *d)
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
void run_refusals(struct diff *d)
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
void run_full_sq(struct diff *d)
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

int modify_to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* a remote access error (RC), then WRs flushed from a QP in error */
void run_errors(struct diff *d)
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
void run_before_rts(struct diff *d)
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
