// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA WRITE, READ and atomics need no CPU of the responder, as on an
 * HCA: they complete while the responding process is stopped (SIGSTOP, a
 * debugger), every byte where it belongs. Run under `mlx5emu run`; the
 * responder is a forked child with a context (a NIC, a fabric slot) of
 * its own. With MLX5EMU_ONESIDED=0 the responder's NIC executes them, so
 * nothing completes while it is stopped.
 *
 * With ONESIDED_TEST_UNDUMPABLE=1 the responder is not dumpable, so a
 * requester without CAP_SYS_PTRACE may not touch its memory (as under
 * Yama's ptrace_scope=1): its NIC executes them, as with the switch off.
 *
 * Then the responder runs and modifies its QP (which publishes it again):
 * a SEND, which its NIC takes, and a WRITE after it find the PSN where
 * the direct requests left it. And the responder's checks still hold: a
 * WRITE to an MR that grants no remote write gets IBV_WC_REM_ACCESS_ERR,
 * as before.
 *
 * Atomics of the requester's NIC and of the responder's own are atomic
 * with respect to each other (test_onesided_atomics_race).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"
#include "rc_connect.h"

#define MEM 65536
#define RD_OFF 0 /* READ: the responder's pattern */
#define RD_LEN 16384
#define WR_OFF 0x4000 /* WRITE: two SGEs of the requester's */
#define WR_LEN 8192
#define AT_OFF 0x8000 /* two atomic words */
#define SEND_OFF 0xe000 /* a SEND of 64 bytes */
#define SEND_LEN 64
#define HANG_POLLS 10000 /* 10 s: a hang bound, not a timing */
#define STALL_POLLS 300 /* the NIC's way: nothing while it is stopped */

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr, *ro; /* ro: local access only */
	uint8_t *buf, *rbuf;
	uint16_t lid;
};

/* what the responder tells the requester */
struct info {
	uint32_t qpn, rkey, ro_rkey;
	uint32_t lid; /* no padding: it goes through a pipe whole */
	uint64_t addr, ro_addr;
};

static uint8_t rd_byte(size_t i)
{
	return (i * 7 + 3) & 0xff;
}

static uint8_t wr_byte(size_t i)
{
	return (i * 13 + 1) & 0xff;
}

static struct ibv_qp *qp_new(struct end *e)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 2,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &init);

	assert_non_null(qp);
	return qp;
}

static void end_open(struct end *e)
{
	struct ibv_port_attr port;
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	e->ctx = emu_test_open();
	e->pd = ibv_alloc_pd(e->ctx);
	assert_non_null(e->pd);
	e->cq = ibv_create_cq(e->ctx, 32, NULL, NULL, 0);
	assert_non_null(e->cq);
	e->qp = qp_new(e);
	assert_int_equal(posix_memalign((void **)&e->buf, 4096, MEM), 0);
	assert_int_equal(posix_memalign((void **)&e->rbuf, 4096, MEM), 0);
	memset(e->buf, 0, MEM);
	memset(e->rbuf, 0x5a, MEM);
	e->mr = ibv_reg_mr(e->pd, e->buf, MEM, acc);
	assert_non_null(e->mr);
	e->ro = ibv_reg_mr(e->pd, e->rbuf, MEM, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(e->ro);
	assert_int_equal(ibv_query_port(e->ctx, 1, &port), 0);
	e->lid = port.lid;
}

/* RESET to RTS toward qpn at lid, granting the peer every remote access */
static void qp_connect(struct ibv_qp *qp, uint32_t qpn, uint16_t lid)
{
	struct rc_addr local = { .psn = 0x123,
				 .lid = lid,
				 .mtu = IBV_MTU_4096 };
	struct rc_addr remote = local;

	remote.qpn = qpn;
	assert_int_equal(rc_qp_init(qp, 1,
				    IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ |
					    IBV_ACCESS_REMOTE_ATOMIC),
			 0);
	assert_int_equal(rc_qp_connect(qp, 1, -1, &local, &remote), 0);
}

/* RTS to RTS publishes the QP again; a receive for the SEND, taken */
static void republish(struct end *e, int to, int from)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
	struct ibv_sge sge = { (uintptr_t)e->buf + SEND_OFF, SEND_LEN,
			       e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	struct ibv_wc wc;
	int i, n = 0;
	char c;

	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE) ||
	    ibv_post_recv(e->qp, &wr, &bad) || write(to, "k", 1) != 1 ||
	    read(from, &c, 1) != 1)
		_exit(8);
	for (i = 0; i < HANG_POLLS && !n; i++) {
		n = ibv_poll_cq(e->cq, 1, &wc);
		if (!n)
			usleep(1000);
	}
	if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != 77 ||
	    wc.byte_len != SEND_LEN)
		_exit(9);
	for (i = 0; i < SEND_LEN; i++)
		if (e->buf[SEND_OFF + i] != 0xc3)
			_exit(10);
}

