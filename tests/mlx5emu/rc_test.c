// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Control path on the emulated device: a connected pair of RC QPs brought
 * to RTS and torn down, the kernel's modify_qp rules, MR keys, the CQ size
 * rule, and a create/destroy loop that must not leak fds or memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"

#define BUF_SIZE 65536

struct rc_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	void *buf;
	struct ibv_mr *mr;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
};

static struct ibv_qp *create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 64,
			 .max_recv_wr = 64,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &attr);
}

static void pair_create(struct rc_pair *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->ctx = emu_test_open();
	p->pd = ibv_alloc_pd(p->ctx);
	assert_non_null(p->pd);
	p->buf = calloc(1, BUF_SIZE);
	assert_non_null(p->buf);
	p->mr = ibv_reg_mr(p->pd, p->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	assert_non_null(p->mr);
	p->channel = ibv_create_comp_channel(p->ctx);
	assert_non_null(p->channel);
	p->cq = ibv_create_cq(p->ctx, 128, NULL, p->channel, 0);
	assert_non_null(p->cq);
	/* rings the arm doorbell on the CQ's UAR page */
	assert_int_equal(ibv_req_notify_cq(p->cq, 0), 0);
	for (i = 0; i < 2; i++) {
		p->qp[i] = create_rc_qp(p->pd, p->cq);
		assert_non_null(p->qp[i]);
	}
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags =
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	return ibv_modify_qp(qp, &attr,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
}

static int to_rtr(struct ibv_qp *qp, uint16_t dlid, uint32_t dqpn, int mask)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_4096,
		.dest_qp_num = dqpn,
		.rq_psn = 0x123,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .dlid = dlid, .port_num = 1 },
	};

	return ibv_modify_qp(qp, &attr, mask);
}

#define RTR_MASK                                                               \
	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |        \
	 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)

static int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = 0x123,
		.max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &attr,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

static void pair_connect(struct rc_pair *p)
{
	struct ibv_port_attr port;
	int i;

	assert_int_equal(ibv_query_port(p->ctx, 1, &port), 0);
	assert_int_equal(port.state, IBV_PORT_ACTIVE);
	for (i = 0; i < 2; i++) {
		assert_int_equal(to_init(p->qp[i]), 0);
		assert_int_equal(to_rtr(p->qp[i], port.lid, p->qp[!i]->qp_num,
					RTR_MASK),
				 0);
		assert_int_equal(to_rts(p->qp[i]), 0);
	}
}

static void pair_destroy(struct rc_pair *p)
{
	int i;

	for (i = 0; i < 2; i++)
		assert_int_equal(ibv_destroy_qp(p->qp[i]), 0);
	assert_int_equal(ibv_destroy_cq(p->cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(p->channel), 0);
	assert_int_equal(ibv_dereg_mr(p->mr), 0);
	free(p->buf);
	assert_int_equal(ibv_dealloc_pd(p->pd), 0);
	assert_int_equal(ibv_close_device(p->ctx), 0);
}

static void rc_pair_to_rts(void **state)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct rc_pair p;
	int i;

	(void)state;
	pair_create(&p);
	pair_connect(&p);
	for (i = 0; i < 2; i++) {
		memset(&attr, 0, sizeof(attr));
		assert_int_equal(ibv_query_qp(p.qp[i], &attr,
					      IBV_QP_STATE | IBV_QP_DEST_QPN,
					      &init),
				 0);
		assert_int_equal(attr.qp_state, IBV_QPS_RTS);
		assert_int_equal(attr.dest_qp_num, p.qp[!i]->qp_num);
		assert_int_equal(attr.path_mtu, IBV_MTU_4096);
		assert_int_equal(attr.sq_psn, 0x123);
		assert_int_equal(attr.port_num, 1);
	}
	pair_destroy(&p);
}

