// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What becomes of UD datagrams, seen through libibverbs on the emulated
 * device: every reason a datagram is lost is counted in `mlx5emu stat`
 * and named in the trace, and a receive CQ that overflows is reported as
 * a ConnectX reports it (IBV_EVENT_CQ_ERR) instead of losing datagrams
 * silently.
 *
 * Run it with --trace=FILE: the trace is then checked too.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"

#define GRH 40
#define QKEY 0x11223344
#define BUF 8192
#define EVENT_WAIT_MS 30000 /* a hang guard, not a timing check */

static const char *const fates[] = {
	"delivered", "no_qp",	   "qp_state", "qp_type", "qkey",
	"no_wqe",    "cq_overrun", "too_long", "bad_wqe", "unreachable",
};

#define NFATES (sizeof(fates) / sizeof(fates[0]))

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t *buf;
	uint16_t lid;
	unsigned long long before[NFATES];
};

static void read_counts(unsigned long long *n)
{
	unsigned int i;

	for (i = 0; i < NFATES; i++)
		n[i] = emu_test_datagrams(fates[i]);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	struct ibv_port_attr pa;
	struct ibv_ah_attr aa = { .port_num = 1 };

	e->ctx = emu_test_open();
	e->pd = ibv_alloc_pd(e->ctx);
	e->scq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	/* small: the overrun test fills it */
	e->rcq = ibv_create_cq(e->ctx, 4, NULL, NULL, 0);
	e->buf = calloc(1, BUF);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(e->mr);
	assert_int_equal(ibv_query_port(e->ctx, 1, &pa), 0);
	e->lid = pa.lid;
	aa.dlid = e->lid;
	e->ah = ibv_create_ah(e->pd, &aa);
	assert_non_null(e->ah);
	read_counts(e->before);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	assert_int_equal(ibv_destroy_ah(e->ah), 0);
	assert_int_equal(ibv_dereg_mr(e->mr), 0);
	assert_int_equal(ibv_destroy_cq(e->rcq), 0);
	assert_int_equal(ibv_destroy_cq(e->scq), 0);
	assert_int_equal(ibv_dealloc_pd(e->pd), 0);
	assert_int_equal(ibv_close_device(e->ctx), 0);
	free(e->buf);
	free(e);
	return 0;
}

static struct ibv_qp *make_qp(struct env *e, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = e->scq,
		.recv_cq = e->rcq,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = type,
		.sq_sig_all = 1,
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &a);

	assert_non_null(qp);
	return qp;
}

/* a UD QP in INIT, or up to RTS */
static struct ibv_qp *ud_qp(struct env *e, bool rts)
{
	struct ibv_qp *qp = make_qp(e, IBV_QPT_UD);
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = QKEY,
	};

	assert_int_equal(ibv_modify_qp(qp, &a,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_QKEY),
			 0);
	if (!rts)
		return qp;
	a.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN),
			 0);
	return qp;
}

/* an RC QP in RTR: it takes requests, but not datagrams */
static struct ibv_qp *rc_qp_rtr(struct env *e)
{
	struct ibv_qp *qp = make_qp(e, IBV_QPT_RC);
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
	};

	assert_int_equal(ibv_modify_qp(qp, &a,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT |
					       IBV_QP_ACCESS_FLAGS),
			 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = qp->qp_num;
	a.ah_attr.dlid = e->lid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	assert_int_equal(ibv_modify_qp(qp, &a,
				       IBV_QP_STATE | IBV_QP_AV |
					       IBV_QP_PATH_MTU |
					       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC |
					       IBV_QP_MIN_RNR_TIMER),
			 0);
	return qp;
}

static void post_recv(struct env *e, struct ibv_qp *qp, size_t off,
		      uint32_t len, uint32_t lkey)
{
	struct ibv_sge s = { (uintptr_t)e->buf + off, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = off, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	assert_int_equal(ibv_post_recv(qp, &wr, &bad), 0);
}

/* n completions of cq, whatever their status */
static void poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	int got = 0, spins = 0;

	while (got < n && ++spins < 50000000) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		assert_true(r >= 0);
		got += r;
	}
	assert_int_equal(got, n);
}

