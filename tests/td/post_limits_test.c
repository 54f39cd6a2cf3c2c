// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Work requests at the send queue's limits on an RC QP, of a thread domain
 * (the series' unlocked paths) or of none, refused as rdma-core 65.0's
 * ibv_post_send refuses them (issue 33):
 *
 *  - an empty list (NULL): 0, nothing posted;
 *  - inline data whose SGE lengths sum past 32 bits: ENOMEM, bad_wr the WR;
 *  - an ibv_wr_* WR on a full SQ (filled by ibv_post_send or by ibv_wr_*):
 *    ibv_wr_complete returns ENOMEM, and no WQE of the SQ changes.
 *
 * Each call that could crash runs first in a forked child, so that a crash
 * is a failure of that test; then the parent makes it too and checks that
 * the QP still carries data.
 *
 *   post_limits_test td|none [TEST-NAME-PATTERN]
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_test.h"
#include "rc_loop.h"

#define DEPTH 16
#define BUF 4096

struct limits {
	bool td;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *parent;
	struct ibv_td *ibtd;
	struct ibv_cq *cq, *target_cq;
	struct ibv_qp *qp, *target;
	struct ibv_qp_ex *qpx;
	struct ibv_mr *mr;
	struct mlx5dv_qp dv;
	uint32_t max_send_wr; /* what the QP got */
	unsigned char buf[2 * BUF];
	unsigned char *sq_copy; /* the SQ as it was before a refused call */
	uint32_t dbr_copy;
	unsigned int posted; /* basic blocks sq_save() keeps an eye on */
};

static bool with_td;

static int setup(void **state)
{
	struct limits *l = calloc(1, sizeof(*l));
	struct ibv_qp_init_attr_ex qa = {
		.cap = { .max_send_wr = DEPTH,
			 .max_recv_wr = 4,
			 .max_send_sge = 2,
			 .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
		.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct ibv_cq_init_attr_ex ca = { .cqe = 4 * DEPTH };
	struct mlx5dv_obj obj = {};

	assert_non_null(l);
	l->td = with_td;
	l->ctx = emu_test_open();
	assert_non_null(l->ctx);
	l->pd = ibv_alloc_pd(l->ctx);
	assert_non_null(l->pd);
	qa.pd = l->pd;
	if (l->td) {
		struct ibv_td_init_attr ta = {};
		struct ibv_parent_domain_init_attr pa = { .pd = l->pd };

		l->ibtd = ibv_alloc_td(l->ctx, &ta);
		assert_non_null(l->ibtd);
		pa.td = l->ibtd;
		l->parent = ibv_alloc_parent_domain(l->ctx, &pa);
		assert_non_null(l->parent);
		ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
		ca.parent_domain = l->parent;
		qa.pd = l->parent;
	}
	l->cq = ibv_cq_ex_to_cq(ibv_create_cq_ex(l->ctx, &ca));
	assert_non_null(l->cq);
	qa.send_cq = qa.recv_cq = l->cq;
	l->qp = ibv_create_qp_ex(l->ctx, &qa);
	assert_non_null(l->qp);
	l->max_send_wr = qa.cap.max_send_wr;
	l->qpx = ibv_qp_to_qp_ex(l->qp);
	assert_non_null(l->qpx);
	l->target_cq = ibv_create_cq(l->ctx, DEPTH, NULL, NULL, 0);
	assert_non_null(l->target_cq);
	l->target = rc_loop_create_qp(l->pd, l->target_cq, DEPTH);
	assert_non_null(l->target);
	rc_loop_connect(l->qp, l->target);
	l->mr = ibv_reg_mr(l->pd, l->buf, sizeof(l->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(l->mr);
	obj.qp.in = l->qp;
	obj.qp.out = &l->dv;
	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	l->sq_copy = malloc(l->dv.sq.wqe_cnt * l->dv.sq.stride);
	assert_non_null(l->sq_copy);
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	struct limits *l = *state;

	assert_int_equal(ibv_dereg_mr(l->mr), 0);
	assert_int_equal(ibv_destroy_qp(l->target), 0);
	assert_int_equal(ibv_destroy_cq(l->target_cq), 0);
	assert_int_equal(ibv_destroy_qp(l->qp), 0);
	assert_int_equal(ibv_destroy_cq(l->cq), 0);
	if (l->td) {
		assert_int_equal(ibv_dealloc_pd(l->parent), 0);
		assert_int_equal(ibv_dealloc_td(l->ibtd), 0);
	}
	assert_int_equal(ibv_dealloc_pd(l->pd), 0);
	assert_int_equal(ibv_close_device(l->ctx), 0);
	free(l->sq_copy);
	free(l);
	return 0;
}

/*
 * Before a call that must be refused: the doorbell record, and the SQ with
 * the `posted` basic blocks before the record, which the device may still
 * read. (A refused WR may leave bytes in the free blocks: 65.0 does.)
 */
static void sq_save(struct limits *l, unsigned int posted)
{
	memcpy(l->sq_copy, l->dv.sq.buf, l->dv.sq.wqe_cnt * l->dv.sq.stride);
	l->dbr_copy = l->dv.dbrec[MLX5_SND_DBR];
	l->posted = posted;
}

/* whether the record and the posted blocks are as sq_save() found them */
static bool sq_unchanged(const struct limits *l)
{
	uint32_t pi = be32toh(l->dbr_copy), i, at;

	if (l->dbr_copy != l->dv.dbrec[MLX5_SND_DBR])
		return false;
	for (i = 1; i <= l->posted; i++) {
		at = ((pi - i) & (l->dv.sq.wqe_cnt - 1)) * l->dv.sq.stride;
		if (memcmp(l->sq_copy + at, (uint8_t *)l->dv.sq.buf + at,
			   l->dv.sq.stride))
			return false;
	}
	return true;
}

/*
 * Runs fn in a child: what it returns is the child's exit status, 0 for
 * success. A crash (a signal) or another status fails the test with why.
 */
static void in_child(struct limits *l, int (*fn)(struct limits *),
		     const char *what)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* cmocka's handlers would go on running tests in the child */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		_exit(fn(l));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("%s: killed by signal %d", what, WTERMSIG(status));
	if (WEXITSTATUS(status))
		fail_msg("%s: failed check %d", what, WEXITSTATUS(status));
}

static void write_wr(struct limits *l, struct ibv_send_wr *wr,
		     struct ibv_sge *sge, uint64_t wr_id)
{
	*sge = (struct ibv_sge){ (uintptr_t)l->buf, 8, l->mr->lkey };
	*wr = (struct ibv_send_wr){
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)l->buf + BUF, l->mr->rkey },
	};
}

/* an RDMA WRITE of len bytes through ibv_wr_*, at an offset of wr_id's */
static int wr_api_write(struct limits *l, uint64_t wr_id, uint32_t len)
{
	ibv_wr_start(l->qpx);
	l->qpx->wr_id = wr_id;
	l->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(l->qpx, l->mr->rkey,
			  (uintptr_t)l->buf + BUF + wr_id % 256);
	ibv_wr_set_sge(l->qpx, l->mr->lkey, (uintptr_t)l->buf, len);
	return ibv_wr_complete(l->qpx);
}

/* waits for n successful completions */
static void poll_n(struct limits *l, unsigned int n)
{
	time_t end = time(NULL) + 20;
	struct ibv_wc wc;
	int got;

	while (n) {
		got = ibv_poll_cq(l->cq, 1, &wc);
		assert_true(got >= 0);
		if (!got) {
			assert_true(time(NULL) <= end);
			continue;
		}
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		n--;
	}
}

/* a WR through each API still completes: the refusal lost nothing */
static void still_works(struct limits *l)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;

	write_wr(l, &wr, &sge, 7);
	assert_int_equal(ibv_post_send(l->qp, &wr, &bad), 0);
	assert_int_equal(wr_api_write(l, 8, 8), 0);
	poll_n(l, 2);
}

static int child_null_list(struct limits *l)
{
	struct ibv_send_wr *bad = NULL;

	sq_save(l, 0);
	if (ibv_post_send(l->qp, NULL, &bad))
		return 1;
	return sq_unchanged(l) ? 0 : 2;
}

static void test_null_list(void **state)
{
	struct limits *l = *state;
	struct ibv_send_wr *bad = NULL;

	in_child(l, child_null_list, "ibv_post_send(qp, NULL)");
	assert_int_equal(ibv_post_send(l->qp, NULL, &bad), 0);
	still_works(l);
}

/* two inline SGEs whose lengths, summed in 32 bits, wrap to a small one */
static const uint32_t overflow_lens[][2] = {
	{ 0x7fffffff, 0x7fffffff },
	{ 0xffffffff, 2 },
	{ 1, 0xffffffff },
	{ 0x80000000, 0x80000000 },
};
static unsigned int overflow_case;

static void inline_wr(struct limits *l, struct ibv_send_wr *wr,
		      struct ibv_sge *sge, unsigned int c)
{
	write_wr(l, wr, sge, 1);
	sge[1] = sge[0];
	sge[0].length = overflow_lens[c][0];
	sge[1].length = overflow_lens[c][1];
	wr->num_sge = 2;
	wr->send_flags |= IBV_SEND_INLINE;
}

static int child_inline_overflow(struct limits *l)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge[2];
	int ret;

	inline_wr(l, &wr, sge, overflow_case);
	sq_save(l, 0);
	ret = ibv_post_send(l->qp, &wr, &bad);
	if (ret != ENOMEM) {
		fprintf(stderr, "ibv_post_send returned %d, not ENOMEM\n", ret);
		return 1;
	}
	if (bad != &wr)
		return 2;
	return sq_unchanged(l) ? 0 : 3;
}

