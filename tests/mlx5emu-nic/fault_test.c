// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Fault injection (MLX5EMU_FAULT_*) seen through the verbs a user sees:
 * each fault must produce what a ConnectX produces. One case per run, as
 * the faults are the process's: `fault_test CASE` under
 * `mlx5emu run --fault-...` (tests/mlx5emu-nic/CMakeLists.txt).
 *
 *   survive   packets and answers lost or delayed: every WQE succeeds,
 *             each SEND lands once, each atomic is executed once
 *   survive-cross  the same with the responder in another process
 *   vanish    the peer vanishes after two packets: RETRY_EXC_ERR, then
 *             WR_FLUSH_ERR, the QP in the error state
 *   port      the port goes down (PORT_ERR, ibv_query_port DOWN, sends
 *             exhaust their retries) and up again (PORT_ACTIVE, traffic)
 *   cq        the Nth CQE overruns its CQ: IBV_EVENT_CQ_ERR, no CQE after
 *   same      a random loss with a seed, run twice in two processes:
 *             the same completions, statuses and order
 *   same-rnr  the same with SENDs held by RNR NAKs until their receives
 *             come, later than the SENDs, run eight times: the same
 *             completions of each QP
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"
#include "rc_connect.h"

#define DEPTH 64
#define BUF (64 * 1024)
#define WAIT_MS 60000 /* a hang guard, not a timing check */

static const char *self_path;

struct pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b; /* a sends to b */
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t rbase; /* the peer's buf and rkey */
	uint32_t rkey;
};

static struct ibv_qp *create_qp(struct pair *p)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = p->cq,
		.recv_cq = p->cq,
		.cap = { .max_send_wr = DEPTH,
			 .max_recv_wr = DEPTH,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(p->pd, &attr);

	assert_non_null(qp);
	return qp;
}

/*
 * INIT and RTR by the shared bring-up; RTS here, since the retry count is
 * what these tests vary (timeout 14, unless --fault-timeout-us).
 */
static void connect_qp(struct ibv_qp *qp, uint32_t to,
		       const struct rc_addr *port, uint8_t retry_cnt)
{
	struct rc_addr local = *port, remote = *port;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = retry_cnt,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};

	local.qpn = qp->qp_num;
	remote.qpn = to;
	assert_int_equal(rc_qp_init(qp, 1,
				    IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ |
					    IBV_ACCESS_REMOTE_ATOMIC),
			 0);
	assert_int_equal(rc_qp_rtr(qp, 1, -1, &local, &remote), 0);
	assert_int_equal(
		ibv_modify_qp(qp, &a,
			      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				      IBV_QP_MAX_QP_RD_ATOMIC),
		0);
}

/* the device, a CQ and a buffer registered for everything */
static void end_open(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	p->ctx = emu_test_open();
	p->pd = ibv_alloc_pd(p->ctx);
	assert_non_null(p->pd);
	p->cq = ibv_create_cq(p->ctx, 4 * DEPTH, NULL, NULL, 0);
	assert_non_null(p->cq);
	p->buf = aligned_alloc(4096, BUF);
	assert_non_null(p->buf);
	memset(p->buf, 0, BUF);
	p->mr = ibv_reg_mr(p->pd, p->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	assert_non_null(p->mr);
	p->rbase = (uintptr_t)p->buf;
	p->rkey = p->mr->rkey;
}

static void pair_open(struct pair *p, uint8_t retry_cnt)
{
	struct rc_addr port;

	end_open(p);
	assert_int_equal(rc_port_addr(p->ctx, 1, -1, &port), 0);
	p->a = create_qp(p);
	p->b = create_qp(p);
	connect_qp(p->a, p->b->qp_num, &port, retry_cnt);
	connect_qp(p->b, p->a->qp_num, &port, retry_cnt);
}

static void pair_close(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	ibv_dereg_mr(p->mr);
	ibv_destroy_cq(p->cq);
	ibv_dealloc_pd(p->pd);
	ibv_close_device(p->ctx);
	free(p->buf);
}

/* layout of buf: sources, write targets, read targets, receives, atomics */
#define SRC(i) ((i)*64)
#define DST(i) (16384 + (i)*64)
#define RD(i) (32768 + (i)*64)
#define RCV(i) (49152 + (i)*64)
#define ATOMIC 61440
#define FETCHED(i) (61448 + (i)*8)

/* receive WQEs first .. first + n - 1 on b, one per SEND */
static void post_recvs_from(struct pair *p, unsigned int first, unsigned int n)
{
	struct ibv_recv_wr wr[DEPTH], *bad;
	struct ibv_sge sge[DEPTH];
	unsigned int i;

	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)p->buf + RCV(first + i),
					   64, p->mr->lkey };
		wr[i] = (struct ibv_recv_wr){ .wr_id = 1000 + first + i,
					      .sg_list = &sge[i],
					      .num_sge = 1,
					      .next = i + 1 < n ? &wr[i + 1] :
								  NULL };
	}
	assert_int_equal(ibv_post_recv(p->b, wr, &bad), 0);
}

