// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One rank of a job: T threads, each allocating a thread domain that asks
 * for level 1 (with FALLBACK 1: up to level 3, IBV_TD_INIT_ATTR_MAX_SHARING)
 * on the rank's one context, then moving data over its TD's QP to the QP of
 * its partner thread's TD (threads 2k and 2k+1). With DIR, the rank waits
 * for DIR/go after opening, so that all ranks hold their contexts before
 * any allocates. Prints one line:
 *
 *   granted L1 L2 L3 failed F errno E traffic ok|<what failed>
 *
 *   td_job THREADS FALLBACK [DIR]
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "td_link.h"

#define MAX_THREADS 64

struct rank {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	unsigned int threads;
	bool fallback;
	pthread_barrier_t barrier;
	struct td_link link[MAX_THREADS];
	bool have[MAX_THREADS];
	uint32_t granted[MAX_THREADS];
	int err[MAX_THREADS];
	const char *traffic[MAX_THREADS];
};

struct thread_arg {
	struct rank *r;
	unsigned int i;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	struct rank *r = a->r;
	unsigned int i = a->i, peer = i ^ 1;
	struct ibv_td_init_attr attr = {
		.comp_mask = IBV_TD_INIT_ATTR_SHARING,
		.sharing = IBV_TD_SHARING_NONE,
	};
	struct ibv_td *td;

	if (r->fallback) {
		attr.comp_mask |= IBV_TD_INIT_ATTR_MAX_SHARING;
		attr.max_sharing = IBV_TD_SHARING_REGISTER;
	}
	td = ibv_alloc_td(r->ctx, &attr);
	if (!td) {
		r->err[i] = errno;
	} else {
		r->granted[i] = attr.sharing;
		r->err[i] = td_link_open(&r->link[i], r->pd, td);
		r->have[i] = !r->err[i];
		if (!r->have[i])
			ibv_dealloc_td(td);
	}
	pthread_barrier_wait(&r->barrier);
	/* the even thread of a pair connects both QPs */
	if (!(i & 1) && r->have[i] && r->have[peer])
		td_link_connect(&r->link[i], &r->link[peer]);
	pthread_barrier_wait(&r->barrier);
	if (r->have[i] && r->have[peer])
		r->traffic[i] = td_link_write(&r->link[i], &r->link[peer], i);
	pthread_barrier_wait(&r->barrier);
	if (r->have[i])
		td_link_close(&r->link[i]);
	return NULL;
}

static int wait_go(const char *dir)
{
	char path[4096];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%d.open", dir, (int)getpid());
	f = fopen(path, "w");
	if (!f || fclose(f))
		return -1;
	snprintf(path, sizeof(path), "%s/go", dir);
	for (i = 0; i < 12000; i++) {
		if (!access(path, F_OK))
			return 0;
		usleep(10000);
	}
	return -1;
}

static void report(const struct rank *r)
{
	unsigned int n[4] = {}, failed = 0, i;
	const char *traffic = "ok";
	int err = 0;

	for (i = 0; i < r->threads; i++) {
		if (r->have[i] && r->granted[i] <= 3)
			n[r->granted[i]]++;
		if (!r->have[i]) {
			failed++;
			err = r->err[i];
		}
		if (r->traffic[i])
			traffic = r->traffic[i];
	}
	printf("granted %u %u %u failed %u errno %d traffic %s\n", n[1], n[2],
	       n[3], failed, err, traffic);
}

int main(int argc, char **argv)
{
	struct thread_arg args[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	struct ibv_device **list;
	struct rank *r = calloc(1, sizeof(*r));
	unsigned int i;

	if (argc < 3 || !r || (r->threads = atoi(argv[1])) < 2 ||
	    r->threads > MAX_THREADS || r->threads % 2) {
		fprintf(stderr,
			"usage: td_job THREADS(even, 2..%d) FALLBACK [DIR]\n",
			MAX_THREADS);
		return 2;
	}
	r->fallback = atoi(argv[2]);
	list = ibv_get_device_list(NULL);
	if (!list || !list[0] || !(r->ctx = ibv_open_device(list[0])) ||
	    !(r->pd = ibv_alloc_pd(r->ctx))) {
		fprintf(stderr, "td_job: no device\n");
		return 1;
	}
	if (argc > 3 && wait_go(argv[3])) {
		fprintf(stderr, "td_job: no go\n");
		return 1;
	}
	pthread_barrier_init(&r->barrier, NULL, r->threads);
	for (i = 0; i < r->threads; i++) {
		args[i] = (struct thread_arg){ r, i };
		if (pthread_create(&tid[i], NULL, thread_main, &args[i]))
			return 1;
	}
	for (i = 0; i < r->threads; i++)
		pthread_join(tid[i], NULL);
	report(r);
	pthread_barrier_destroy(&r->barrier);
	ibv_dealloc_pd(r->pd);
	ibv_close_device(r->ctx);
	ibv_free_device_list(list);
	free(r);
	return 0;
}
