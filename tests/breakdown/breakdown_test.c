// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The breakdown on the emulated device: every step, category and whole
 * path is measured and sane, and the model takes its measured figures.
 * How well the sum of the steps agrees with the untimed post, and whether
 * misc (the rest of the untimed post) comes out positive, are timings: a
 * loaded machine moves them, so the test prints them and asserts only that
 * they were computed (ib_write_breakdown reports them as figures).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "measure.h"

/* a step that costs next to nothing comes out a fraction of a ns either
 * side of zero, a few tenths more on a loaded machine; a stamp counted
 * twice would be ~35 ns off */
#define STAMP_JITTER_NS 3.0

static const struct bd_measure_opts opts = { .iters = 20000,
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
	int k;

	(void)state;
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
	assert_true(isfinite(r.agreement) && isfinite(r.agreement_inline));
	assert_true(isfinite(r.misc_rest));
	printf("sum of steps %.2f ns, untimed post %.2f ns (means): %+.1f%%; misc rest %.2f ns; stamps between steps %+.1f%%\n",
	       r.path[BD_PATH_RAW_STEPS].mean, r.path[BD_PATH_RAW_POST].mean,
	       100 * r.agreement, r.misc_rest, 100 * r.agreement_inline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(breakdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