static void post_recvs(struct pair *p, unsigned int n)
{
	post_recvs_from(p, 0, n);
}

/*
 * WQE i of a mix in one post list (one doorbell, so the NIC sees the
 * same packets whatever the timing): WRITE, SEND, READ, FETCH_AND_ADD.
 */
static void fill_wr(struct pair *p, unsigned int i, struct ibv_send_wr *wr,
		    struct ibv_sge *sge)
{
	uint64_t base = (uintptr_t)p->buf, rbase = p->rbase;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = i;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	sge->lkey = p->mr->lkey;
	sge->addr = base + SRC(i);
	sge->length = 64;
	wr->wr.rdma.rkey = p->rkey;
	switch (i % 4) {
	case 0:
		wr->opcode = IBV_WR_RDMA_WRITE;
		wr->wr.rdma.remote_addr = rbase + DST(i);
		break;
	case 1:
		wr->opcode = IBV_WR_SEND;
		break;
	case 2:
		wr->opcode = IBV_WR_RDMA_READ;
		sge->addr = base + RD(i);
		wr->wr.rdma.remote_addr = rbase + SRC(i);
		break;
	default:
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		sge->addr = base + FETCHED(i);
		sge->length = 8;
		wr->wr.atomic.remote_addr = rbase + ATOMIC;
		wr->wr.atomic.compare_add = 1;
		wr->wr.atomic.rkey = p->rkey;
		break;
	}
}

/* what WQE i sends, or a READ reads */
static void fill_sources(struct pair *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		memset(p->buf + SRC(i), 'a' + i % 26, 64);
}

static void post_mix(struct pair *p, unsigned int n)
{
	struct ibv_send_wr wr[DEPTH], *bad;
	struct ibv_sge sge[DEPTH];
	unsigned int i;

	fill_sources(p, n);
	for (i = 0; i < n; i++) {
		fill_wr(p, i, &wr[i], &sge[i]);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	assert_int_equal(ibv_post_send(p->a, wr, &bad), 0);
}

/* n completions of cq, or fewer when WAIT_MS passes without one */
static unsigned int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int n)
{
	unsigned int got = 0, idle = 0;
	int r;

	while (got < n && idle < WAIT_MS * 10) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		assert_true(r >= 0);
		if (r) {
			got += r;
			idle = 0;
		} else {
			usleep(100);
			idle++;
		}
	}
	return got;
}

#define MIX 40 /* WQEs of the survive tests */

/* b's side: each SEND once, in order, with its data */
static void check_receives(struct pair *p, const struct ibv_wc *wc,
			   unsigned int nwc)
{
	unsigned int i, next = 0;

	for (i = 0; i < nwc; i++) {
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		if (wc[i].opcode != IBV_WC_RECV)
			continue;
		assert_int_equal(wc[i].wr_id, 1000 + next);
		assert_memory_equal(p->buf + RCV(next),
				    p->buf + SRC(4 * next + 1), 64);
		next++;
	}
	assert_int_equal(next, MIX / 4);
}

/* b's memory: every WRITE landed, each atomic was executed once */
static void check_target(struct pair *p)
{
	unsigned int i;

	for (i = 0; i < MIX; i += 4)
		assert_memory_equal(p->buf + DST(i), p->buf + SRC(i), 64);
	assert_int_equal(*(uint64_t *)(p->buf + ATOMIC), MIX / 4);
}

/* a's memory: what READs and atomics returned */
static void check_initiator(struct pair *p)
{
	unsigned int i;

	for (i = 2; i < MIX; i += 4)
		assert_memory_equal(p->buf + RD(i), p->buf + SRC(i), 64);
	/* a duplicate atomic returns its first result */
	for (i = 3; i < MIX; i += 4)
		assert_int_equal(*(uint64_t *)(p->buf + FETCHED(i)), i / 4);
}

