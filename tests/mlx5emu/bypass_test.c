// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UAR mappings that never pass through the emulator, as under UCX's
 * bistro mmap hooks: this program's own mmap()/munmap() come first in
 * symbol lookup (it is linked with --export-dynamic) and go straight to
 * the kernel with libmlx5's offsets. Doorbells must still land in memory
 * (no SIGBUS), traffic must flow, and `mlx5emu stat` must account the TD
 * pages and release them after the unseen munmap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_test.h"

static unsigned int raw_maps, raw_unmaps;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long ret = syscall(SYS_mmap, addr, len, prot, flags, fd, off);

	raw_maps++;
	if (ret < 0 && ret > -4096) {
		errno = -ret;
		return MAP_FAILED;
	}
	return (void *)ret;
}

int munmap(void *addr, size_t len)
{
	raw_unmaps++;
	return syscall(SYS_munmap, addr, len);
}

struct loop {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pad;
	struct ibv_td *td;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char buf[2][64];
};

static void to_state(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	assert_int_equal(ibv_modify_qp(qp, a, mask), 0);
}

/* an RC QP on the TD's parent domain; NULL: errno */
static struct ibv_qp *td_qp(struct loop *l)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = l->cq,
		.recv_cq = l->cq,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(l->pad, &qa);
}

/* context, PD, TD, parent domain and CQ; the QP on them (NULL: errno) */
static struct ibv_qp *loop_td(struct loop *l)
{
	struct ibv_parent_domain_init_attr pa = {};
	struct ibv_td_init_attr ta = {};

	memset(l, 0, sizeof(*l));
	l->ctx = emu_test_open();
	l->pd = ibv_alloc_pd(l->ctx);
	assert_non_null(l->pd);
	l->td = ibv_alloc_td(l->ctx, &ta);
	assert_non_null(l->td);
	pa.pd = l->pd;
	pa.td = l->td;
	l->pad = ibv_alloc_parent_domain(l->ctx, &pa);
	assert_non_null(l->pad);
	l->cq = ibv_create_cq(l->ctx, 16, NULL, NULL, 0);
	assert_non_null(l->cq);
	return td_qp(l);
}

