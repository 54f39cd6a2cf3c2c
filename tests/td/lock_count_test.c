// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * How many spinlocks libmlx5 takes on the data path. pthread_spin_lock is
 * interposed here (the program exports it), and a call counts when it comes
 * from inside libmlx5. Real completions are posted and polled, with plain
 * ibv_poll_cq and with extended polling.
 *
 *   lock_count_test level1|level2|level3|none
 *
 * levelN is enum ibv_td_sharing N: IBV_TD_SHARING_NONE, _PAGE, _REGISTER.
 *
 * Expected: nothing for QPs and CQs bound to a level-1 or level-2 TD; at
 * level 3 exactly one lock per doorbell (the shared BlueFlame register's);
 * QP and CQ locks for objects without a TD.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu_test.h"
#include "td_ep.h"

#define BATCH 32

static atomic_uint mlx5_locks;
static uint32_t level;

int pthread_spin_lock(pthread_spinlock_t *lock)
{
	static int (*real)(pthread_spinlock_t *);
	Dl_info info;

	if (!real)
		real = (int (*)(pthread_spinlock_t *))dlsym(RTLD_NEXT,
							   "pthread_spin_lock");
	if (dladdr(__builtin_return_address(0), &info) && info.dli_fname &&
	    strstr(info.dli_fname, "libmlx5"))
		atomic_fetch_add(&mlx5_locks, 1);
	return real(lock);
}

static void post_batch(struct td_ep *ep)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)ep->src,
		.length = 8,
		.lkey = ep->src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.wr.rdma = { .remote_addr = (uintptr_t)ep->dst,
			     .rkey = ep->dst_mr->rkey },
	};
	struct ibv_send_wr *bad;
	unsigned int i;

	for (i = 0; i < BATCH; i++) {
		wr.wr_id = i;
		assert_int_equal(ibv_post_send(ep->qp, &wr, &bad), 0);
	}
}

static void poll_batch(struct td_ep *ep)
{
	struct ibv_wc wc;
	unsigned int got = 0;
	int n;

	while (got < BATCH) {
		n = ibv_poll_cq(ep->cq, 1, &wc);
		assert_true(n >= 0);
		if (n) {
			assert_int_equal(wc.status, IBV_WC_SUCCESS);
			got++;
		}
	}
}

static void poll_batch_ex(struct td_ep *ep)
{
	struct ibv_cq_ex *cq = (struct ibv_cq_ex *)ep->cq;
	struct ibv_poll_cq_attr attr = {};
	unsigned int got = 0;
	int ret;

	while (got < BATCH) {
		ret = ibv_start_poll(cq, &attr);
		if (ret == ENOENT)
			continue;
		assert_int_equal(ret, 0);
		do {
			assert_int_equal(cq->status, IBV_WC_SUCCESS);
			got++;
		} while (got < BATCH && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
}

static void lock_count(void **state)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct td_ep *ep = calloc(1, sizeof(*ep));
	unsigned int post, poll, poll_ex;

	(void)state;
	/* the global switch would hide what the TD does */
	assert_null(getenv("MLX5_SINGLE_THREADED"));
	ctx = emu_test_open();
	pd = ibv_alloc_pd(ctx);
	assert_non_null(pd);
	assert_non_null(ep);
	assert_int_equal(td_ep_open(ep, pd, level), 0);

	mlx5_locks = 0;
	post_batch(ep);
	post = mlx5_locks;
	mlx5_locks = 0;
	poll_batch(ep);
	poll = mlx5_locks;
	post_batch(ep);
	mlx5_locks = 0;
	poll_batch_ex(ep);
	poll_ex = mlx5_locks;
	print_message("%s: %u locks for %u posts, %u for ibv_poll_cq, %u for extended polling\n",
		      level == TD_EP_NO_TD ? "no TD" : "TD", post, BATCH, poll,
		      poll_ex);

	switch (level) {
	case IBV_TD_SHARING_NONE:
	case IBV_TD_SHARING_PAGE:
		assert_int_equal(post, 0);
		assert_int_equal(poll, 0);
		assert_int_equal(poll_ex, 0);
		break;
	case IBV_TD_SHARING_REGISTER:
		/* the shared BlueFlame register's lock, once per doorbell */
		assert_int_equal(post, BATCH);
		assert_int_equal(poll, 0);
		assert_int_equal(poll_ex, 0);
		break;
	default:
		assert_true(post >= BATCH);
		assert_true(poll > 0);
		assert_true(poll_ex > 0);
	}

	td_ep_close(ep);
	free(ep);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lock_count),
	};

	if (argc > 1 && !strcmp(argv[1], "none"))
		level = TD_EP_NO_TD;
	else if (argc < 2 || sscanf(argv[1], "level%u", &level) != 1 ||
		 !level || level > IBV_TD_SHARING_REGISTER) {
		fprintf(stderr, "usage: %s level1|level2|level3|none\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
