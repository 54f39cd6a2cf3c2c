// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The raw mlx5dv post, step by step and whole.
 *
 * A step's cost is how much longer the post takes when it is cut one step
 * later: the post cut after its first n steps is timed with one pair of
 * stamps, n = 0..7, and the rest of it runs untimed after the second stamp.
 * Stamps between the steps of one post (kept for comparison, "inline") get
 * less than the post costs on x86: each stamp's fence lets the WQE's stores
 * reach the cache while the fence's own cost is being paid, so the BlueFlame
 * copy no longer waits for them as it does in the real post (its 16-byte
 * loads cannot be forwarded from the WQE's narrower stores).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure_internal.h"
#include "stats.h"

/* the posts each cycle makes: the 8 cuts, the untimed post, inline stamps */
enum { SLOT_WHOLE = BD_NSTEPS + 1, SLOT_INLINE, NSLOTS };

/* steps [from, to) of the post; constant bounds fold to straight code */
static inline __attribute__((always_inline)) void
raw_steps(struct bd_raw_qp *r, int from, int to, void **wqe, uint64_t value,
	  bool sig)
{
#define RUN(step) (from <= (step) && (step) < to)
	if (RUN(BD_STEP_BUILD))
		*wqe = bd_raw_build(r, value, sig);
	if (RUN(BD_STEP_BARRIER))
		bd_to_device_barrier();
	if (RUN(BD_STEP_DBR))
		bd_raw_dbr(r);
	if (RUN(BD_STEP_WC_START))
		bd_wc_start();
	if (RUN(BD_STEP_BF_COPY))
		bd_raw_bf_copy(r, *wqe);
	if (RUN(BD_STEP_FLUSH))
		bd_flush_writes();
	if (RUN(BD_STEP_BF_TOGGLE))
		bd_raw_bf_toggle(r);
#undef RUN
}

/* ticks of the post's first n steps; the post is complete on return */
static inline __attribute__((always_inline)) uint64_t
raw_post_prefix(struct bd_raw_qp *r, int n, uint64_t value, bool sig)
{
	void *wqe = NULL;
	uint64_t t0, t1;

	t0 = bd_stamp();
	raw_steps(r, 0, n, &wqe, value, sig);
	t1 = bd_stamp();
	raw_steps(r, n, BD_NSTEPS, &wqe, value, sig);
	return t1 - t0;
}

/* one case per cut, each with its own straight-line code */
static uint64_t raw_post_cut(struct bd_raw_qp *r, int n, uint64_t value,
			     bool sig)
{
#define CUT(k)                                                                 \
	case k:                                                                \
		return raw_post_prefix(r, k, value, sig)
	switch (n) {
		CUT(0);
		CUT(1);
		CUT(2);
		CUT(3);
		CUT(4);
		CUT(5);
		CUT(6);
	default:
		return raw_post_prefix(r, BD_NSTEPS, value, sig);
	}
#undef CUT
}

/* one post with a stamp between every two steps, in ticks */
static void raw_post_inline(struct bd_raw_qp *r, struct samples *s, int j,
			    bool sig)
{
	uint64_t ts[BD_NSTEPS + 2];
	void *wqe;
	int k;

	ts[0] = bd_stamp();
	wqe = bd_raw_build(r, (uint64_t)j, sig);
	ts[1] = bd_stamp();
	bd_to_device_barrier();
	ts[2] = bd_stamp();
	bd_raw_dbr(r);
	ts[3] = bd_stamp();
	bd_wc_start();
	ts[4] = bd_stamp();
	bd_raw_bf_copy(r, wqe);
	ts[5] = bd_stamp();
	bd_flush_writes();
	ts[6] = bd_stamp();
	bd_raw_bf_toggle(r);
	ts[7] = bd_stamp();
	/* an interval around nothing, in the same chain: the stamps' cost */
	ts[8] = bd_stamp();
	if (j < 0)
		return;
	for (k = 0; k < BD_NSTEPS; k++)
		s->inline_step[k][j] = (double)(ts[k + 1] - ts[k]);
	s->empty_chain[j] = (double)(ts[8] - ts[7]);
}

/* the untimed post, after a pair of stamps around nothing */
static void raw_post_whole(struct bd_raw_qp *r, struct samples *s, int j,
			   bool sig)
{
	uint64_t t0 = bd_stamp(), t1 = bd_stamp(), t2;

	bd_raw_post(r, (uint64_t)j, sig);
	t2 = bd_stamp();
	if (j < 0)
		return;
	s->empty_pair[j] = (double)(t1 - t0);
	s->path[BD_PATH_RAW_POST][j] = (double)(t2 - t1);
}

/* mean ticks of the kept 99% of v (sorts a copy) */
static double overhead_of(const double *v, unsigned int n)
{
	double *copy = malloc(n * sizeof(*v)), o;
	struct bd_stats st;

	if (!copy)
		return 0;
	memcpy(copy, v, n * sizeof(*v));
	bd_stats_compute_kept(copy, n, &st);
	o = st.mean;
	free(copy);
	return o;
}

/*
 * Ticks to ns. A step is the difference of two cuts of the same cycle, so
 * the stamps' cost cancels; the first cut (around nothing) is that cost.
 * The untimed post loses the pair timed just before it, the inline steps
 * the chain's own interval around nothing (both means, measured in the same
 * loop, so under the same load and clock as the samples).
 */
static void raw_to_ns(struct samples *s, struct bd_timer *t)
{
	double chain = overhead_of(s->empty_chain, s->n),
	       pair = overhead_of(s->empty_pair, s->n), ns = t->ns_per_tick;
	unsigned int j;
	int k, from;

	t->overhead_ticks = pair;
	t->overhead_ns = pair * ns;
	for (j = 0; j < s->n; j++) {
		double sum = 0;

		for (k = 0; k < BD_NCATS; k++)
			s->cat[k][j] = 0;
		/* unclamped: below the timer's step only the mean tells */
		for (k = 0, from = 0; k < BD_NSTEPS; k++) {
			double v;

			/* a step without code: two cuts of the same code,
			 * whose difference is noise; the next step's base
			 * stays the cut before it */
			if (bd_step_info[k].no_code) {
				s->step[k][j] = 0;
				continue;
			}
			v = (s->prefix[k + 1][j] - s->prefix[from][j]) * ns;
			from = k + 1;

			s->step[k][j] = v;
			s->cat[bd_step_info[k].cat][j] += v;
			sum += v;
		}
		s->path[BD_PATH_RAW_STEPS][j] = sum;
		sum = 0;
		for (k = 0; k < BD_NSTEPS; k++) {
			s->inline_step[k][j] =
				(s->inline_step[k][j] - chain) * ns;
			sum += s->inline_step[k][j];
		}
		s->path[BD_PATH_RAW_INLINE][j] = sum;
		s->path[BD_PATH_RAW_POST][j] =
			(s->path[BD_PATH_RAW_POST][j] - pair) * ns;
	}
}

/*
 * Posts come in bursts, each after a pause that leaves the device idle. An
 * emulated NIC is a thread that reads the SQ and doorbell record and zeroes
 * the BlueFlame register through the CPU caches: while it runs it pulls
 * those lines away mid-post, which no real NIC does to WC memory. Between
 * bursts we wait for completions (untimed), never inside one.
 */

/*
 * The pause spins: a sleep would hand the core (and its caches) to other
 * processes and wake up cold.
 */
void bd_pause_spinning(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000 +
		       (t.tv_nsec - t0.tv_nsec) / 1000 <
	       PAUSE_US);
}

