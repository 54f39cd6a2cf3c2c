// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the emulated NIC counts for known post patterns (`mlx5emu stat`'s
 * traffic and ring records) against libmlx5's rules (post_send_db()): a
 * single WR that fits the BlueFlame register is copied there in 64-byte
 * blocks (inline, or any with MLX5_POST_SEND_PREFER_BF, the default) and
 * its WQE is not fetched; a list rings one 8-byte doorbell and the NIC
 * fetches every basic block; MLX5_SHUT_UP_BF=1 rings doorbells only.
 * Each pattern waits for its completions before the next post, and
 * destroying the QPs makes the NIC take the last ring and rewrite the
 * records, so the counts are final when read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_stat.h"
#include "emu_test.h"
#include "rc_loop.h"

#define POSTS 12
#define DEPTH 128
#define BUF_SIZE 8192

struct traffic {
	unsigned long long bf, bf_blocks, db, wqe_bbs, fetched_bbs;
	unsigned long long payload_read, payload_written, cqes;
};

/* what a run counted: the process's, and the sender's own */
struct counted {
	struct traffic d; /* the process's totals, after - before */
	unsigned long long qp_bf; /* the sender's ring records */
	struct traffic qp; /* the sender's traffic record while it lives */
	bool no_td; /* the level cannot be had here (EOPNOTSUPP) */
};

struct pattern {
	unsigned int list; /* WRs per ibv_post_send */
	unsigned int len; /* payload bytes per WR */
	bool inl;
	const char *env; /* set while the context is opened */
	int td_level; /* a thread domain of that sharing level; 0: none */
	/* before the first post, a control segment's second word in its half */
	bool copy_first;
};

static void parse_traffic(const char *line, struct traffic *t)
{
	t->bf = emu_stat_num(line, "bf", 0);
	t->bf_blocks = emu_stat_num(line, "bf_blocks", 0);
	t->db = emu_stat_num(line, "db", 0);
	t->wqe_bbs = emu_stat_num(line, "wqe_bbs", 0);
	t->fetched_bbs = emu_stat_num(line, "fetched_bbs", 0);
	t->payload_read = emu_stat_num(line, "payload_read", 0);
	t->payload_written = emu_stat_num(line, "payload_written", 0);
	t->cqes = emu_stat_num(line, "cqes", 0);
}

/*
 * The process's traffic record (qpn=all), qpn's (*qp, while it lives)
 * and the BlueFlame copies of qpn's ring records.
 */
static void read_traffic(struct traffic *t, uint32_t qpn, struct traffic *qp,
			 unsigned long long *qp_bf)
{
	char cmd[512], line[1024];
	FILE *f;

	memset(t, 0, sizeof(*t));
	memset(qp, 0, sizeof(*qp));
	*qp_bf = 0;
	snprintf(cmd, sizeof(cmd), "%s stat --machine --pid=%d", MLX5EMU_BIN,
		 getpid());
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (emu_stat_is(line, "ring") &&
		    emu_stat_num(line, "qpn", 0) == qpn)
			*qp_bf += emu_stat_num(line, "bf", 0);
		if (!emu_stat_is(line, "traffic"))
			continue;
		if (strstr(line, " qpn=all "))
			parse_traffic(line, t);
		else if (emu_stat_num(line, "qpn", 0) == qpn)
			parse_traffic(line, qp);
	}
	assert_int_equal(pclose(f), 0);
}

static void post_list(struct ibv_qp *qp, struct ibv_mr *mr, struct ibv_mr *dst,
		      const struct pattern *p)
{
	struct ibv_send_wr wr[64], *bad;
	struct ibv_sge sge[64];
	unsigned int i;

	for (i = 0; i < p->list; i++) {
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)mr->addr + i * 64,
			.length = p->len,
			.lkey = mr->lkey,
		};
		wr[i] = (struct ibv_send_wr){
			.wr_id = i,
			.next = i + 1 < p->list ? &wr[i + 1] : NULL,
			.sg_list = &sge[i],
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED |
				      (p->inl ? IBV_SEND_INLINE : 0),
			.wr.rdma = { .remote_addr =
					     (uintptr_t)dst->addr + i * 64,
				     .rkey = dst->rkey },
		};
	}
	assert_int_equal(ibv_post_send(qp, wr, &bad), 0);
}