static void modify_rules(void **state)
{
	struct ibv_qp_attr attr = {};
	struct rc_pair p;

	(void)state;
	pair_create(&p);
	/* RESET -> RTR is not a transition */
	assert_int_equal(to_rtr(p.qp[0], 1, p.qp[1]->qp_num, RTR_MASK), EINVAL);
	/* RESET -> INIT needs PKEY_INDEX | PORT | ACCESS_FLAGS */
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	assert_int_equal(ibv_modify_qp(p.qp[0], &attr,
				       IBV_QP_STATE | IBV_QP_PORT),
			 EINVAL);
	/* no such port */
	attr.port_num = 3;
	assert_int_equal(ibv_modify_qp(p.qp[0], &attr,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT |
					       IBV_QP_ACCESS_FLAGS),
			 EINVAL);
	assert_int_equal(to_init(p.qp[0]), 0);
	/* INIT -> RTS skips RTR */
	assert_int_equal(to_rts(p.qp[0]), EINVAL);
	/* RTR without the destination QPN */
	assert_int_equal(to_rtr(p.qp[0], 1, p.qp[1]->qp_num,
				RTR_MASK & ~IBV_QP_DEST_QPN),
			 EINVAL);
	/* a stray attribute not allowed on INIT -> RTR */
	assert_int_equal(to_rtr(p.qp[0], 1, p.qp[1]->qp_num,
				RTR_MASK | IBV_QP_SQ_PSN),
			 EINVAL);
	assert_int_equal(to_rtr(p.qp[0], 1, p.qp[1]->qp_num, RTR_MASK), 0);
	/* any state -> RESET, then the ladder again */
	attr.qp_state = IBV_QPS_RESET;
	assert_int_equal(ibv_modify_qp(p.qp[0], &attr, IBV_QP_STATE), 0);
	assert_int_equal(to_init(p.qp[0]), 0);
	attr.qp_state = IBV_QPS_ERR;
	assert_int_equal(ibv_modify_qp(p.qp[0], &attr, IBV_QP_STATE), 0);

	/* in-use objects cannot go away */
	assert_int_equal(ibv_dealloc_pd(p.pd), EBUSY);
	assert_int_equal(ibv_destroy_cq(p.cq), EBUSY);
	pair_destroy(&p);
}