/* one RC QP on a TD, connected to itself */
static void loop_open(struct loop *l)
{
	struct ibv_port_attr port;
	struct ibv_qp_attr a;

	l->qp = loop_td(l);
	assert_non_null(l->qp);
	l->mr = ibv_reg_mr(l->pd, l->buf, sizeof(l->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(l->mr);

	assert_int_equal(ibv_query_port(l->ctx, 1, &port), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	to_state(l->qp, &a,
		 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			 IBV_QP_ACCESS_FLAGS);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = l->qp->qp_num;
	a.ah_attr.dlid = port.lid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	to_state(l->qp, &a,
		 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			 IBV_QP_MIN_RNR_TIMER);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	assert_int_equal(
		ibv_modify_qp(l->qp, &a,
			      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				      IBV_QP_MAX_QP_RD_ATOMIC),
		0);
}

/* an RDMA WRITE from buf[0] to buf[1]: rings the TD's doorbell */
static void loop_write(struct loop *l)
{
	struct ibv_sge sge = { .addr = (uintptr_t)l->buf[0],
			       .length = sizeof(l->buf[0]),
			       .lkey = l->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)l->buf[1],
			     .rkey = l->mr->rkey },
	};
	struct timespec nap = { .tv_nsec = 100000 };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n, tries;

	strcpy(l->buf[0], "through a mapping we never saw");
	assert_int_equal(ibv_post_send(l->qp, &wr, &bad), 0);
	for (tries = 0; tries < 50000; tries++) {
		n = ibv_poll_cq(l->cq, 1, &wc);
		if (n)
			break;
		nanosleep(&nap, NULL);
	}
	assert_int_equal(n, 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_string_equal(l->buf[1], l->buf[0]);
}

static void loop_close(struct loop *l)
{
	assert_int_equal(ibv_dereg_mr(l->mr), 0);
	assert_int_equal(ibv_destroy_qp(l->qp), 0);
	assert_int_equal(ibv_destroy_cq(l->cq), 0);
	assert_int_equal(ibv_dealloc_pd(l->pad), 0);
	assert_int_equal(ibv_dealloc_td(l->td), 0);
	assert_int_equal(ibv_dealloc_pd(l->pd), 0);
	assert_int_equal(ibv_close_device(l->ctx), 0);
}

/* the TD's page: "alloc_wc" (static) or a second "bf" page (dynamic) */
static unsigned int td_pages(const struct emu_test_stat *st)
{
	return emu_test_static_mode() ?
		       emu_test_count_pages(st, st->last_ctx, "alloc_wc") :
		       emu_test_count_pages(st, st->last_ctx, "bf");
}

static void bypassed_maps(void **state)
{
	struct emu_test_stat *st = malloc(sizeof(*st));
	unsigned int i, maps, before;
	struct ibv_pd *pd;
	struct loop l;

	(void)state;
	assert_non_null(st);
	maps = raw_maps;
	loop_open(&l);
	/* libmlx5's mmaps really went around the emulator */
	assert_true(raw_maps > maps);
	loop_write(&l);

	emu_test_read_stat(st);
	before = td_pages(st);
	assert_true(before >= 1);
	for (i = 0; i < st->npages; i++)
		if (st->pages[i].ctx == st->last_ctx)
			assert_int_equal(st->pages[i].mapped, 1);
	assert_int_equal(emu_test_find_qp(st, l.qp->qp_num)->bfreg, -1);

	/* a UAR object mapped behind our back is accounted as mapped */
	before = emu_test_count_pages(st, st->last_ctx, "nc");
	if (!emu_test_static_mode()) {
		struct mlx5dv_devx_uar *uar = mlx5dv_devx_alloc_uar(
			l.ctx, MLX5DV_UAR_ALLOC_TYPE_NC_DEDICATED);

		assert_non_null(uar);
		/* the next command looks at the maps */
		pd = ibv_alloc_pd(l.ctx);
		assert_non_null(pd);
		assert_int_equal(ibv_dealloc_pd(pd), 0);
		emu_test_read_stat(st);
		assert_int_equal(emu_test_count_pages(st, st->last_ctx, "nc"),
				 before + 1);
		for (i = 0; i < st->npages; i++)
			if (st->pages[i].ctx == st->last_ctx)
				assert_int_equal(st->pages[i].mapped, 1);
		mlx5dv_devx_free_uar(uar);
	}
	pd = ibv_alloc_pd(l.ctx);
	assert_non_null(pd);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	loop_close(&l);
	free(st);
}

/* many contexts come and go: nothing is left behind */
static void bypassed_cycles(void **state)
{
	struct loop l;
	int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		loop_open(&l);
		loop_write(&l);
		loop_close(&l);
	}
	assert_true(raw_unmaps > 0);
}

/*
 * --uar=static --uar-limit=8: the context's 8 static pages are all it may
 * hold. The TD's ALLOC_WC mmap succeeds behind our back (the kernel would
 * have refused it), so the refusal surfaces at the TD's first QP.
 */
static void bypassed_limit(void **state)
{
	struct emu_test_stat *st = malloc(sizeof(*st));
	struct loop l;

	(void)state;
	assert_non_null(st);
	assert_null(loop_td(&l));
	assert_int_equal(errno, EINVAL);
	emu_test_read_stat(st);
	assert_int_equal(st->refused, 1);
	assert_string_equal(st->last_refused, "mmap_alloc_wc:ENOMEM");
	assert_int_equal(emu_test_count_pages(st, st->last_ctx, "alloc_wc"), 0);
	/* asking again counts no second refusal */
	assert_null(td_qp(&l));
	emu_test_read_stat(st);
	assert_int_equal(st->refused, 1);
	assert_int_equal(ibv_destroy_cq(l.cq), 0);
	assert_int_equal(ibv_dealloc_pd(l.pad), 0);
	assert_int_equal(ibv_dealloc_td(l.td), 0);
	assert_int_equal(ibv_dealloc_pd(l.pd), 0);
	assert_int_equal(ibv_close_device(l.ctx), 0);
	free(st);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bypassed_maps),
		cmocka_unit_test(bypassed_cycles),
	};
	const struct CMUnitTest limit[] = {
		cmocka_unit_test(bypassed_limit),
	};

	if (argc > 1 && !strcmp(argv[1], "limit"))
		return cmocka_run_group_tests(limit, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