/*
 * The payload the process's QPs moved, as `mlx5emu stat` counts it: the
 * responder's count includes what the requesters moved in its memory.
 */
static void traffic_total(unsigned long long *rd, unsigned long long *wr)
{
	char cmd[512], line[1024], *p;
	FILE *f;

	*rd = *wr = 0;
	snprintf(cmd, sizeof(cmd), "%s stat --machine --pid=%d", MLX5EMU_BIN,
		 getpid());
	f = popen(cmd, "r");
	if (!f)
		_exit(11);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "traffic ", 8) || !strstr(line, " qpn=all "))
			continue;
		p = strstr(line, " payload_read=");
		if (p)
			*rd = strtoull(p + strlen(" payload_read="), NULL, 10);
		p = strstr(line, " payload_written=");
		if (p)
			*wr = strtoull(p + strlen(" payload_written="), NULL,
				       10);
	}
	pclose(f);
}

/*
 * one_sided_ops(): READs of RD_LEN, WR_LEN and 16 bytes, three atomics;
 * nic_way(): a READ of RD_LEN, two atomics. Then two WRITEs and a SEND.
 */
static void check_traffic(struct end *e, bool nic_way)
{
	unsigned long long rd, wr;
	unsigned int atomics = nic_way ? 2 : 3;
	unsigned long long resp_read =
		RD_LEN + (nic_way ? 0 : WR_LEN + 16) + atomics * 8;
	unsigned long long resp_written = 2 * WR_LEN + atomics * 8 + SEND_LEN;

	/* a destroyed QP's counts are written out at once */
	if (ibv_destroy_qp(e->qp))
		_exit(12);
	traffic_total(&rd, &wr);
	if (rd != resp_read || wr != resp_written) {
		fprintf(stderr, "responder counted read %llu written %llu\n",
			rd, wr);
		_exit(13);
	}
}

/* the responder: checks its memory once it runs again, exits 0 if right */
static void responder(int to, int from, bool nic_way)
{
	uint64_t *w;
	struct info in;
	struct end e;
	uint32_t peer[2];
	size_t i;
	char c;

	end_open(&e);
	for (i = 0; i < RD_LEN; i++)
		e.buf[RD_OFF + i] = rd_byte(i);
	w = (uint64_t *)(e.buf + AT_OFF);
	w[0] = 100;
	w[1] = 5;
	in = (struct info){
		.qpn = e.qp->qp_num,
		.rkey = e.mr->rkey,
		.ro_rkey = e.ro->rkey,
		.lid = e.lid,
		.addr = (uintptr_t)e.buf,
		.ro_addr = (uintptr_t)e.rbuf,
	};
	if (write(to, &in, sizeof(in)) != sizeof(in) ||
	    read(from, peer, sizeof(peer)) != sizeof(peer))
		_exit(3);
	qp_connect(e.qp, peer[0], peer[1]);
	if (write(to, "r", 1) != 1 || read(from, &c, 1) != 1)
		_exit(4);
	if (c == 'm')
		republish(&e, to, from);
	for (i = 0; i < WR_LEN; i++)
		if (e.buf[WR_OFF + i] != wr_byte(i))
			_exit(5);
	if (w[0] != 107 || w[1] != 42)
		_exit(6);
	for (i = 0; i < MEM; i++)
		if (e.rbuf[i] != 0x5a)
			_exit(7);
	check_traffic(&e, nic_way);
	_exit(0);
}

