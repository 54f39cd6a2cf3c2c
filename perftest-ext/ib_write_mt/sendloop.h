/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The threads and their send loops (paper Section IV): each thread posts
 * lists of p RDMA writes on its QP, signals one WQE in q, keeps at most d
 * WQEs outstanding and polls every completion available each round.
 */
#ifndef WMT_SENDLOOP_H
#define WMT_SENDLOOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoints.h"

struct wmt_run_result {
	double seconds; /* first start to last end of the timed phase */
	uint64_t msgs; /* messages of the timed phase, all threads */
	uint64_t *iters; /* per thread, warm-up included: for verification */
	unsigned int pinned; /* threads pinned to a core of their own */
	bool yield; /* threads yield the core while they wait */
	char err[256];
};

/*
 * Runs every thread of e against the target regions at raddr[t] (rkey).
 * tick(arg) is called by the calling thread about every 100 ms while the
 * threads run (a nonzero return stops them and is returned). Returns 0,
 * PERFTEST_EXIT_DEVICE or tick's code.
 */
int wmt_run(struct wmt_endpoints *e, const struct wmt_options *o,
	    const uint64_t *raddr, uint32_t rkey, struct wmt_run_result *res,
	    int (*tick)(void *arg), void *arg);

void wmt_run_result_free(struct wmt_run_result *res);

/*
 * Set by a signal handler (Ctrl-C): a running wmt_run stops its threads
 * as -D's end does, and its figures stand for the time it ran.
 */
extern volatile sig_atomic_t wmt_interrupted;

#endif
