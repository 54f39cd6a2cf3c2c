// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The threads and their send loops (paper Section IV). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mono_clock.h"
#include "sendloop.h"
#include "verify.h"

/* completions credited to a thread, possibly by another thread's poll */
struct done_counter {
	uint64_t v;
} __attribute__((aligned(WMT_CACHE_LINE)));

struct run;

struct worker {
	/* read by the send loop */
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct done_counter *done; /* all threads' counters */
	struct ibv_send_wr *wr;
	struct ibv_sge *sge;
	struct ibv_wc *wc; /* as many as the CQ holds */
	uint8_t *src;
	uint64_t raddr;
	unsigned int size, shift, post_list, cq_mod, depth, thread;
	unsigned int send_flags;
	int private_cq; /* only this thread polls the CQ: no atomics */
	int yield; /* give the core away on an empty poll */
	struct run *run;
	/* written by the send loop */
	uint64_t posted;
	unsigned int since_signal;
	double start, end;
	uint64_t timed;
	int cpu;
	char err[160];
	pthread_t tid;
} __attribute__((aligned(WMT_CACHE_LINE)));

struct run {
	struct worker *w;
	struct done_counter *done;
	unsigned int threads;
	uint64_t warm, iters; /* iters 0: until stopped */
	pthread_barrier_t ready, go;
	int stop, abort, finished;
};

static uint64_t done_of(struct worker *w)
{
	return __atomic_load_n(&w->done[w->thread].v, __ATOMIC_RELAXED);
}

static int fail(struct worker *w, const char *fmt, const char *what)
{
	snprintf(w->err, sizeof(w->err), fmt, w->thread, what);
	__atomic_store_n(&w->run->abort, 1, __ATOMIC_RELAXED);
	return -1;
}

/* credit n completions to the threads that posted them */
static int credit(struct worker *w, const struct ibv_wc *wc, int n)
{
	int k;

	for (k = 0; k < n; k++) {
		struct done_counter *c = &w->done[(uint32_t)wc[k].wr_id];

		if (wc[k].status != IBV_WC_SUCCESS)
			return fail(w, "thread %u: completion error: %s",
				    ibv_wc_status_str(wc[k].status));
		if (w->private_cq)
			c->v += wc[k].wr_id >> 32;
		else
			__atomic_fetch_add(&c->v, wc[k].wr_id >> 32,
					   __ATOMIC_RELAXED);
	}
	return 0;
}

/*
 * Polls every completion there is, and again until completions have made
 * room for n more WRs. A poll asks for as many as the CQ holds, so one
 * poll per post list reaps all; the polls after it are the loop a waiting
 * thread spins in.
 */
static int poll_for_room(struct worker *w, unsigned int n)
{
	int got;

	for (;;) {
		got = ibv_poll_cq(w->cq, w->cq->cqe, w->wc);
		if (got > 0 && credit(w, w->wc, got))
			return -1;
		if (got < 0)
			return fail(w, "thread %u: ibv_poll_cq failed%s", "");
		if (got == w->cq->cqe)
			continue; /* it was full: there may be more */
		if (w->posted - done_of(w) + n <= w->depth)
			return 0;
		if (got)
			continue;
		if (__atomic_load_n(&w->run->abort, __ATOMIC_RELAXED))
			return -1;
		if (w->yield)
			sched_yield(); /* the NIC (or another thread) needs it */
	}
}

/*
 * The payloads of iterations i..i+n-1, all in one lap of the ring. With
 * the WRs prebuilt per slot, this loop is the whole per-message cost the
 * benchmark adds to the library's; the paper's 2-byte write gets its own.
 */
static void put_payloads(const struct worker *w, uint64_t i, unsigned int n)
{
	const unsigned int size = w->size;
	uint8_t *dst = w->src + (i & ((1ull << w->shift) - 1)) * size;
	uint8_t *end = dst + (uint64_t)n * size;
	uint8_t b = wmt_payload_first(w->thread, i, w->shift);
	const uint8_t step = wmt_payload_step(i, w->shift);

	if (size == 2) {
#pragma GCC unroll 4
		for (; dst < end; dst += 2, b += WMT_PAYLOAD_SLOT_STEP) {
			dst[0] = b;
			dst[1] = b + step;
		}
		return;
	}
	for (; dst < end; dst += size, b += WMT_PAYLOAD_SLOT_STEP)
		wmt_payload_fill(dst, size, b, step);
}

/* the WR's completion will stand for `count` messages */
static void signal_wr(const struct worker *w, struct ibv_send_wr *wr,
		      unsigned int count)
{
	wr->send_flags = w->send_flags | IBV_SEND_SIGNALED;
	wr->wr_id = (uint64_t)count << 32 | w->thread;
}

/*
 * n writes of iterations posted.., the last signaled if it ends the phase.
 * The WRs are a ring, one per slot, linked in a circle: the list is cut
 * after its last WR for the post and closed again after.
 */
