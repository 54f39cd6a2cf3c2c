// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The breakdown on the emulated device: every component is there and none
 * is negative, misc (the rest of the untimed post) included, and the sum of
 * the steps agrees with the same post timed whole, without stamps inside,
 * within 10% of the means. A loaded machine may disturb a run, so a run
 * gets a few tries to hold both.
 */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "measure.h"

#define TRIES 6
/* a step that costs next to nothing comes out a fraction of a ns either
 * side of zero, a few tenths more on a loaded machine; a stamp counted
 * twice would be ~35 ns off */
#define STAMP_JITTER_NS 3.0
/* the sum of the steps against the untimed post */
#define AGREEMENT 0.10

static const struct bd_measure_opts opts = { .iters = 20000,
					     .signal_every = 16 };

static void assert_stats_sane(const char *what, const struct bd_stats *s)
{
	if (!s->n || !isfinite(s->mean) || s->mean < -STAMP_JITTER_NS ||
	    s->p95 < s->p5 || s->max < s->min)
		fail_msg("%s: n %zu mean %f median %f p5 %f p95 %f", what, s->n,
			 s->mean, s->median, s->p5, s->p95);
}

/* the paper's five, as measured (the model clamps them at 0) */
static bool categories_not_negative(const struct bd_result *r)
{
	int k;

	for (k = 0; k < BD_POST_MISC; k++)
		if (r->cat[k].mean < 0)
			return false;
	return r->misc_rest >= 0;
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
			assert_stats_sane(bd_comp_info[k].label, &r.cat[k]);
		for (k = 0; k < BD_NPATHS; k++) {
			assert_stats_sane(bd_path_key[k], &r.path[k]);
			/* whole operations cost something */
			assert_true(r.path[k].mean > 0);
		}
		/* the measured model: every figure it takes is there */
		bd_model_defaults(&m);
		bd_result_to_model(&r, &m);
		for (k = 0; k < BD_NCOMP; k++)
			assert_true(m.ns[k] >= 0);
		assert_int_equal(m.src[BD_POST_MISC], BD_SRC_MEASURED);
		assert_int_equal(m.src[BD_LLP_PROG], BD_SRC_MEASURED);
		printf("try %d: sum of steps %.2f ns, untimed post %.2f ns (means): %+.1f%%; misc rest %.2f ns; stamps between steps %+.1f%%\n",
		       try, r.path[BD_PATH_RAW_STEPS].mean,
		       r.path[BD_PATH_RAW_POST].mean, 100 * r.agreement,
		       r.misc_rest, 100 * r.agreement_inline);
		if (categories_not_negative(&r) &&
		    fabs(r.agreement) <= AGREEMENT)
			return;
	}
	fail_msg(
		"in %d runs, a category of the post (misc, the rest, included) stayed negative or the steps stayed more than %.0f%% off the untimed post",
		TRIES, 100 * AGREEMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(breakdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