/* losses and delays that retries cover: nothing seen but success */
static void test_survive(void **state)
{
	struct ibv_wc wc[2 * DEPTH];
	struct pair p;

	(void)state;
	pair_open(&p, 7);
	post_recvs(&p, MIX / 4);
	post_mix(&p, MIX);
	/* the send completions on a, the receive completions on b */
	assert_int_equal(poll_n(p.cq, wc, MIX + MIX / 4), MIX + MIX / 4);
	check_receives(&p, wc, MIX + MIX / 4);
	check_target(&p);
	check_initiator(&p);
	pair_close(&p);
}

/* what the two processes of the cross test tell each other */
struct cross_info {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t base;
};

static void xchg(int fd, struct cross_info *mine, struct cross_info *theirs)
{
	assert_int_equal(write(fd, mine, sizeof(*mine)), sizeof(*mine));
	assert_int_equal(read(fd, theirs, sizeof(*theirs)), sizeof(*theirs));
}

static int cross_fd; /* cross-target: the socket to the initiator */

/* the responder of the cross test, in its own process: b */
static void test_cross_target(void **state)
{
	int fd = cross_fd;
	struct cross_info mine, theirs;
	struct ibv_wc wc[DEPTH];
	struct rc_addr port;
	struct pair p;
	char done;

	end_open(&p);
	assert_int_equal(rc_port_addr(p.ctx, 1, -1, &port), 0);
	p.b = create_qp(&p);
	fill_sources(&p, MIX);
	mine = (struct cross_info){ p.b->qp_num, p.mr->rkey, (uintptr_t)p.buf };
	xchg(fd, &mine, &theirs);
	connect_qp(p.b, theirs.qpn, &port, 7);
	/* a SEND that comes before is held by an RNR NAK (rnr_retry 7) */
	post_recvs(&p, MIX / 4);
	assert_int_equal(poll_n(p.cq, wc, MIX / 4), MIX / 4);
	check_receives(&p, wc, MIX / 4);
	/* the initiator has all its completions */
	assert_int_equal(read(fd, &done, 1), 1);
	check_target(&p);
	assert_int_equal(write(fd, "k", 1), 1);
	pair_close(&p);
	(void)state;
}