static int post_list(struct worker *w, unsigned int n, uint64_t end)
{
	const uint64_t mask = (1ull << w->shift) - 1, i = w->posted;
	const unsigned int first_signal = w->cq_mod - w->since_signal - 1;
	struct ibv_send_wr *wr = w->wr, *bad;
	struct ibv_send_wr *last = &wr[(i + n - 1) & mask], *next = last->next;
	unsigned int j, m, tail = (w->since_signal + n) % w->cq_mod;
	int ret;

	for (j = 0; j < n; j += m) {
		uint64_t room = mask + 1 - ((i + j) & mask);

		m = n - j < room ? n - j : room;
		put_payloads(w, i + j, m);
	}
	for (j = first_signal; j < n; j += w->cq_mod)
		signal_wr(w, &wr[(i + j) & mask], w->cq_mod);
	if (i + n == end && tail) {
		signal_wr(w, last, tail);
		tail = 0;
	}
	last->next = NULL;
	ret = ibv_post_send(w->qp, &wr[i & mask], &bad);
	last->next = next;
	/* a lap later these WRs go out again, unsignaled */
	for (j = first_signal; j < n; j += w->cq_mod)
		wr[(i + j) & mask].send_flags = w->send_flags;
	last->send_flags = w->send_flags;
	if (ret)
		return fail(w, "thread %u: ibv_post_send: %s", strerror(ret));
	w->since_signal = tail;
	w->posted += n;
	return 0;
}

static int stopping(struct worker *w)
{
	return __atomic_load_n(&w->run->stop, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&w->run->abort, __ATOMIC_RELAXED);
}

/* post until end (or the stop), then wait for every completion */
static int run_phase(struct worker *w, uint64_t end)
{
	while (w->posted < end && !stopping(w)) {
		uint64_t left = end - w->posted;
		unsigned int n = left < w->post_list ? left : w->post_list;

		if (poll_for_room(w, n) || post_list(w, n, end))
			return -1;
	}
	/* stopped in the middle: one more, signaled, covers the rest */
	if (w->since_signal && !w->run->abort &&
	    (poll_for_room(w, 1) || post_list(w, 1, w->posted + 1)))
		return -1;
	return poll_for_room(w, w->depth);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;
	uint64_t first;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_barrier_wait(&r->ready);
	if (r->warm)
		run_phase(w, r->warm);
	pthread_barrier_wait(&r->go);
	first = w->posted;
	w->start = mono_now();
	if (!r->abort)
		run_phase(w, r->iters ? r->warm + r->iters : UINT64_MAX);
	w->end = mono_now();
	w->timed = w->posted - first;
	__atomic_fetch_add(&r->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static unsigned int log2u(unsigned int v)
{
	unsigned int s = 0;

	while ((1u << s) < v)
		s++;
	return s;
}

/* the cores threads may run on, one each, when there are enough */
static unsigned int assign_cpus(struct run *r, const struct wmt_options *o)
{
	cpu_set_t set;
	unsigned int t, cpu = 0;

	for (t = 0; t < r->threads; t++)
		r->w[t].cpu = -1;
	if (!o->pin || sched_getaffinity(0, sizeof(set), &set) ||
	    (unsigned int)CPU_COUNT(&set) < r->threads)
		return 0;
	for (t = 0; t < r->threads; t++) {
		while (!CPU_ISSET(cpu, &set))
			cpu++;
		r->w[t].cpu = cpu++;
	}
	return r->threads;
}

static int setup_worker(struct run *r, struct wmt_endpoints *e,
			const struct wmt_options *o, unsigned int t,
			const uint64_t *raddr, uint32_t rkey)
{
	struct worker *w = &r->w[t];
	unsigned int j, slots;

	w->run = r;
	w->thread = t;
	w->qp = e->qp[e->th[t].qp].qp;
	w->cq = e->cq[e->th[t].cq];
	w->private_cq = e->l.vdeg[RES_CQ] == 1;
	w->done = r->done;
	w->src = e->th[t].src;
	w->raddr = raddr[t];
	w->size = o->size;
	w->shift = log2u(e->slots);
	w->post_list = o->post_list;
	w->cq_mod = o->cq_mod;
	w->depth = o->tx_depth;
	w->send_flags = o->size <= o->inline_size ? IBV_SEND_INLINE : 0;
	slots = 1u << w->shift;
	w->wr = calloc(slots, sizeof(*w->wr));
	w->sge = calloc(slots, sizeof(*w->sge));
	w->wc = calloc(w->cq->cqe, sizeof(*w->wc));
	if (!w->wr || !w->sge || !w->wc)
		return -1;
	/* one WR per slot of the ring: only the payload and flags change */
	for (j = 0; j < slots; j++) {
		w->sge[j].addr = (uintptr_t)(w->src + (uint64_t)j * o->size);
		w->sge[j].length = o->size;
		w->sge[j].lkey = e->th[t].lkey;
		w->wr[j].sg_list = &w->sge[j];
		w->wr[j].num_sge = 1;
		w->wr[j].opcode = IBV_WR_RDMA_WRITE;
		w->wr[j].send_flags = w->send_flags;
		w->wr[j].wr.rdma.remote_addr = w->raddr + (uint64_t)j * o->size;
		w->wr[j].wr.rdma.rkey = rkey;
		w->wr[j].next = &w->wr[(j + 1) & (slots - 1)];
	}
	return 0;
}

static void free_run(struct run *r)
{
	unsigned int t;

	for (t = 0; r->w && t < r->threads; t++) {
		free(r->w[t].wr);
		free(r->w[t].sge);
		free(r->w[t].wc);
	}
	free(r->w);
	free(r->done);
}

volatile sig_atomic_t wmt_interrupted;

static int supervise(struct run *r, const struct wmt_options *o,
		     int (*tick)(void *arg), void *arg)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	double start, last_tick;

	/* the duration counts from the end of the warm-up */
	pthread_barrier_wait(&r->go);
	start = last_tick = mono_now();

	while (__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE) <
	       (int)r->threads) {
		double t;

		nanosleep(&ts, NULL);
		t = mono_now();
		if ((o->duration && t - start >= o->duration) ||
		    wmt_interrupted)
			__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
		if (tick && t - last_tick >= 0.1) {
			last_tick = t;
			int code = tick(arg);

			if (code) {
				__atomic_store_n(&r->abort, 1,
						 __ATOMIC_RELAXED);
				return code;
			}
		}
	}
	return 0;
}