/* one datagram of len bytes from a to qpn; the sender always succeeds */
static void send_to(struct env *e, struct ibv_qp *a, uint32_t qpn,
		    uint32_t qkey, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)e->buf, len, e->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &s,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
	}, *bad;
	struct ibv_wc wc;

	wr.wr.ud.ah = e->ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	poll_n(e->scq, &wc, 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
}

/* how many datagrams met that fate since setup */
static unsigned long long counted(struct env *e, const unsigned long long *n,
				  const char *fate)
{
	unsigned int i;

	for (i = 0; i < NFATES; i++)
		if (!strcmp(fates[i], fate))
			return n[i] - e->before[i];
	fail_msg("no fate %s", fate);
	return 0;
}

/* the trace names the datagram from src to dst and what became of it */
static void expect_traced(uint32_t src, uint32_t dst, const char *fate)
{
	const char *path = getenv("MLX5EMU_TRACE");
	char want[64], line[512], tag[32];
	bool found = false;
	FILE *f;

	if (!path || path[0] != '/')
		return; /* not traced to a file */
	f = fopen(path, "r");
	assert_non_null(f);
	snprintf(tag, sizeof(tag), "mlx5emu[%d]: ", getpid());
	if (!strcmp(fate, "delivered"))
		snprintf(want, sizeof(want), "ud delivered src_qpn=0x%x ", src);
	else
		snprintf(want, sizeof(want), "ud dropped src_qpn=0x%x ", src);
	while (!found && fgets(line, sizeof(line), f)) {
		char dest[32], reason[32];
		const char *r;

		snprintf(dest, sizeof(dest), " dest_qpn=0x%x ", dst);
		snprintf(reason, sizeof(reason), " reason=%s", fate);
		r = strstr(line, reason);
		found = !strncmp(line, tag, strlen(tag)) &&
			!strncmp(line + strlen(tag), want, strlen(want)) &&
			strstr(line, dest) &&
			(!strcmp(fate, "delivered") ||
			 (r && strchr(" \n", r[strlen(reason)])));
	}
	fclose(f);
	if (!found)
		fail_msg("no trace line for 0x%x -> 0x%x %s", src, dst, fate);
}

/*
 * Each way a datagram is lost, once: the sender completes every time,
 * the receiver's device counts it by reason, the trace says which.
 */