/* the pause, then one untimed post to bring the lines back in */
static int burst_start(struct bd_raw_qp *r, unsigned int sig_every)
{
	int ret = bd_raw_make_room(r, BURST + 1);

	if (ret)
		return ret;
	bd_pause_spinning();
	bd_raw_post(r, 0, (uint16_t)(r->pi + 1) % sig_every == 0);
	return 0;
}

/*
 * Cycles of NSLOTS posts: the 8 cuts, the untimed post and the inline
 * stamps, in an order that rotates by one every cycle, so that drift, load
 * and the place in a burst hit them all alike.
 */
int bd_measure_raw_post(struct bd_endpoints *e, struct bd_timer *t,
			struct samples *s, unsigned int sig_every)
{
	struct bd_raw_qp *r = &e->raw;
	int warm = WARMUP / NSLOTS, i, n = (warm + (int)s->n) * NSLOTS, ret;

	for (i = 0; i < n; i++) {
		int cycle = i / NSLOTS, j = cycle - warm;
		int slot = (i + cycle) % NSLOTS;
		uint64_t ticks;
		bool sig;

		if (j >= 0 && (i - warm * NSLOTS) % BURST == 0)
			ret = burst_start(r, sig_every);
		else if (j < 0)
			ret = bd_raw_make_room(r, 1);
		else
			ret = 0;
		if (ret)
			return ret;
		sig = (uint16_t)(r->pi + 1) % sig_every == 0;
		bd_raw_warm(r);
		if (slot == SLOT_WHOLE) {
			raw_post_whole(r, s, j, sig);
		} else if (slot == SLOT_INLINE) {
			raw_post_inline(r, s, j, sig);
		} else {
			ticks = raw_post_cut(r, slot, (uint64_t)j, sig);
			if (j >= 0)
				s->prefix[slot][j] = (double)ticks;
		}
	}
	raw_to_ns(s, t);
	/* one signaled post more, then nothing is outstanding */
	bd_raw_post(r, 0, true);
	while (r->acked != r->pi) {
		ret = bd_raw_reap(r);
		if (ret < 0)
			return -EIO;
		if (!ret)
			sched_yield();
	}
	return 0;
}