static void wait_cqes(struct ibv_cq *cq, unsigned int n)
{
	struct ibv_wc wc[64];

	while (n) {
		int got = ibv_poll_cq(cq, n < 64 ? n : 64, wc);

		assert_true(got >= 0);
		for (int i = 0; i < got; i++)
			assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		n -= got;
	}
}

static struct ibv_context *open_with(const char *env)
{
	struct ibv_context *ctx;
	char name[64];

	if (env) {
		snprintf(name, sizeof(name), "%s", env);
		*strchr(name, '=') = 0;
		setenv(name, strchr(env, '=') + 1, 1);
	}
	ctx = emu_test_open();
	if (env)
		unsetenv(name);
	return ctx;
}

/*
 * bytes 8..15 of the half a fresh QP rings first (fm_ce_se = CQ update),
 * as a BlueFlame copy leaves them, and time for the NIC to look
 */
static void copy_ahead(struct ibv_qp *qp)
{
	struct mlx5dv_qp dvqp = {};
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dvqp } };

	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	*(volatile uint64_t *)((char *)dvqp.bf.reg + 8) = htole64(8ULL << 24);
	usleep(100000);
}

/* run p POSTS times: what the NIC counted for it */
static void run(const struct pattern *p, struct counted *c)
{
	struct ibv_td_init_attr ta = { .comp_mask = IBV_TD_INIT_ATTR_SHARING,
				       .sharing = p->td_level };
	struct ibv_context *ctx = open_with(p->env);
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *pad = NULL;
	struct ibv_cq *cq = ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, 0);
	void *buf = calloc(1, BUF_SIZE);
	struct ibv_td *td = NULL;
	struct ibv_mr *mr, *dst;
	struct ibv_qp *a, *b;
	struct traffic t0, t1, *d = &c->d, none;
	unsigned long long bf0, bf1;
	uint32_t qpn;
	unsigned int i;

	assert_non_null(pd);
	assert_non_null(cq);
	assert_non_null(buf);
	mr = ibv_reg_mr(pd, buf, BUF_SIZE / 2, IBV_ACCESS_LOCAL_WRITE);
	dst = ibv_reg_mr(pd, (char *)buf + BUF_SIZE / 2, BUF_SIZE / 2,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(mr);
	assert_non_null(dst);
	if (p->td_level) {
		struct ibv_parent_domain_init_attr pa = { .pd = pd };

		td = ibv_alloc_td(ctx, &ta);
		/* level 1 without BlueFlame wants UAR objects (dynamic mode) */
		c->no_td = !td && errno == EOPNOTSUPP && p->td_level == 1 &&
			   p->env && emu_test_static_mode();
		if (c->no_td)
			goto out;
		assert_non_null(td);
		pa.td = td;
		pad = ibv_alloc_parent_domain(ctx, &pa);
		assert_non_null(pad);
	}
	a = rc_loop_create_qp(pad ? pad : pd, cq, DEPTH);
	b = rc_loop_create_qp(pd, cq, DEPTH);
	assert_non_null(a);
	assert_non_null(b);
	rc_loop_connect(a, b);
	qpn = a->qp_num;
	read_traffic(&t0, qpn, &none, &bf0);
	if (p->copy_first)
		copy_ahead(a);
	for (i = 0; i < POSTS; i++) {
		post_list(a, mr, dst, p);
		wait_cqes(cq, p->list);
	}
	/* the records are rewritten: the sender's own, while it lives */
	assert_int_equal(ibv_destroy_qp(b), 0);
	read_traffic(&t1, qpn, &c->qp, &bf1);
	/* the NIC takes the sender's last ring */
	assert_int_equal(ibv_destroy_qp(a), 0);
	read_traffic(&t1, qpn, &none, &c->qp_bf);
	d->bf = t1.bf - t0.bf;
	d->bf_blocks = t1.bf_blocks - t0.bf_blocks;
	d->db = t1.db - t0.db;
	d->wqe_bbs = t1.wqe_bbs - t0.wqe_bbs;
	d->fetched_bbs = t1.fetched_bbs - t0.fetched_bbs;
	d->payload_read = t1.payload_read - t0.payload_read;
	d->payload_written = t1.payload_written - t0.payload_written;
	d->cqes = t1.cqes - t0.cqes;
	c->qp_bf -= bf0;
out:
	if (pad)
		assert_int_equal(ibv_dealloc_pd(pad), 0);
	if (td)
		assert_int_equal(ibv_dealloc_td(td), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(ibv_dereg_mr(dst), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
	free(buf);
}

/* WQE basic blocks of one RDMA WRITE of len bytes */
static unsigned int wqe_bbs(const struct pattern *p)
{
	unsigned int ds = 2 + (p->inl ? (4 + p->len + 15) / 16 : 1);

	return (ds * 16 + 63) / 64;
}

/* one BlueFlame copy per post (bf) or one doorbell per post (!bf) */
static void check(const struct pattern *p, bool bf)
{
	unsigned int msgs = POSTS * p->list, bbs = wqe_bbs(p);
	struct counted c;
	struct traffic d;

	memset(&c, 0, sizeof(c));
	run(p, &c);
	if (c.no_td)
		return;
	d = c.d;
	assert_int_equal(d.bf, bf ? POSTS : 0);
	assert_int_equal(d.db, bf ? 0 : POSTS);
	assert_int_equal(d.bf_blocks, bf ? POSTS * bbs : 0);
	assert_int_equal(d.wqe_bbs, msgs * bbs);
	assert_int_equal(d.fetched_bbs, bf ? 0 : msgs * bbs);
	assert_int_equal(d.payload_read, p->inl ? 0 : msgs * p->len);
	assert_int_equal(d.payload_written, msgs * p->len);
	assert_int_equal(d.cqes, msgs);
	/* the sender's own records say the same */
	assert_int_equal(c.qp_bf, bf ? POSTS : 0);
	assert_int_equal(c.qp.wqe_bbs, msgs * bbs);
	assert_int_equal(c.qp.cqes, msgs);
	assert_int_equal(c.qp.payload_read, p->inl ? 0 : msgs * p->len);
}

static void inline_single(void **state)
{
	struct pattern p = { .list = 1, .len = 8, .inl = true };

	(void)state;
	check(&p, true);
	p.len = 40; /* two blocks */
	check(&p, true);
}

static void inline_single_shut_up_bf(void **state)
{
	struct pattern p = {
		.list = 1, .len = 8, .inl = true, .env = "MLX5_SHUT_UP_BF=1"
	};

	(void)state;
	check(&p, false);
}

static void plain_single(void **state)
{
	struct pattern p = { .list = 1, .len = 256 };

	(void)state;
	check(&p, true); /* MLX5_POST_SEND_PREFER_BF defaults to 1 */
	p.env = "MLX5_POST_SEND_PREFER_BF=0";
	check(&p, false);
	p.env = "MLX5_SHUT_UP_BF=1";
	check(&p, false);
}

static void post_lists(void **state)
{
	static const unsigned int lists[] = { 2, 16, 64 };
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct pattern p = { .list = lists[i], .len = 8, .inl = true };

		check(&p, false);
		p.inl = false;
		p.len = 32;
		check(&p, false);
	}
}

static void td_levels(void **state)
{
	int level;

	(void)state;
	for (level = 1; level <= 3; level++) {
		struct pattern p = {
			.list = 1, .len = 8, .inl = true, .td_level = level
		};

		check(&p, true);
		p.list = 16;
		check(&p, false);
		p.list = 1;
		p.env = "MLX5_SHUT_UP_BF=1";
		check(&p, false);
	}
}

/*
 * A BlueFlame copy whose control segment the NIC sees before its ring: the
 * NIC read the two words either side of the copy, or the CPU made the
 * copy visible out of order (arm64). Made here on purpose: bytes 8..15 of
 * the half the next post rings, then, once the NIC has looked, libmlx5's
 * 8-byte ring. The NIC counts one BlueFlame copy, not a doorbell.
 */
static void copy_before_ring(void **state)
{
	struct pattern p = { .list = 1,
			     .len = 8,
			     .inl = true,
			     .env = "MLX5_SHUT_UP_BF=1",
			     .copy_first = true };
	struct counted c;

	(void)state;
	memset(&c, 0, sizeof(c));
	run(&p, &c);
	/* the first ring is that copy's, the others 8-byte doorbells */
	assert_int_equal(c.d.bf, 1);
	assert_int_equal(c.d.db, POSTS - 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inline_single),
		cmocka_unit_test(inline_single_shut_up_bf),
		cmocka_unit_test(plain_single),
		cmocka_unit_test(post_lists),
		cmocka_unit_test(td_levels),
		cmocka_unit_test(copy_before_ring),
	};

	unsetenv("MLX5_SHUT_UP_BF");
	unsetenv("MLX5_POST_SEND_PREFER_BF");
	unsetenv("MLX5_UAR_SHARING");
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