int wmt_run(struct wmt_endpoints *e, const struct wmt_options *o,
	    const uint64_t *raddr, uint32_t rkey, struct wmt_run_result *res,
	    int (*tick)(void *arg), void *arg)
{
	struct run r = { .threads = e->l.threads };
	unsigned int t, started = 0;
	double first = 0, last = 0;
	int ret = 0, ticked;

	memset(res, 0, sizeof(*res));
	r.w = aligned_alloc(WMT_CACHE_LINE, sizeof(*r.w) * r.threads);
	r.done = aligned_alloc(WMT_CACHE_LINE, sizeof(*r.done) * r.threads);
	res->iters = calloc(r.threads, sizeof(*res->iters));
	if (!r.w || !r.done || !res->iters) {
		snprintf(res->err, sizeof(res->err), "out of memory");
		free_run(&r);
		return PERFTEST_EXIT_DEVICE;
	}
	memset(r.w, 0, sizeof(*r.w) * r.threads);
	memset(r.done, 0, sizeof(*r.done) * r.threads);
	r.warm = o->warm_up ? 2ull * o->tx_depth : 0;
	r.iters = o->duration ? 0 : o->iters;
	for (t = 0; t < r.threads; t++)
		if (setup_worker(&r, e, o, t, raddr, rkey)) {
			snprintf(res->err, sizeof(res->err), "out of memory");
			free_run(&r);
			return PERFTEST_EXIT_DEVICE;
		}
	res->pinned = assign_cpus(&r, o);
	res->yield = o->poll == POLL_YIELD ||
		     (o->poll == POLL_AUTO &&
		      (res->pinned < r.threads || getenv("MLX5EMU_UAR")));
	for (t = 0; t < r.threads; t++)
		r.w[t].yield = res->yield;
	pthread_barrier_init(&r.ready, NULL, r.threads);
	pthread_barrier_init(&r.go, NULL, r.threads + 1); /* and us */
	for (t = 0; t < r.threads; t++) {
		if (pthread_create(&r.w[t].tid, NULL, worker_main, &r.w[t]))
			break;
		started++;
	}
	if (started < r.threads) {
		/* the started threads would wait at the first barrier forever */
		fprintf(stderr,
			"ib_write_mt: pthread_create failed for thread %u\n",
			started);
		exit(PERFTEST_EXIT_DEVICE);
	}
	ticked = supervise(&r, o, tick, arg);
	for (t = 0; t < started; t++)
		pthread_join(r.w[t].tid, NULL);
	pthread_barrier_destroy(&r.ready);
	pthread_barrier_destroy(&r.go);
	for (t = 0; t < r.threads; t++) {
		struct worker *w = &r.w[t];

		res->iters[t] = w->posted;
		res->msgs += w->timed;
		if (!t || w->start < first)
			first = w->start;
		if (w->end > last)
			last = w->end;
		if (w->err[0] && !res->err[0]) {
			snprintf(res->err, sizeof(res->err), "%s", w->err);
			ret = PERFTEST_EXIT_DEVICE;
		}
	}
	if (ticked) {
		snprintf(
			res->err, sizeof(res->err),
			"the run was stopped: the connection to the peer failed");
		ret = ticked;
	}
	res->seconds = last - first;
	free_run(&r);
	return ret;
}

void wmt_run_result_free(struct wmt_run_result *res)
{
	free(res->iters);
	res->iters = NULL;
}