static void mr_keys_and_cq_size(void **state)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr[300];
	char buf[4096];
	struct ibv_cq *cq;
	void *hole;
	int i;

	(void)state;
	assert_non_null(pd);
	for (i = 0; i < 300; i++) {
		mr[i] = ibv_reg_mr(pd, buf, sizeof(buf),
				   IBV_ACCESS_LOCAL_WRITE);
		assert_non_null(mr[i]);
		/* MLX5_INVALID_LKEY ends RQ scatter lists */
		assert_int_not_equal(mr[i]->lkey, 0x100);
		assert_int_equal(mr[i]->lkey, mr[i]->rkey);
		if (i)
			assert_int_not_equal(mr[i]->lkey, mr[i - 1]->lkey);
	}
	for (i = 0; i < 300; i++)
		assert_int_equal(ibv_dereg_mr(mr[i]), 0);

	/* remote write needs local write (ib_check_mr_access) */
	assert_null(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE));
	assert_int_equal(errno, EINVAL);
	/* memory that is not mapped cannot be pinned */
	hole = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(hole != MAP_FAILED);
	munmap(hole, 8192);
	assert_null(ibv_reg_mr(pd, hole, 8192, IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EFAULT);

	/* the ring holds roundup_pow2(cqe + 1) entries */
	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	assert_non_null(cq);
	assert_int_equal(cq->cqe, 127);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	cq = ibv_create_cq(ctx, 128, NULL, NULL, 0);
	assert_non_null(cq);
	assert_int_equal(cq->cqe, 255);
	assert_int_equal(ibv_destroy_cq(cq), 0);

	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

/*
 * Memory under the application's own userfaultfd (issue 37, D4): the
 * kernel cannot fault in a missing page to pin it, since only the
 * application's handler could, and refuses the MR with EFAULT; pages
 * already there pin. Skipped where userfaultfd cannot be had.
 */
static void mr_over_userfaultfd(void **state)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	long ps = sysconf(_SC_PAGESIZE);
	struct uffdio_register reg;
	struct ibv_mr *mr;
	char *mem;
	int uffd;

	(void)state;
	assert_non_null(pd);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* USER_MODE_ONLY */);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		ibv_dealloc_pd(pd);
		ibv_close_device(ctx);
		skip();
	}
	mem = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);
	/* the first two pages are there, the last two missing */
	memset(mem, 1, 2 * ps);
	reg = (struct uffdio_register){
		.range = { (uintptr_t)mem, 4 * ps },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	assert_int_equal(ioctl(uffd, UFFDIO_REGISTER, &reg), 0);
	assert_null(ibv_reg_mr(pd, mem, 4 * ps, IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EFAULT);
	assert_null(ibv_reg_mr(pd, mem + ps, 2 * ps, IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EFAULT);
	mr = ibv_reg_mr(pd, mem, 2 * ps, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	close(uffd);
	munmap(mem, 4 * ps);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

/* Unsupported things answer like a kernel without them. */
static void unsupported(void **state)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr qpa = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RAW_PACKET,
	};
	struct ibv_srq_init_attr srqa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_srq_attr resize = { .max_wr = 64 };
	struct ibv_srq *srq;

	(void)state;
	assert_non_null(pd);
	assert_non_null(cq);
	assert_null(ibv_create_qp(pd, &qpa));
	assert_int_equal(errno, EOPNOTSUPP);
	/* SRQs exist, but cannot be resized (mlx5_ib: EINVAL) */
	srq = ibv_create_srq(pd, &srqa);
	assert_non_null(srq);
	assert_int_equal(ibv_modify_srq(srq, &resize, IBV_SRQ_MAX_WR), EINVAL);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

/*
 * ibv_query_port_speed() answers in units of 100 Mb/s (ibv_devinfo prints
 * it divided by 10 as Gb/s): it must agree with the port's speed and width.
 */
static void port_speed(void **state)
{
	/* per-lane rate of each active_speed code (SDR 1 .. NDR 128) */
	static const struct {
		uint8_t code;
		uint64_t lane;
	} lanes[] = { { 1, 25 },   { 2, 50 },	{ 4, 100 },  { 8, 100 },
		      { 16, 140 }, { 32, 250 }, { 64, 500 }, { 128, 1000 } };
	struct ibv_context *ctx = emu_test_open();
	struct ibv_port_attr port;
	const char *transport = getenv("MLX5EMU_TRANSPORT");
	uint64_t speed = 0, lane = 0, width = 0;
	unsigned int i;
	int ret;

	(void)state;
	assert_int_equal(ibv_query_port(ctx, 1, &port), 0);
	for (i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++)
		if (lanes[i].code == port.active_speed)
			lane = lanes[i].lane;
	switch (port.active_width) { /* 1X 1, 4X 2, 8X 4, 12X 8, 2X 16 */
	case 1:
		width = 1;
		break;
	case 2:
		width = 4;
		break;
	case 4:
		width = 8;
		break;
	case 8:
		width = 12;
		break;
	case 16:
		width = 2;
		break;
	}
	assert_true(lane && width);
	ret = ibv_query_port_speed(ctx, 1, &speed);
	/* only a write-only kernel (--uar=static, write) has no method */
	if (transport && !strcmp(transport, "ioctl"))
		assert_int_equal(ret, 0);
	if (!ret)
		assert_int_equal(speed, lane * width);
	assert_int_equal(ibv_close_device(ctx), 0);
}

struct worker {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int errors;
};

static void *churn(void *arg)
{
	struct worker *w = arg;
	char buf[4096];
	int i;

	for (i = 0; i < 50; i++) {
		struct ibv_cq *cq = ibv_create_cq(w->ctx, 32, NULL, NULL, 0);
		struct ibv_mr *mr = ibv_reg_mr(w->pd, buf, sizeof(buf),
					       IBV_ACCESS_LOCAL_WRITE);
		struct ibv_qp *qp = cq ? create_rc_qp(w->pd, cq) : NULL;

		if (!cq || !mr || !qp || to_init(qp)) {
			w->errors++;
			break;
		}
		w->errors += ibv_destroy_qp(qp) != 0;
		w->errors += ibv_dereg_mr(mr) != 0;
		w->errors += ibv_destroy_cq(cq) != 0;
	}
	return NULL;
}

/* commands of one context from several threads, and a second context */
static void threads(void **state)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_context *ctx2 = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *pd2 = ibv_alloc_pd(ctx2);
	struct worker w[5];
	pthread_t t[5];
	int i;

	(void)state;
	assert_non_null(pd);
	assert_non_null(pd2);
	for (i = 0; i < 5; i++) {
		w[i].ctx = i < 4 ? ctx : ctx2;
		w[i].pd = i < 4 ? pd : pd2;
		w[i].errors = 0;
		assert_int_equal(pthread_create(&t[i], NULL, churn, &w[i]), 0);
	}
	for (i = 0; i < 5; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].errors, 0);
	}
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_dealloc_pd(pd2), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
	assert_int_equal(ibv_close_device(ctx2), 0);
}