static void ud_drop_reasons(void **state)
{
	struct env *e = *state;
	struct ibv_qp *a = ud_qp(e, true), *b = ud_qp(e, true);
	struct ibv_qp *init = ud_qp(e, false), *rc = rc_qp_rtr(e);
	struct ibv_qp *small = ud_qp(e, true), *badkey = ud_qp(e, true);
	/* the trace names them by number, also once they are destroyed */
	uint32_t qpn[] = { b->qp_num, init->qp_num, rc->qp_num, small->qp_num,
			   badkey->qp_num };
	/* a QPN of our slot nobody has, and one of a slot nobody holds */
	uint32_t no_qp = b->qp_num + 0x1000, far = 200u << 16 | 0x100;
	unsigned long long n[NFATES];
	struct ibv_wc wc;
	unsigned int i;

	send_to(e, a, b->qp_num, QKEY, 100); /* no receive WQE */
	post_recv(e, b, 1024, 256, e->mr->lkey);
	send_to(e, a, b->qp_num, QKEY + 1, 100); /* wrong Q_Key */
	send_to(e, a, b->qp_num, QKEY, 100); /* delivered */
	poll_n(e->rcq, &wc, 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.src_qp, a->qp_num);
	post_recv(e, init, 1024, 256, e->mr->lkey);
	send_to(e, a, init->qp_num, QKEY, 100); /* not ready to receive */
	post_recv(e, rc, 1024, 256, e->mr->lkey);
	send_to(e, a, rc->qp_num, QKEY, 100); /* not a UD QP */
	send_to(e, a, no_qp, QKEY, 100);
	send_to(e, a, far, QKEY, 100);
	/* 100 bytes and the GRH room do not fit 64: an error CQE */
	post_recv(e, small, 2048, 64, e->mr->lkey);
	send_to(e, a, small->qp_num, QKEY, 100);
	poll_n(e->rcq, &wc, 1);
	assert_int_equal(wc.status, IBV_WC_LOC_LEN_ERR);
	post_recv(e, badkey, 2048, 256, e->mr->lkey ^ 0x100);
	send_to(e, a, badkey->qp_num, QKEY, 100);
	poll_n(e->rcq, &wc, 1);
	assert_int_not_equal(wc.status, IBV_WC_SUCCESS);

	/* destroying rewrites the attribution file */
	assert_int_equal(ibv_destroy_qp(badkey), 0);
	assert_int_equal(ibv_destroy_qp(small), 0);
	assert_int_equal(ibv_destroy_qp(rc), 0);
	assert_int_equal(ibv_destroy_qp(init), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	read_counts(n);
	for (i = 0; i < NFATES; i++)
		assert_int_equal(counted(e, n, fates[i]),
				 strcmp(fates[i], "cq_overrun") ? 1 : 0);
	expect_traced(a->qp_num, qpn[0], "no_wqe");
	expect_traced(a->qp_num, qpn[0], "qkey");
	expect_traced(a->qp_num, qpn[0], "delivered");
	expect_traced(a->qp_num, qpn[1], "qp_state");
	expect_traced(a->qp_num, qpn[2], "qp_type");
	expect_traced(a->qp_num, no_qp, "no_qp");
	expect_traced(a->qp_num, far, "unreachable");
	expect_traced(a->qp_num, qpn[3], "too_long");
	expect_traced(a->qp_num, qpn[4], "bad_wqe");
	assert_int_equal(ibv_destroy_qp(a), 0);
}

/*
 * More datagrams than the receive CQ holds, nothing polled: the CQ
 * overruns. ConnectX puts the CQ in error and raises IBV_EVENT_CQ_ERR;
 * the CQEs written before stay, nothing is written after.
 */
static void ud_cq_overrun(void **state)
{
	struct env *e = *state;
	struct ibv_qp *a = ud_qp(e, true), *b = ud_qp(e, true);
	int ring = e->rcq->cqe + 1, i;
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };
	unsigned long long n[NFATES];
	struct ibv_wc wc[32];

	assert_true(ring + 2 <= 16);
	for (i = 0; i < ring + 2; i++)
		post_recv(e, b, 64 * i, 64, e->mr->lkey);
	for (i = 0; i < ring + 2; i++)
		send_to(e, a, b->qp_num, QKEY, 8);
	assert_int_equal(poll(&pfd, 1, EVENT_WAIT_MS), 1);
	assert_int_equal(ibv_get_async_event(e->ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, e->rcq);
	ibv_ack_async_event(&ev);
	poll_n(e->rcq, wc, ring);
	for (i = 0; i < ring; i++)
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
	assert_int_equal(ibv_poll_cq(e->rcq, 1, wc), 0);
	/* the CQ stays in error: room made by polling takes nothing */
	send_to(e, a, b->qp_num, QKEY, 8);
	assert_int_equal(ibv_poll_cq(e->rcq, 1, wc), 0);

	expect_traced(a->qp_num, b->qp_num, "cq_overrun");
	assert_int_equal(ibv_destroy_qp(b), 0);
	read_counts(n);
	assert_int_equal(counted(e, n, "delivered"), ring);
	assert_int_equal(counted(e, n, "cq_overrun"), 3);
	assert_int_equal(ibv_destroy_qp(a), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(ud_drop_reasons, setup,
						teardown),
		cmocka_unit_test_setup_teardown(ud_cq_overrun, setup, teardown),
	};
	const char *trace = getenv("MLX5EMU_TRACE");

	/* lines of an earlier run would answer for this one */
	if (trace && trace[0] == '/' && truncate(trace, 0) && errno != ENOENT)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