static void test_inline_overflow(void **state)
{
	struct limits *l = *state;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge[2];
	char what[64];

	for (overflow_case = 0; overflow_case < 4; overflow_case++) {
		snprintf(what, sizeof(what), "inline SGEs of %#x + %#x",
			 overflow_lens[overflow_case][0],
			 overflow_lens[overflow_case][1]);
		in_child(l, child_inline_overflow, what);
		inline_wr(l, &wr, sge, overflow_case);
		assert_int_equal(ibv_post_send(l->qp, &wr, &bad), ENOMEM);
	}
	still_works(l);
}

/* another WR than the last posted, whose WQE a stray write would change */
static int child_wr_on_full_sq(struct limits *l)
{
	sq_save(l, l->max_send_wr);
	if (wr_api_write(l, 99, 16) != ENOMEM)
		return 1;
	return sq_unchanged(l) ? 0 : 2;
}

/* the SQ full, ibv_wr_* refuses the next WR and writes nothing */
static void check_full_sq(struct limits *l, unsigned int posted)
{
	assert_int_equal(posted, l->max_send_wr);
	in_child(l, child_wr_on_full_sq, "ibv_wr_* on a full SQ");
	assert_int_equal(wr_api_write(l, 99, 16), ENOMEM);
	poll_n(l, posted);
	still_works(l);
}

static void test_full_sq_by_post_send(void **state)
{
	struct limits *l = *state;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;
	unsigned int n;
	int ret = 0;

	for (n = 0; n <= l->max_send_wr; n++) {
		write_wr(l, &wr, &sge, n);
		ret = ibv_post_send(l->qp, &wr, &bad);
		if (ret)
			break;
	}
	assert_int_equal(ret, ENOMEM);
	assert_ptr_equal(bad, &wr);
	check_full_sq(l, n);
}

static void test_full_sq_by_wr_api(void **state)
{
	struct limits *l = *state;
	unsigned int n;

	/* exactly full: the one more is the child's */
	for (n = 0; n < l->max_send_wr; n++)
		assert_int_equal(wr_api_write(l, n, 8), 0);
	check_full_sq(l, n);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_inline_overflow, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_full_sq_by_post_send,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_sq_by_wr_api, setup,
						teardown),
	};

	if (argc < 2 || argc > 3 ||
	    (strcmp(argv[1], "td") && strcmp(argv[1], "none"))) {
		fprintf(stderr, "usage: post_limits_test td|none [PATTERN]\n");
		return 2;
	}
	with_td = !strcmp(argv[1], "td");
	if (argc == 3)
		cmocka_set_test_filter(argv[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