/* one completion of wr_id, within the hang bound (or none: stall) */
static int poll_one(struct end *e, uint64_t wr_id, int polls,
		    enum ibv_wc_status *status)
{
	struct ibv_wc wc;
	int i, n = 0;

	for (i = 0; i < polls && !n; i++) {
		n = ibv_poll_cq(e->cq, 1, &wc);
		assert_true(n >= 0);
		if (!n)
			usleep(1000);
	}
	if (!n)
		return -1;
	assert_int_equal(wc.wr_id, wr_id);
	*status = wc.status;
	return 0;
}

static void post(struct end *e, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags = IBV_SEND_SIGNALED;
	assert_int_equal(ibv_post_send(e->qp, wr, &bad), 0);
}

static void expect_ok(struct end *e, uint64_t wr_id)
{
	enum ibv_wc_status st;

	assert_int_equal(poll_one(e, wr_id, HANG_POLLS, &st), 0);
	assert_int_equal(st, IBV_WC_SUCCESS);
}

static void rdma(struct end *e, const struct info *in, enum ibv_wr_opcode op,
		 uint64_t wr_id, uint32_t off, uint32_t loff, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + loff, len, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op
	};

	wr.wr.rdma.remote_addr = in->addr + off;
	wr.wr.rdma.rkey = in->rkey;
	post(e, &wr);
}

static void atomic(struct end *e, const struct info *in, enum ibv_wr_opcode op,
		   uint64_t wr_id, uint32_t off, uint64_t cmp_add,
		   uint64_t swap, uint64_t expect_old)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + 0xc000, 8, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op
	};

	wr.wr.atomic.remote_addr = in->addr + off;
	wr.wr.atomic.rkey = in->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	post(e, &wr);
	expect_ok(e, wr_id);
	assert_int_equal(*(uint64_t *)(e->buf + 0xc000), expect_old);
}

/* the WRITE: two SGEs, 4 KB each, of the requester's memory */
static void write_two_sges(struct end *e, const struct info *in)
{
	struct ibv_sge sge[2] = {
		{ (uintptr_t)e->buf + 0x10000 - WR_LEN, WR_LEN / 2,
		  e->mr->lkey },
		{ (uintptr_t)e->buf + 0x10000 - WR_LEN / 2, WR_LEN / 2,
		  e->mr->lkey },
	};
	struct ibv_send_wr wr = { .wr_id = 1,
				  .sg_list = sge,
				  .num_sge = 2,
				  .opcode = IBV_WR_RDMA_WRITE };
	size_t i;

	for (i = 0; i < WR_LEN; i++)
		e->buf[0x10000 - WR_LEN + i] = wr_byte(i);
	wr.wr.rdma.remote_addr = in->addr + WR_OFF;
	wr.wr.rdma.rkey = in->rkey;
	post(e, &wr);
}

/* everything while the responder is stopped; every byte checked */
static void one_sided_ops(struct end *e, const struct info *in)
{
	uint64_t got[2];
	size_t i;

	write_two_sges(e, in);
	expect_ok(e, 1);
	rdma(e, in, IBV_WR_RDMA_READ, 2, RD_OFF, 0, RD_LEN);
	expect_ok(e, 2);
	for (i = 0; i < RD_LEN; i++)
		assert_int_equal(e->buf[i], rd_byte(i));
	atomic(e, in, IBV_WR_ATOMIC_FETCH_AND_ADD, 3, AT_OFF, 7, 0, 100);
	atomic(e, in, IBV_WR_ATOMIC_CMP_AND_SWP, 4, AT_OFF + 8, 5, 42, 5);
	/* a compare that fails swaps nothing */
	atomic(e, in, IBV_WR_ATOMIC_CMP_AND_SWP, 5, AT_OFF + 8, 6, 99, 42);
	/* what the WRITE and the atomics left, read back */
	rdma(e, in, IBV_WR_RDMA_READ, 6, WR_OFF, 0x4000, WR_LEN);
	expect_ok(e, 6);
	for (i = 0; i < WR_LEN; i++)
		assert_int_equal(e->buf[0x4000 + i], wr_byte(i));
	rdma(e, in, IBV_WR_RDMA_READ, 7, AT_OFF, 0xd000, 16);
	expect_ok(e, 7);
	memcpy(got, e->buf + 0xd000, 16);
	assert_int_equal(got[0], 107);
	assert_int_equal(got[1], 42);
}

