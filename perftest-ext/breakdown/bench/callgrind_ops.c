// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The operations callgrind.sh counts, one path per run: every operation
 * happens inside bd_bench_region(), which callgrind.sh names to
 * --toggle-collect, so setup, waiting and draining are never counted.
 *
 *   callgrind_ops <path> <batches>     (inside mlx5emu run)
 * paths: raw-post wr-td wr-plain post-send-td post-send-plain
 *        post-list-td post-list-plain poll-raw poll-td poll-plain
 *        ext-poll-td
 * Each batch is BATCH operations: 8-byte inline RDMA WRITEs (one signaled
 * in 16; post-list-* posts them LIST_LEN to an ibv_post_send call), or
 * polls of one completion each that is already in the CQ (ext-poll-td:
 * ibv_start_poll + ibv_end_poll for each).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoints.h"

#define BATCH 128
#define SIGNAL_EVERY 16
#define LIST_LEN 32

enum op {
	OP_RAW_POST,
	OP_WR_TD,
	OP_WR_PLAIN,
	OP_POST_SEND_TD,
	OP_POST_SEND_PLAIN,
	OP_POST_LIST_TD,
	OP_POST_LIST_PLAIN,
	OP_POLL_RAW,
	OP_POLL_TD,
	OP_POLL_PLAIN,
	OP_EXT_POLL_TD,
	NOPS
};

static const char *const op_name[NOPS] = {
	[OP_RAW_POST] = "raw-post",
	[OP_WR_TD] = "wr-td",
	[OP_WR_PLAIN] = "wr-plain",
	[OP_POST_SEND_TD] = "post-send-td",
	[OP_POST_SEND_PLAIN] = "post-send-plain",
	[OP_POST_LIST_TD] = "post-list-td",
	[OP_POST_LIST_PLAIN] = "post-list-plain",
	[OP_POLL_RAW] = "poll-raw",
	[OP_POLL_TD] = "poll-td",
	[OP_POLL_PLAIN] = "poll-plain",
	[OP_EXT_POLL_TD] = "ext-poll-td",
};

struct bench {
	struct bd_endpoints e;
	enum op op;
	struct bd_sender *s;
	uint64_t value;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	/* post-list-*: one list, its own values */
	uint64_t list_value[LIST_LEN];
	struct ibv_sge list_sge[LIST_LEN];
	struct ibv_send_wr list[LIST_LEN];
};

static void die(const char *what)
{
	fprintf(stderr, "callgrind_ops: %s\n", what);
	exit(1);
}

static void post_one(struct bench *b, bool sig)
{
	unsigned int flags = IBV_SEND_INLINE | (sig ? IBV_SEND_SIGNALED : 0);
	struct ibv_send_wr *bad;

	b->value++;
	switch (b->op) {
	case OP_RAW_POST:
	case OP_POLL_RAW:
		bd_raw_post(&b->e.raw, b->value, sig);
		return;
	case OP_WR_TD:
	case OP_WR_PLAIN:
		ibv_wr_start(b->s->qpx);
		b->s->qpx->wr_flags = flags;
		ibv_wr_rdma_write(b->s->qpx, b->wr.wr.rdma.rkey,
				  b->wr.wr.rdma.remote_addr);
		ibv_wr_set_inline_data(b->s->qpx, &b->value, 8);
		if (ibv_wr_complete(b->s->qpx))
			die("ibv_wr_complete");
		break;
	default:
		b->wr.send_flags = flags;
		if (ibv_post_send(b->s->qp, &b->wr, &bad))
			die("ibv_post_send");
	}
	b->s->posted++;
}

/* LIST_LEN writes in one ibv_post_send, the i-th of the batch at first */
static void post_list(struct bench *b, int first)
{
	struct ibv_send_wr *bad;
	int i;

	for (i = 0; i < LIST_LEN; i++) {
		b->list_value[i] = ++b->value;
		b->list[i].send_flags =
			IBV_SEND_INLINE |
			((first + i + 1) % SIGNAL_EVERY ? 0 :
							  IBV_SEND_SIGNALED);
	}
	if (ibv_post_send(b->s->qp, b->list, &bad))
		die("ibv_post_send (list)");
	b->s->posted += LIST_LEN;
}

