// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A peer that is stopped (SIGSTOP, a debugger) must not stall this
 * process's control verbs: its NIC keeps the datagrams the peer cannot
 * take and sends them once it runs again, without holding the NIC lock
 * meanwhile. Run under `mlx5emu run`; the peer is a forked child with a
 * device context (so a NIC and a fabric slot) of its own.
 *
 * And a datagram posted just before its QP is destroyed still goes out,
 * as from an HCA (ofi_rxd's last acknowledgement).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"

#define MSGS 1280 /* 5 MB of datagrams: more than a link buffers */
#define MSG_LEN 4096
#define GRH 40
#define QKEY 0x11111111
#define HANG_BOUND_S 5 /* a verb stuck behind the peer takes 10 s */

struct ud {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint16_t lid;
};

static void ud_open(struct ud *u, size_t len)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = MSGS,
			 .max_recv_wr = MSGS,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = QKEY,
	};
	struct ibv_port_attr port;

	u->ctx = emu_test_open();
	u->pd = ibv_alloc_pd(u->ctx);
	assert_non_null(u->pd);
	u->cq = ibv_create_cq(u->ctx, 2 * MSGS, NULL, NULL, 0);
	assert_non_null(u->cq);
	init.send_cq = init.recv_cq = u->cq;
	u->qp = ibv_create_qp(u->pd, &init);
	assert_non_null(u->qp);
	assert_int_equal(ibv_modify_qp(u->qp, &attr,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_QKEY),
			 0);
	attr.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(u->qp, &attr, IBV_QP_STATE), 0);
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	assert_int_equal(
		ibv_modify_qp(u->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	u->buf = calloc(1, len);
	assert_non_null(u->buf);
	u->mr = ibv_reg_mr(u->pd, u->buf, len, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(u->mr);
	assert_int_equal(ibv_query_port(u->ctx, 1, &port), 0);
	u->lid = port.lid;
}

/* the stopped peer: receives MSGS datagrams, exits 0 if all came */
static void peer(int ready, int go)
{
	size_t slot = MSG_LEN + GRH;
	struct ibv_wc wc[16];
	struct ud u;
	uint32_t msg[2];
	int got = 0, idle = 0, i, n;
	char c;

	ud_open(&u, MSGS * slot);
	for (i = 0; i < MSGS; i++) {
		struct ibv_sge sge = { (uintptr_t)u.buf + i * slot, slot,
				       u.mr->lkey };
		struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(u.qp, &wr, &bad))
			_exit(3);
	}
	msg[0] = u.qp->qp_num;
	msg[1] = u.lid;
	if (write(ready, msg, sizeof(msg)) != sizeof(msg) ||
	    read(go, &c, 1) != 1)
		_exit(4);
	/* all of them, or 10 s without one */
	while (got < MSGS && idle < 10000) {
		n = ibv_poll_cq(u.cq, 16, wc);
		for (i = 0; i < n; i++)
			if (wc[i].status == IBV_WC_SUCCESS &&
			    wc[i].byte_len == MSG_LEN + GRH)
				got++;
		idle = n ? 0 : idle + 1;
		if (!n)
			usleep(1000);
	}
	_exit(got == MSGS ? 0 : 5);
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the control verbs a stopped peer used to hold up */
static void control_verbs(struct ud *u)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	static char mem[4096];
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	double t0 = seconds();

	mr = ibv_reg_mr(u->pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_true(seconds() - t0 < HANG_BOUND_S);
	cq = ibv_create_cq(u->ctx, 4, NULL, NULL, 0);
	assert_non_null(cq);
	init.send_cq = init.recv_cq = cq;
	qp = ibv_create_qp(u->pd, &init);
	assert_non_null(qp);
	assert_int_equal(ibv_modify_qp(qp, &attr,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT |
					       IBV_QP_ACCESS_FLAGS),
			 0);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_true(seconds() - t0 < HANG_BOUND_S);
}

static void test_stopped_peer_holds_no_verb(void **state)
{
	int ready[2], go[2], status, sent = 0, i, n, still = 0;
	uint32_t msg[2];
	struct ibv_wc wc[16];
	struct ibv_ah *ah;
	struct ud u;
	pid_t child;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		peer(ready[1], go[0]);
	}
	assert_int_equal(read(ready[0], msg, sizeof(msg)), sizeof(msg));
	ud_open(&u, MSG_LEN);
	ah = ibv_create_ah(u.pd, &(struct ibv_ah_attr){ .dlid = msg[1],
							.port_num = 1 });
	assert_non_null(ah);

	assert_int_equal(kill(child, SIGSTOP), 0);
	assert_int_equal(waitpid(child, &status, WUNTRACED), child);
	assert_true(WIFSTOPPED(status));
	for (i = 0; i < MSGS; i++) {
		struct ibv_sge sge = { (uintptr_t)u.buf, MSG_LEN, u.mr->lkey };
		struct ibv_send_wr wr = {
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { ah, msg[0], QKEY },
		}, *bad;

		assert_int_equal(ibv_post_send(u.qp, &wr, &bad), 0);
	}
	/* until the link is full: the NIC holds the rest */
	while (sent < MSGS && still < 200) {
		n = ibv_poll_cq(u.cq, 16, wc);
		assert_true(n >= 0);
		sent += n;
		still = n ? 0 : still + 1;
		usleep(1000);
	}
	assert_true(sent < MSGS);
	control_verbs(&u);

	/* running again, the peer gets every datagram */
	assert_int_equal(kill(child, SIGCONT), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	while (sent < MSGS) {
		n = ibv_poll_cq(u.cq, 16, wc);
		for (i = 0; i < n; i++)
			assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		sent += n;
	}
	ibv_destroy_ah(ah);
	ibv_destroy_qp(u.qp);
	ibv_dereg_mr(u.mr);
	ibv_destroy_cq(u.cq);
	ibv_dealloc_pd(u.pd);
	ibv_close_device(u.ctx);
	free(u.buf);
}

/*
 * Run with a NIC that sleeps long when idle (MLX5EMU_NIC_IDLE_US), so it
 * is asleep when the send is posted and the QP destroyed.
 */
static void test_send_before_destroy_goes_out(void **state)
{
	struct ibv_wc wc;
	struct ibv_ah *ah;
	struct ud a, b;
	int i, n = 0;

	(void)state;
	ud_open(&a, MSG_LEN);
	ud_open(&b, MSG_LEN + GRH);
	struct ibv_sge rsge = { (uintptr_t)b.buf, MSG_LEN + GRH, b.mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_sge sge = { (uintptr_t)a.buf, 64, a.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.wr.ud = { NULL, b.qp->qp_num, QKEY },
	}, *bad;

	assert_int_equal(ibv_post_recv(b.qp, &rwr, &rbad), 0);
	ah = ibv_create_ah(a.pd, &(struct ibv_ah_attr){ .dlid = b.lid,
							.port_num = 1 });
	assert_non_null(ah);
	wr.wr.ud.ah = ah;
	/* let the NIC fall asleep */
	usleep(300000);
	assert_int_equal(ibv_post_send(a.qp, &wr, &bad), 0);
	assert_int_equal(ibv_destroy_qp(a.qp), 0);
	/* delivered at the destroy, or never: a hang bound, not a timing */
	for (i = 0; i < 3000 && !n; i++) {
		n = ibv_poll_cq(b.cq, 1, &wc);
		if (!n)
			usleep(1000);
	}
	assert_int_equal(n, 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 64 + GRH);
	ibv_destroy_ah(ah);
	ibv_destroy_qp(b.qp);
	ibv_dereg_mr(a.mr);
	ibv_dereg_mr(b.mr);
	ibv_destroy_cq(a.cq);
	ibv_destroy_cq(b.cq);
	ibv_dealloc_pd(a.pd);
	ibv_dealloc_pd(b.pd);
	ibv_close_device(a.ctx);
	ibv_close_device(b.ctx);
	free(a.buf);
	free(b.buf);
}

/* argv[1]: run only the test of that name */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stopped_peer_holds_no_verb),
		cmocka_unit_test(test_send_before_destroy_goes_out),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);

	return cmocka_run_group_tests(tests, NULL, NULL);
}
