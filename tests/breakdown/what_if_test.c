// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_write_breakdown --what-if writes the points of its Fig. 17 plots; each
 * point must be what the model gives for that component and reduction,
 * recomputed here from Table 1 without the tool's what-if code.
 *
 *   what_if_test <ib_write_breakdown> <scratch dir>
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "model.h"

static const char *tool, *dir;

/* the metric with component c scaled by (1 - pct/100) */
static double model_with(const char *metric, int c, int pct)
{
	struct bd_model m;

	bd_model_defaults(&m);
	if (c >= 0)
		m.ns[c] *= 1 - pct / 100.0;
	return !strcmp(metric, "injection") ? bd_llp_injection(&m) :
					      bd_llp_latency(&m);
}

static void check_metric(const char *metric, const char **expect, int nexpect)
{
	char path[4096], line[1024], *tok, *save;
	int col[32], ncol = 0, rows = 0, i, pct;
	FILE *f;

	snprintf(path, sizeof(path), "%s/what-if-%s.dat", dir, metric);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	tok = strtok_r(line, " \n", &save);
	assert_string_equal(tok, "percent");
	while ((tok = strtok_r(NULL, " \n", &save))) {
		col[ncol] = bd_comp_lookup(tok);
		assert_true(col[ncol] >= 0);
		ncol++;
	}
	/* exactly the components the metric depends on */
	assert_int_equal(ncol, nexpect);
	for (i = 0; i < nexpect; i++)
		assert_int_equal(col[i], bd_comp_lookup(expect[i]));
	while (fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \n", &save);
		pct = atoi(tok);
		assert_int_equal(pct, 10 * (rows + 1));
		for (i = 0; i < ncol; i++) {
			double got, want;

			tok = strtok_r(NULL, " \n", &save);
			assert_non_null(tok);
			got = strtod(tok, NULL);
			want = model_with(metric, -1, 0) /
			       model_with(metric, col[i], pct);
			if (fabs(got - want) > 1e-5)
				fail_msg("%s %s %d%%: %f, model %f", metric,
					 expect[i], pct, got, want);
		}
		rows++;
	}
	assert_int_equal(rows, 9);
	fclose(f);
}

static void injection_points(void **state)
{
	static const char *comps[] = { "desc-setup", "desc-barrier",
				       "db-barrier", "pio-copy",
				       "post-misc",  "llp-prog",
				       "busy-post",  "meas-update" };

	(void)state;
	check_metric("injection", comps, 8);
}

static void latency_points(void **state)
{
	static const char *comps[] = { "desc-setup", "desc-barrier",
				       "db-barrier", "pio-copy",
				       "post-misc",  "llp-prog",
				       "pcie",	     "wire",
				       "switch",     "rc-to-mem" };

	(void)state;
	check_metric("latency", comps, 10);
}

/* the plots themselves: one SVG per metric, rendered by gnuplot */
static void plots_exist(void **state)
{
	static const char *metrics[] = { "injection", "latency" };
	char path[4096];
	struct stat st;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/what-if-%s.svg", dir,
			 metrics[i]);
		assert_int_equal(stat(path, &st), 0);
		assert_true(st.st_size > 1000);
	}
}

static int run_tool(void **state)
{
	char cmd[8192];

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s' && '%s' --what-if --plot-dir='%s' >'%s.out'", dir,
		 tool, dir, dir);
	return system(cmd) ? -1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(injection_points),
		cmocka_unit_test(latency_points),
		cmocka_unit_test(plots_exist),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s TOOL DIR\n", argv[0]);
		return 2;
	}
	tool = argv[1];
	dir = argv[2];
	return cmocka_run_group_tests(tests, run_tool, NULL);
}