/* the same across two processes: answers lost on the fabric's sockets */
static void test_survive_cross(void **state)
{
	struct cross_info mine, theirs;
	struct ibv_wc wc[DEPTH];
	struct rc_addr port;
	struct pair p;
	int sv[2], status;
	char fd[16], ok;
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(sv[0]);
		snprintf(fd, sizeof(fd), "%d", sv[1]);
		execl(self_path, self_path, "cross-target", fd, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	end_open(&p);
	assert_int_equal(rc_port_addr(p.ctx, 1, -1, &port), 0);
	p.a = create_qp(&p);
	mine = (struct cross_info){ p.a->qp_num, p.mr->rkey, (uintptr_t)p.buf };
	xchg(sv[0], &mine, &theirs);
	p.rbase = theirs.base;
	p.rkey = theirs.rkey;
	connect_qp(p.a, theirs.qpn, &port, 7);
	post_mix(&p, MIX);
	assert_int_equal(poll_n(p.cq, wc, MIX), MIX);
	for (unsigned int i = 0; i < MIX; i++) {
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[i].wr_id, i);
	}
	check_initiator(&p);
	assert_int_equal(write(sv[0], "d", 1), 1);
	assert_int_equal(read(sv[0], &ok, 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	close(sv[0]);
	pair_close(&p);
}

/* the peer is gone from the third packet on */
static void test_vanish(void **state)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_wc wc[DEPTH];
	unsigned int n = 8, i;
	struct pair p;

	(void)state;
	pair_open(&p, 3);
	post_recvs(&p, n);
	post_mix(&p, n);
	assert_int_equal(poll_n(p.cq, wc, n + 1), n + 1);
	/* WRITE, SEND and its receive (in some order), then READ fails */
	assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[1].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[2].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[3].status, IBV_WC_RETRY_EXC_ERR);
	assert_int_equal(wc[3].wr_id, 2);
	for (i = 4; i < n + 1; i++) {
		assert_int_equal(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		assert_int_equal(wc[i].wr_id, i - 1);
	}
	assert_int_equal(ibv_query_qp(p.a, &attr, IBV_QP_STATE, &init), 0);
	assert_int_equal(attr.qp_state, IBV_QPS_ERR);
	pair_close(&p);
}

static void wait_async(struct ibv_context *ctx, enum ibv_event_type type,
		       struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	assert_int_equal(ibv_get_async_event(ctx, ev), 0);
	assert_int_equal(ev->event_type, type);
	ibv_ack_async_event(ev);
}

static enum ibv_port_state port_state(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;

	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	return pa.state;
}

/* --fault-port-down: PORT_ERR, DOWN, retries exhausted; then ACTIVE */
static void test_port(void **state)
{
	struct ibv_async_event ev;
	struct ibv_wc wc[DEPTH];
	struct pair p, q;
	unsigned int i;

	(void)state;
	pair_open(&p, 2);
	assert_int_equal(port_state(p.ctx), IBV_PORT_ACTIVE);
	wait_async(p.ctx, IBV_EVENT_PORT_ERR, &ev);
	assert_int_equal(ev.element.port_num, 1);
	assert_int_equal(port_state(p.ctx), IBV_PORT_DOWN);
	/* nothing gets through: the retries run out */
	post_mix(&p, 1);
	assert_int_equal(poll_n(p.cq, wc, 1), 1);
	assert_int_equal(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	wait_async(p.ctx, IBV_EVENT_PORT_ACTIVE, &ev);
	assert_int_equal(ev.element.port_num, 1);
	assert_int_equal(port_state(p.ctx), IBV_PORT_ACTIVE);
	/* the failed QP stays in error; a new one works */
	pair_open(&q, 2);
	post_mix(&q, 4);
	post_recvs(&q, 1);
	assert_int_equal(poll_n(q.cq, wc, 5), 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
	pair_close(&q);
	pair_close(&p);
}

/* --fault-cq-overrun=3: the third CQE overruns the CQ */
static void test_cq(void **state)
{
	struct ibv_async_event ev;
	struct ibv_wc wc[DEPTH];
	struct pair p;
	unsigned int i;

	(void)state;
	pair_open(&p, 7);
	post_mix(&p, 1); /* CQEs 1, 2 */
	post_mix(&p, 1);
	assert_int_equal(poll_n(p.cq, wc, 2), 2);
	post_mix(&p, 1); /* CQE 3 overruns */
	wait_async(p.ctx, IBV_EVENT_CQ_ERR, &ev);
	assert_ptr_equal(ev.element.cq, p.cq);
	for (i = 0; i < 4; i++)
		post_mix(&p, 1);
	/* no CQE is written to a CQ in error */
	usleep(100000);
	assert_int_equal(ibv_poll_cq(p.cq, DEPTH, wc), 0);
	pair_close(&p);
}

/* poll until all n WQEs of a completed; returns the CQEs seen */
static unsigned int poll_sender(struct pair *p, struct ibv_wc *wc,
				unsigned int n, unsigned int max)
{
	unsigned int got = 0, of_a = 0, idle = 0;
	int r, i;

	while (of_a < n && got < max && idle < WAIT_MS * 10) {
		r = ibv_poll_cq(p->cq, max - got, wc + got);
		assert_true(r >= 0);
		for (i = 0; i < r; i++)
			of_a += wc[got + i].qp_num == p->a->qp_num;
		got += r;
		if (r) {
			idle = 0;
		} else {
			usleep(100);
			idle++;
		}
	}
	assert_int_equal(of_a, n);
	return got;
}

static void print_wc(unsigned int pair, bool of_a, const struct ibv_wc *wc)
{
	printf("pair %u %s wr %llu status %s\n", pair, of_a ? "a" : "b",
	       (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status));
}

/*
 * The completions of a pair in the order polled, or with by_qp a's then
 * b's: how the two QPs' CQEs mix in their CQ depends on the NIC pass in
 * which the late receives are seen, not on faults.
 */
static void print_wcs(unsigned int pair, uint32_t a, const struct ibv_wc *wc,
		      unsigned int n, bool by_qp)
{
	unsigned int j;

	for (j = 0; j < n; j++)
		if (!by_qp || wc[j].qp_num == a)
			print_wc(pair, wc[j].qp_num == a, &wc[j]);
	for (j = 0; by_qp && j < n; j++)
		if (wc[j].qp_num != a)
			print_wc(pair, false, &wc[j]);
}

/*
 * One run of a seeded random loss: 8 pairs, 32 WQEs each, one retry.
 * Prints every completion (QP, wr_id, status) in the order polled. With
 * rnr, the last 4 of the 8 receives come 20 ms after the SENDs: SENDs
 * meet RNR NAKs (rnr_retry 7) a number of times that timing decides.
 */
static void run_once(bool rnr)
{
	struct ibv_wc wc[2 * DEPTH];
	struct pair p[8];
	unsigned int i, got;

	for (i = 0; i < 8; i++) {
		pair_open(&p[i], 1);
		post_recvs(&p[i], rnr ? 4 : 8);
		post_mix(&p[i], 32);
		if (rnr) {
			usleep(20000);
			post_recvs_from(&p[i], 4, 4);
		}
		got = poll_sender(&p[i], wc, 32, 2 * DEPTH);
		print_wcs(i, p[i].a->qp_num, wc, got, rnr);
	}
	fflush(stdout);
	for (i = 0; i < 8; i++)
		pair_close(&p[i]);
}

/* what a child running run_once() prints */
static char *run_child(const char *how)
{
	size_t cap = 1 << 20, len = 0;
	char *out = calloc(1, cap);
	int fds[2], status;
	ssize_t r;
	pid_t pid;

	assert_non_null(out);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(self_path, self_path, how, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((r = read(fds[0], out + len, cap - 1 - len)) > 0)
		len += r;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	return out;
}

/* the same seed gives the same run */
static void test_same(void **state)
{
	char *one = run_child("same-run"), *two = run_child("same-run");

	(void)state;
	/* losses happened, some WQEs survived them and some did not */
	assert_non_null(strstr(one, "status success"));
	assert_non_null(strstr(one, "transport retry counter exceeded"));
	assert_string_equal(one, two);
	free(one);
	free(two);
}

/* RNR NAKs, as many as timing makes, change nothing of it */
static void test_same_rnr(void **state)
{
	char *one = run_child("same-rnr-run"), *other;
	int i;

	(void)state;
	assert_non_null(strstr(one, "status success"));
	assert_non_null(strstr(one, "transport retry counter exceeded"));
	for (i = 0; i < 7; i++) {
		other = run_child("same-rnr-run");
		assert_string_equal(one, other);
		free(other);
	}
	free(one);
}

static int run_case(const char *name)
{
	const struct CMUnitTest survive[] = { cmocka_unit_test(test_survive) };
	const struct CMUnitTest vanish[] = { cmocka_unit_test(test_vanish) };
	const struct CMUnitTest port[] = { cmocka_unit_test(test_port) };
	const struct CMUnitTest cq[] = { cmocka_unit_test(test_cq) };
	const struct CMUnitTest same[] = { cmocka_unit_test(test_same) };
	const struct CMUnitTest same_rnr[] = { cmocka_unit_test(
		test_same_rnr) };
	const struct CMUnitTest cross[] = { cmocka_unit_test(
		test_survive_cross) };

	if (!strcmp(name, "survive"))
		return cmocka_run_group_tests(survive, NULL, NULL);
	if (!strcmp(name, "vanish"))
		return cmocka_run_group_tests(vanish, NULL, NULL);
	if (!strcmp(name, "port"))
		return cmocka_run_group_tests(port, NULL, NULL);
	if (!strcmp(name, "cq"))
		return cmocka_run_group_tests(cq, NULL, NULL);
	if (!strcmp(name, "same"))
		return cmocka_run_group_tests(same, NULL, NULL);
	if (!strcmp(name, "survive-cross"))
		return cmocka_run_group_tests(cross, NULL, NULL);
	if (!strcmp(name, "same-rnr"))
		return cmocka_run_group_tests(same_rnr, NULL, NULL);
	if (!strcmp(name, "same-run") || !strcmp(name, "same-rnr-run")) {
		run_once(!strcmp(name, "same-rnr-run"));
		return 0;
	}
	fprintf(stderr,
		"usage: fault_test survive|survive-cross|vanish|port|cq|same|same-rnr\n");
	return 2;
}

int main(int argc, char **argv)
{
	self_path = "/proc/self/exe";
	if (argc == 3 && !strcmp(argv[1], "cross-target")) {
		const struct CMUnitTest target[] = { cmocka_unit_test(
			test_cross_target) };

		cross_fd = atoi(argv[2]);
		return cmocka_run_group_tests(target, NULL, NULL);
	}
	if (argc != 2) {
		fprintf(stderr,
			"usage: fault_test survive|survive-cross|vanish|port|cq|same|same-rnr\n");
		return 2;
	}
	return run_case(argv[1]);
}
