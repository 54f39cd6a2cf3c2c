// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The breakdown on the emulated device: every component is there and none
 * is negative, and the post timed step by step adds up to the same post
 * timed without stamps inside, within 10%, of the medians or of the means:
 * the timer counts in ~10 ns steps here, which can move a median by a step,
 * and the stamps hide part of the post's memory stalls, which stretches the
 * untimed post's mean. That checks the accounting, not the speed: on a
 * loaded machine a run may be disturbed, so the agreement gets a few tries.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "measure.h"

#define TRIES 12
/* the chain's empty interval estimates the stamps' cost: a step that costs
 * nothing (x86's compiler barrier) comes out a fraction of a ns either side
 * of zero; a stamp counted twice would be ~25 ns off */
#define STAMP_JITTER_NS 1.0

static const struct bd_measure_opts opts = { .iters = 8000,
					     .signal_every = 16 };

static void assert_stats_sane(const char *what, const struct bd_stats *s)
{
	if (!s->n || !isfinite(s->mean) || s->mean < -STAMP_JITTER_NS ||
	    s->p95 < s->p5 || s->max < s->min)
		fail_msg("%s: n %zu mean %f median %f p5 %f p95 %f", what, s->n,
			 s->mean, s->median, s->p5, s->p95);
}

static void breakdown(void **state)
{
	struct bd_result r;
	struct bd_model m;
	int k, try;

	(void)state;
	for (try = 0; try < TRIES; try++) {
		assert_int_equal(bd_measure(&opts, &r), 0);
		assert_true(r.emulated);
		assert_true(r.timer.ns_per_tick > 0);
		assert_true(r.timer.overhead_ns >= 0);
		for (k = 0; k < BD_NSTEPS; k++)
			assert_stats_sane(bd_step_info[k].key, &r.step[k]);
		for (k = 0; k < BD_NCATS; k++)
			assert_stats_sane(bd_cat_label[k], &r.cat[k]);
		for (k = 0; k < BD_NPATHS; k++) {
			assert_stats_sane(bd_path_key[k], &r.path[k]);
			/* whole operations cost something */
			assert_true(r.path[k].mean > 0);
		}
		/* the measured model: no negative component, misc included */
		bd_model_defaults(&m);
		bd_result_to_model(&r, &m);
		for (k = 0; k < BD_NCOMP; k++)
			assert_true(m.ns[k] >= 0);
		assert_int_equal(m.src[BD_POST_MISC], BD_SRC_MEASURED);
		assert_int_equal(m.src[BD_LLP_PROG], BD_SRC_MEASURED);
		printf("try %d: steps %.2f ns, untimed %.2f ns (medians), %+.1f%% (medians) %+.1f%% (means), misc rest %.2f ns\n",
		       try, r.path[BD_PATH_RAW_STEPS].median,
		       r.path[BD_PATH_RAW_POST].median,
		       100 * r.agreement_median, 100 * r.agreement,
		       r.misc_rest);
		/* the timer's coarse steps can move a median by a step, and
		 * memory stalls a mean: one of the two must agree */
		if ((fabs(r.agreement_median) <= 0.10 ||
		     fabs(r.agreement) <= 0.10) &&
		    r.misc_rest >= 0)
			return;
	}
	fail_msg(
		"the timed steps never agreed with the untimed post within 10%% with misc >= 0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(breakdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
