// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_alloc_td / ibv_dealloc_td from many threads at once, at mixed levels,
 * against a context that runs out of UARs on the way: every call either
 * succeeds or fails with ENOMEM, and when all threads are done every UAR
 * the TDs took is free again (a fresh round of level-1 TDs gets as many as
 * the first one did).
 *
 *   concurrency_test [threads] [calls per thread]
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu_test.h"
#include "td_ep.h"

#define HELD 8

static unsigned int nthreads = 16, calls = 2000;
static struct ibv_context *ctx;

struct worker {
	pthread_t thread;
	unsigned int seed;
	unsigned int allocated, enomem;
	const char *error;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ibv_td *held[HELD] = {};
	unsigned int i, k;

	for (i = 0; i < calls && !w->error; i++) {
		k = rand_r(&w->seed) % HELD;
		if (held[k]) {
			if (ibv_dealloc_td(held[k]))
				w->error = "ibv_dealloc_td failed";
			held[k] = NULL;
			continue;
		}
		held[k] = td_alloc(ctx, IBV_TD_SHARING_NONE + rand_r(&w->seed) % 3);
		if (held[k])
			w->allocated++;
		else if (errno == ENOMEM)
			w->enomem++;
		else
			w->error = strerror(errno);
	}
	for (k = 0; k < HELD; k++)
		if (held[k] && ibv_dealloc_td(held[k]))
			w->error = "ibv_dealloc_td failed";
	return NULL;
}

/* level-1 TDs until the UARs run out; all freed again */
static unsigned int level1_capacity(void)
{
	struct ibv_td *tds[1024];
	unsigned int i, n = 0;

	while (n < 1024 && (tds[n] = td_alloc(ctx, IBV_TD_SHARING_NONE)))
		n++;
	assert_int_equal(errno, ENOMEM);
	for (i = 0; i < n; i++)
		assert_int_equal(ibv_dealloc_td(tds[i]), 0);
	return n;
}

static void concurrent_alloc_dealloc(void **state)
{
	struct worker *w = calloc(nthreads, sizeof(*w));
	unsigned int i, before, allocated = 0, enomem = 0;

	(void)state;
	assert_non_null(w);
	ctx = emu_test_open();
	before = level1_capacity();
	for (i = 0; i < nthreads; i++) {
		w[i].seed = 1000 + i;
		assert_int_equal(pthread_create(&w[i].thread, NULL, work, &w[i]), 0);
	}
	for (i = 0; i < nthreads; i++) {
		assert_int_equal(pthread_join(w[i].thread, NULL), 0);
		if (w[i].error)
			fail_msg("thread %u: %s", i, w[i].error);
		allocated += w[i].allocated;
		enomem += w[i].enomem;
	}
	assert_int_equal(level1_capacity(), before);
	print_message("%u threads: %u TDs allocated, %u ENOMEM; %u level-1 TDs fit before and after\n",
		      nthreads, allocated, enomem, before);
	assert_int_equal(ibv_close_device(ctx), 0);
	free(w);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_alloc_dealloc),
	};

	if (argc > 1)
		nthreads = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		calls = strtoul(argv[2], NULL, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
