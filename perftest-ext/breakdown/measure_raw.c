// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The raw mlx5dv post, step by step and whole: stamps between mlx5's steps
 * on one post, around the whole post on the next, and around nothing in
 * both, so that the stamps' own cost is known where it is paid.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure_internal.h"
#include "stats.h"

/* one post with a stamp between every two steps, in ticks */
static void raw_post_steps(struct bd_raw_qp *r, struct samples *s, int j,
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
		s->step[k][j] = (double)(ts[k + 1] - ts[k]);
	s->empty_chain[j] = (double)(ts[8] - ts[7]);
}

static void raw_post_whole(struct bd_raw_qp *r, struct samples *s, int j,
			   bool sig)
{
	uint64_t t0 = bd_stamp(), t1;

	bd_raw_post(r, (uint64_t)j, sig);
	t1 = bd_stamp();
	if (j >= 0)
		s->path[BD_PATH_RAW_POST][j] = (double)(t1 - t0);
}

static void empty_whole(struct samples *s, int j)
{
	uint64_t t0 = bd_stamp(), t1 = bd_stamp();

	if (j >= 0)
		s->empty_pair[j] = (double)(t1 - t0);
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
 * Ticks to ns, less the stamps' cost measured in the same loop (so under the
 * same load and clock as the samples): the chain's empty interval for each
 * step, the empty pair for the untimed post.
 */
static void raw_to_ns(struct samples *s, struct bd_timer *t)
{
	double chain = overhead_of(s->empty_chain, s->n),
	       pair = overhead_of(s->empty_pair, s->n);
	unsigned int j;
	int k;

	t->overhead_ticks = pair;
	t->overhead_ns = pair * t->ns_per_tick;
	for (j = 0; j < s->n; j++) {
		double sum = 0;

		for (k = 0; k < BD_NCATS; k++)
			s->cat[k][j] = 0;
		/* unclamped: below the timer's step only the mean tells */
		for (k = 0; k < BD_NSTEPS; k++) {
			double v = (s->step[k][j] - chain) * t->ns_per_tick;

			s->step[k][j] = v;
			s->cat[bd_step_info[k].cat][j] += v;
			sum += v;
		}
		s->path[BD_PATH_RAW_STEPS][j] = sum;
		s->path[BD_PATH_RAW_POST][j] =
			(s->path[BD_PATH_RAW_POST][j] - pair) * t->ns_per_tick;
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

/* timed steps, untimed post and the stamps alone take turns, so that drift
 * and load hit them all alike */
int bd_measure_raw_post(struct bd_endpoints *e, struct bd_timer *t,
			struct samples *s, unsigned int sig_every)
{
	struct bd_raw_qp *r = &e->raw;
	int i, n = WARMUP + (int)s->n, ret;

	for (i = 0; i < 2 * n; i++) {
		int j = i / 2 - WARMUP;
		bool sig;

		if (j >= 0 && (i - 2 * WARMUP) % BURST == 0) {
			ret = burst_start(r, sig_every);
			if (ret)
				return ret;
		} else if (j < 0) {
			ret = bd_raw_make_room(r, 1);
			if (ret)
				return ret;
		}
		sig = (uint16_t)(r->pi + 1) % sig_every == 0;
		bd_raw_warm(r);
		/* which goes first swaps every burst: each then rings both
		 * BlueFlame halves and uses odd and even WQE slots alike */
		if ((i ^ (i / BURST)) & 1) {
			empty_whole(s, j);
			raw_post_whole(r, s, j, sig);
		} else {
			raw_post_steps(r, s, j, sig);
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