/* the responder's NIC executes it: nothing until the responder runs */
static void nic_way(struct end *e, const struct info *in, pid_t child)
{
	enum ibv_wc_status st;

	write_two_sges(e, in);
	assert_int_equal(poll_one(e, 1, STALL_POLLS, &st), -1);
	assert_int_equal(kill(child, SIGCONT), 0);
	expect_ok(e, 1);
	rdma(e, in, IBV_WR_RDMA_READ, 2, RD_OFF, 0, RD_LEN);
	expect_ok(e, 2);
	atomic(e, in, IBV_WR_ATOMIC_FETCH_AND_ADD, 3, AT_OFF, 7, 0, 100);
	atomic(e, in, IBV_WR_ATOMIC_CMP_AND_SWP, 4, AT_OFF + 8, 5, 42, 5);
}

/* a SEND and a WRITE after the responder published its QP again */
static void after_republish(struct end *e, const struct info *in, int to,
			    int from)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + SEND_OFF, SEND_LEN,
			       e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 8, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND
	};
	char c;

	assert_int_equal(write(to, "m", 1), 1);
	assert_int_equal(read(from, &c, 1), 1);
	memset(e->buf + SEND_OFF, 0xc3, SEND_LEN);
	post(e, &wr);
	expect_ok(e, 8);
	write_two_sges(e, in);
	expect_ok(e, 1);
}

/* a WRITE the responder's MR does not grant fails as it always did */
static void violation(struct end *e, const struct info *in)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, 64, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 9,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE };
	enum ibv_wc_status st;

	wr.wr.rdma.remote_addr = in->ro_addr;
	wr.wr.rdma.rkey = in->ro_rkey;
	post(e, &wr);
	assert_int_equal(poll_one(e, 9, HANG_POLLS, &st), 0);
	assert_int_equal(st, IBV_WC_REM_ACCESS_ERR);
}

/* a responder forked with its pipes: to[1] and from[0] are ours */
struct peer {
	int to[2], from[2];
	pid_t child;
	struct info in;
};

static void peer_pipes(struct peer *p)
{
	assert_int_equal(pipe(p->to), 0);
	assert_int_equal(pipe(p->from), 0);
}

/* our end, connected to the responder's QP once it says it is ready */
static void peer_connect(struct peer *p, struct end *e)
{
	uint32_t mine[2];
	char c;

	assert_int_equal(read(p->from[0], &p->in, sizeof(p->in)),
			 sizeof(p->in));
	end_open(e);
	qp_connect(e->qp, p->in.qpn, p->in.lid);
	mine[0] = e->qp->qp_num;
	mine[1] = e->lid;
	assert_int_equal(write(p->to[1], mine, sizeof(mine)), sizeof(mine));
	assert_int_equal(read(p->from[0], &c, 1), 1);
}