/*
 * A freed QPN is not handed out again at once: the firmware gives QPNs out
 * in rising order, so a CQE a destroyed QP left behind names no new QP.
 */
static void qpn_not_reused_at_once(void **state)
{
	struct ibv_context *ctx = emu_test_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp[3], *again;
	uint32_t freed, seen[20];
	unsigned int i, j;

	(void)state;
	for (i = 0; i < 3; i++) {
		qp[i] = create_rc_qp(pd, cq);
		assert_non_null(qp[i]);
	}
	freed = qp[1]->qp_num;
	assert_int_equal(ibv_destroy_qp(qp[1]), 0);
	again = create_rc_qp(pd, cq);
	assert_non_null(again);
	assert_int_not_equal(again->qp_num, freed);
	assert_int_not_equal(again->qp_num, qp[0]->qp_num);
	assert_int_not_equal(again->qp_num, qp[2]->qp_num);
	assert_int_equal(ibv_destroy_qp(again), 0);
	assert_int_equal(ibv_destroy_qp(qp[2]), 0);
	assert_int_equal(ibv_destroy_qp(qp[0]), 0);
	/* one QP at a time: no QPN twice within 16 */
	for (i = 0; i < 20; i++) {
		again = create_rc_qp(pd, cq);
		assert_non_null(again);
		seen[i] = again->qp_num;
		for (j = i >= 15 ? i - 15 : 0; j < i; j++)
			assert_int_not_equal(seen[j], seen[i]);
		assert_int_equal(ibv_destroy_qp(again), 0);
	}
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

/*
 * Repetition 100 and the last one must see the same fds and (almost) the
 * same RSS: everything a context creates is freed on destroy/close.
 */
static void create_destroy_loop(void **state)
{
	unsigned int reps = emu_test_env_uint("MLX5EMU_TEST_REPS", 1000);
	unsigned int fds100 = 0, i;
	long rss100 = 0;
	struct rc_pair p;

	(void)state;
	for (i = 1; i <= reps; i++) {
		pair_create(&p);
		pair_connect(&p);
		pair_destroy(&p);
		if (i == 100 || (reps < 100 && i == 1)) {
			fds100 = emu_test_fd_count();
			rss100 = emu_test_rss_kib();
		}
	}
	print_message("fds %u -> %u, rss %ld KiB -> %ld KiB over %u reps\n",
		      fds100, emu_test_fd_count(), rss100, emu_test_rss_kib(),
		      reps);
	assert_int_equal(emu_test_fd_count(), fds100);
	/* short runs (valgrind) have no warm-up to compare against */
	if (reps > 100)
		assert_true(emu_test_rss_kib() - rss100 < 1024);
}

/* usage: mlx5emu-rc-test [basic|loop|all] (default basic) */
int main(int argc, char **argv)
{
	const struct CMUnitTest basic[] = {
		cmocka_unit_test(rc_pair_to_rts),
		cmocka_unit_test(modify_rules),
		cmocka_unit_test(mr_keys_and_cq_size),
		cmocka_unit_test(mr_over_userfaultfd),
		cmocka_unit_test(unsupported),
		cmocka_unit_test(port_speed),
		cmocka_unit_test(threads),
		cmocka_unit_test(qpn_not_reused_at_once),
	};
	const struct CMUnitTest loop[] = {
		cmocka_unit_test(create_destroy_loop),
	};
	const char *which = argc > 1 ? argv[1] : "basic";
	int ret = 0;

	if (strcmp(which, "loop"))
		ret |= cmocka_run_group_tests(basic, NULL, NULL);
	if (strcmp(which, "basic"))
		ret |= cmocka_run_group_tests(loop, NULL, NULL);
	return ret;
}