static int poll_one(struct bench *b)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc;
	uint16_t counter;
	int n;

	if (b->op == OP_EXT_POLL_TD) {
		n = ibv_start_poll(b->s->cqx, &attr);
		if (n)
			return n == ENOENT ? 0 : -1;
		n = b->s->cqx->status == IBV_WC_SUCCESS ? 1 : -1;
		ibv_end_poll(b->s->cqx);
		return n;
	}
	if (b->op == OP_POLL_RAW) {
		n = bd_raw_poll(&b->e.raw.cq, &counter);
		if (n > 0)
			b->e.raw.acked = counter + 1;
		return n;
	}
	n = ibv_poll_cq(b->s->cq, 1, &wc);
	if (n > 0 && wc.status != IBV_WC_SUCCESS)
		return -1;
	return n;
}

/* what callgrind counts: BATCH operations, nothing else */
__attribute__((noinline)) void bd_bench_region(struct bench *b);
__attribute__((noinline)) void bd_bench_region(struct bench *b)
{
	int i;

	if (b->op >= OP_POLL_RAW) {
		for (i = 0; i < BATCH; i++)
			if (poll_one(b) != 1)
				die("a completion was not there");
		return;
	}
	if (b->op == OP_POST_LIST_TD || b->op == OP_POST_LIST_PLAIN) {
		for (i = 0; i < BATCH; i += LIST_LEN)
			post_list(b, i);
		return;
	}
	for (i = 0; i < BATCH; i++)
		post_one(b, (i + 1) % SIGNAL_EVERY == 0);
}

static struct bd_raw_cq *peek_cq(struct bench *b)
{
	return b->s ? &b->s->peek : &b->e.raw.cq;
}

/* until the CQE `ahead` places past the consumer index is there */
static void wait_cqes(struct bench *b, uint32_t ahead)
{
	struct bd_raw_cq probe = *peek_cq(b);

	probe.ci += ahead;
	while (!bd_raw_cqe_ready(&probe))
		sched_yield();
}

/* outside the region: the CQEs of the batch just posted, consumed */
static void drain_posts(struct bench *b)
{
	int got = 0, n;

	wait_cqes(b, BATCH / SIGNAL_EVERY - 1);
	while (got < BATCH / SIGNAL_EVERY) {
		n = b->op == OP_RAW_POST ?
			    bd_raw_reap(&b->e.raw) :
			    ibv_poll_cq(b->s->cq, 1, &(struct ibv_wc){});
		if (n < 0)
			die("completion error");
		got += n;
		if (b->s)
			b->s->peek.ci += n;
	}
}

int main(int argc, char **argv)
{
	struct bench *b = calloc(1, sizeof(*b));
	int batches, i, op;

	if (!b || argc != 3)
		die("usage: callgrind_ops <path> <batches>");
	for (op = 0; op < NOPS && strcmp(op_name[op], argv[1]); op++)
		;
	batches = atoi(argv[2]);
	if (op == NOPS || batches < 1)
		die("unknown path or bad batch count");
	b->op = op;
	if (bd_endpoints_open(&b->e, NULL))
		return 1;
	if (op == OP_WR_TD || op == OP_POST_SEND_TD || op == OP_POST_LIST_TD ||
	    op == OP_POLL_TD || op == OP_EXT_POLL_TD)
		b->s = &b->e.src[BD_SENDER_TD];
	else if (op == OP_WR_PLAIN || op == OP_POST_SEND_PLAIN ||
		 op == OP_POST_LIST_PLAIN || op == OP_POLL_PLAIN)
		b->s = &b->e.src[BD_SENDER_PLAIN];
	b->sge.addr = (uintptr_t)&b->value;
	b->sge.length = 8;
	b->wr.sg_list = &b->sge;
	b->wr.num_sge = 1;
	b->wr.opcode = IBV_WR_RDMA_WRITE;
	b->wr.wr.rdma.remote_addr = (uintptr_t)b->e.buf;
	b->wr.wr.rdma.rkey = b->e.mr->rkey;
	for (i = 0; i < LIST_LEN; i++) {
		b->list_sge[i] = b->sge;
		b->list_sge[i].addr = (uintptr_t)&b->list_value[i];
		b->list[i] = b->wr;
		b->list[i].sg_list = &b->list_sge[i];
		b->list[i].next = i + 1 < LIST_LEN ? &b->list[i + 1] : NULL;
	}

	for (i = 0; i < batches; i++) {
		if (op >= OP_POLL_RAW) {
			int k;

			/* every write signaled, all CQEs there before */
			for (k = 0; k < BATCH; k++)
				post_one(b, true);
			wait_cqes(b, BATCH - 1);
			bd_bench_region(b);
			if (b->s)
				b->s->peek.ci += BATCH;
		} else {
			bd_bench_region(b);
			drain_posts(b);
		}
	}
	printf("%s: %d operations\n", op_name[op], batches * BATCH);
	bd_endpoints_close(&b->e);
	free(b);
	return 0;
}