/* the responder exits 0 after our word; our end goes */
static void peer_finish(struct peer *p, struct end *e, const char *word)
{
	int status;

	assert_int_equal(write(p->to[1], word, 1), 1);
	assert_int_equal(waitpid(p->child, &status, 0), p->child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	ibv_destroy_qp(e->qp);
	ibv_dereg_mr(e->mr);
	ibv_dereg_mr(e->ro);
	ibv_destroy_cq(e->cq);
	ibv_dealloc_pd(e->pd);
	ibv_close_device(e->ctx);
	free(e->buf);
	free(e->rbuf);
}

static void test_onesided_stopped_responder(void **state)
{
	const char *env = getenv("MLX5EMU_ONESIDED");
	bool undumpable = getenv("ONESIDED_TEST_UNDUMPABLE");
	bool off = (env && !strcmp(env, "0")) || undumpable;
	struct peer p;
	struct end e;
	int status;

	(void)state;
	peer_pipes(&p);
	p.child = fork();
	assert_true(p.child >= 0);
	if (!p.child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (undumpable)
			prctl(PR_SET_DUMPABLE, 0);
		responder(p.from[1], p.to[0], off);
	}
	peer_connect(&p, &e);

	assert_int_equal(kill(p.child, SIGSTOP), 0);
	assert_int_equal(waitpid(p.child, &status, WUNTRACED), p.child);
	assert_true(WIFSTOPPED(status));
	if (off) {
		nic_way(&e, &p.in, p.child);
	} else {
		one_sided_ops(&e, &p.in);
		assert_int_equal(kill(p.child, SIGCONT), 0);
	}
	after_republish(&e, &p.in, p.to[1], p.from[0]);
	violation(&e, &p.in);
	peer_finish(&p, &e, "g");
}

/*
 * Atomics stay atomic whichever NIC executes them: the responder's NIC
 * adds RACE_ADDS to a word through a QP pair of its own process while
 * the requester's NIC adds as many straight in its memory.
 */
#define RACE_ADDS 20000
#define RACE_BATCH 8

/* n fetch-and-adds of 1 to addr/rkey through qp, RACE_BATCH at a time */
static void adds(struct end *e, struct ibv_qp *qp, uint64_t addr, uint32_t rkey,
		 int n)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + 0xc000, 8, e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc[RACE_BATCH];
	int posted = 0, done = 0, i, k;

	wr.wr.atomic.remote_addr = addr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = 1;
	while (done < n) {
		while (posted < n && posted - done < RACE_BATCH) {
			assert_int_equal(ibv_post_send(qp, &wr, &bad), 0);
			posted++;
		}
		k = ibv_poll_cq(e->cq, RACE_BATCH, wc);
		assert_true(k >= 0);
		for (i = 0; i < k; i++)
			assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		done += k;
	}
}

/* the responder: adds through its loopback pair, then checks the sum */
static void race_responder(int to, int from)
{
	volatile uint64_t *w;
	struct ibv_qp *lo[2];
	struct info in;
	struct end e;
	uint32_t peer[2];
	char c;

	end_open(&e);
	w = (uint64_t *)(e.buf + AT_OFF);
	lo[0] = qp_new(&e);
	lo[1] = qp_new(&e);
	in = (struct info){ .qpn = e.qp->qp_num,
			    .rkey = e.mr->rkey,
			    .lid = e.lid,
			    .addr = (uintptr_t)e.buf };
	if (write(to, &in, sizeof(in)) != sizeof(in) ||
	    read(from, peer, sizeof(peer)) != sizeof(peer))
		_exit(3);
	qp_connect(e.qp, peer[0], peer[1]);
	qp_connect(lo[0], lo[1]->qp_num, e.lid);
	qp_connect(lo[1], lo[0]->qp_num, e.lid);
	if (write(to, "r", 1) != 1 || read(from, &c, 1) != 1)
		_exit(4);
	adds(&e, lo[0], in.addr + AT_OFF, e.mr->rkey, RACE_ADDS);
	if (read(from, &c, 1) != 1)
		_exit(5);
	_exit(*w == 2 * RACE_ADDS ? 0 : 6);
}

static void test_onesided_atomics_race(void **state)
{
	struct peer p;
	struct end e;

	(void)state;
	peer_pipes(&p);
	p.child = fork();
	assert_true(p.child >= 0);
	if (!p.child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		race_responder(p.from[1], p.to[0]);
	}
	peer_connect(&p, &e);
	assert_int_equal(write(p.to[1], "g", 1), 1);
	adds(&e, e.qp, p.in.addr + AT_OFF, p.in.rkey, RACE_ADDS);
	peer_finish(&p, &e, "d");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_onesided_stopped_responder),
		cmocka_unit_test(test_onesided_atomics_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
