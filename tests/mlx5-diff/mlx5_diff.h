/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The capture program's shared state: the QP pair under test, the WRs of
 * the post being built, and what was sent since the last drain. post.c
 * builds and posts WRs, poll.c polls and prints completions, matrix.c
 * runs the fixed matrix, random.c the seeded sequences.
 */
#ifndef MLX5_DIFF_H
#define MLX5_DIFF_H

#include <stdio.h>

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
	/* random.c: ibv_post_send on a QP that has ibv_wr_* too; batch size */
	bool via_post_send;
	unsigned int poll_batch; /* ibv_poll_cq's batch, 0: POLL_BATCH */
	struct ibv_sge sge[MAX_LIST][MAX_WR_SGE];
	struct ibv_send_wr wr[MAX_LIST];
};

static inline uint8_t *at(struct diff *d, size_t off)
{
	return d->dev.region + off;
}

static inline bool consumes_recv(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static inline bool has_raddr(enum ibv_wr_opcode op)
{
	return op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM ||
	       op == IBV_WR_RDMA_READ;
}

static inline bool is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

void fail(struct diff *d, const char *what);

/* post.c */
void build_wrs(struct diff *d, const struct shape *s, unsigned long n);
unsigned int post(struct diff *d, unsigned int count);
void post_recvs(struct diff *d);

/* poll.c */
void collect(struct diff *d, unsigned int send_cqes, unsigned int recv_cqes,
	     bool expect_ok);
void drain(struct diff *d);

/* matrix.c */
void run_shape(struct diff *d, const struct shape *s);
const enum ibv_wr_opcode *type_ops(struct diff *d, unsigned int *nops);
void run_matrix(struct diff *d);
void run_wrap(struct diff *d);
void run_refusals(struct diff *d);
void run_errors(struct diff *d);
void run_full_sq(struct diff *d);
void run_before_rts(struct diff *d);
int modify_to_error(struct ibv_qp *qp);

/* random.c */
void run_random(struct diff *d, uint64_t seed, unsigned long count);

#endif
