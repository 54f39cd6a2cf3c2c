// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * perftest-ext/common: the JSON and CSV writers, the result files, the
 * gnuplot driver, numeric option values and mlx5emu's attribution records.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "csv_writer.h"
#include "emu_stat.h"
#include "json_writer.h"
#include "output_file.h"
#include "parse_number.h"
#include "plot.h"

/* what a writer produced, as a string (freed by the caller) */
static char *contents(FILE *f)
{
	long len;
	char *s;

	fflush(f);
	len = ftell(f);
	s = calloc(1, len + 1);
	rewind(f);
	assert_int_equal(fread(s, 1, len, f), (size_t)len);
	fclose(f);
	return s;
}

static void test_json(void **state)
{
	struct json_writer w;
	FILE *f = tmpfile();
	char *s;

	(void)state;
	json_init(&w, f);
	json_begin_object(&w, NULL);
	json_string(&w, "name", "a \"quoted\"\\ line\n\x01");
	json_uint(&w, "big", UINT64_MAX);
	json_int(&w, "neg", -5);
	json_double(&w, "nan", NAN);
	json_double(&w, "x", 0.5);
	json_bool(&w, "yes", true);
	json_null(&w, "none");
	json_begin_array(&w, "list");
	json_uint(&w, NULL, 1);
	json_begin_object(&w, NULL);
	json_end_object(&w);
	json_end_array(&w);
	json_end_object(&w);
	assert_int_equal(json_finish(&w), 0);
	s = contents(f);
	assert_string_equal(
		s, "{\n"
		   "  \"name\": \"a \\\"quoted\\\"\\\\ line\\n\\u0001\",\n"
		   "  \"big\": 18446744073709551615,\n"
		   "  \"neg\": -5,\n"
		   "  \"nan\": null,\n"
		   "  \"x\": 0.5,\n"
		   "  \"yes\": true,\n"
		   "  \"none\": null,\n"
		   "  \"list\": [\n"
		   "    1,\n"
		   "    {}\n"
		   "  ]\n"
		   "}\n");
	free(s);
}

static void test_csv(void **state)
{
	struct csv_writer w;
	FILE *f = tmpfile();
	char *s;

	(void)state;
	csv_init(&w, f);
	csv_string(&w, "plain");
	csv_string(&w, "a,b");
	csv_string(&w, "say \"hi\"");
	csv_uint(&w, 42);
	csv_double(&w, NAN);
	csv_double(&w, 1.25);
	csv_end_row(&w);
	csv_string(&w, NULL);
	csv_end_row(&w);
	assert_int_equal(csv_finish(&w), 0);
	s = contents(f);
	assert_string_equal(
		s, "plain,\"a,b\",\"say \"\"hi\"\"\",42,,1.25\r\n\r\n");
	free(s);
}

static void test_plot(void **state)
{
	const double rate[] = { 1, NAN }, res[] = { 3, 4 };
	const char *labels[] = { "one", "it's two" };
	const struct plot_series s1[] = { { "rate", rate } };
	const struct plot_series s2[] = { { "pages", res } };
	const struct plot_panel panels[] = { { "Rate", "Mmsg/s", s1, 1 },
					     { "Resources", "count", s2, 1 } };
	const struct plot_spec spec = {
		.title = "ib_write_mt: test 'plot' a^b {c} @d ~e",
		.xlabel = "x_axis",
		.labels = labels,
		.nlabels = 2,
		.panels = panels,
		.npanels = 2,
	};
	char dir[] = "/tmp/plot-test.XXXXXX", path[64], err[256], *svg;
	FILE *f;

	(void)state;
	assert_non_null(plot_terminal("a.svg"));
	assert_non_null(plot_terminal("a.PNG"));
	assert_null(plot_terminal("a.pdf"));
	assert_null(plot_terminal("noext"));
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.pdf", dir);
	assert_int_equal(plot_render(&spec, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ".svg or .png"));
	snprintf(path, sizeof(path), "%s/p.svg", dir);
	assert_int_equal(plot_render(&spec, path, err, sizeof(err)), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	svg = contents(f);
	/* texts as written: no enhanced-text subscripts or superscripts */
	assert_non_null(strstr(svg, "ib_write_mt: test"));
	assert_non_null(strstr(svg, "a^b {c} @d ~e"));
	assert_non_null(strstr(svg, "x_axis"));
	free(svg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/missing/p.svg", dir);
	assert_int_equal(plot_render(&spec, path, err, sizeof(err)), -1);
	rmdir(dir);
}

static void test_output_file(void **state)
{
	char dir[] = "/tmp/output-test.XXXXXX", path[64], back[8] = "";
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing/out.json", dir);
	assert_null(output_open("test", path));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	f = output_open("test", path);
	assert_non_null(f);
	fputs("{}\n", f);
	assert_int_equal(output_close("test", path, f, 0), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(back, sizeof(back), f));
	fclose(f);
	assert_string_equal(back, "{}\n");
	/* a writer that failed fails the file, which is closed all the same */
	f = output_open("test", path);
	assert_non_null(f);
	assert_int_equal(output_close("test", path, f, -1), -1);
	unlink(path);
	rmdir(dir);
	/* what only the close finds out: the buffered data does not fit */
	f = output_open("test", "/dev/full");
	if (f) {
		fputs("x", f);
		assert_int_equal(output_close("test", "/dev/full", f, 0), -1);
	}
}

static void test_parse_decimal(void **state)
{
	long long v = 7;

	(void)state;
	assert_int_equal(parse_decimal("42", 1, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_decimal("0", 0, 0, &v), 0);
	assert_int_equal(v, 0);
	v = 7;
	assert_int_equal(parse_decimal("101", 1, 100, &v), -EINVAL);
	assert_int_equal(parse_decimal("0", 1, 100, &v), -EINVAL);
	assert_int_equal(parse_decimal("-1", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_decimal("12x", 1, 100, &v), -EINVAL);
	assert_int_equal(parse_decimal("", 1, 100, &v), -EINVAL);
	assert_int_equal(parse_decimal("99999999999999999999", 1, LLONG_MAX,
				       &v),
			 -EINVAL);
	assert_int_equal(v, 7);
}

static void test_emu_stat(void **state)
{
	const char *ctx =
		"context pid=7 ctx=2 dev=mlx5_0 uar=static uars=3 last_refused=alloc:ENOMEM\n";
	const char *qp =
		"qp pid=7 ctx=2 qpn=0x1a page_id=0x40 uar=0x1000 bfreg=-1\n";
	char buf[8];

	(void)state;
	assert_true(emu_stat_is(ctx, "context"));
	assert_false(emu_stat_is(ctx, "ctx"));
	assert_false(emu_stat_is("contexts pid=1", "context"));
	assert_true(emu_stat_is(qp, "qp"));
	/* a key is a whole word: uar is not uars, ctx is not the record */
	assert_int_equal(emu_stat_num(ctx, "uars", -1), 3);
	assert_int_equal(emu_stat_num(ctx, "ctx", -1), 2);
	assert_int_equal(emu_stat_num(ctx, "uar", -1), 0);
	assert_string_equal(emu_stat_text(ctx, "uar", buf, sizeof(buf)),
			    "static");
	assert_int_equal(emu_stat_num(qp, "qpn", -1), 0x1a);
	assert_int_equal(emu_stat_num(qp, "bfreg", 0), -1);
	assert_int_equal(emu_stat_num(qp, "nuars", 5), 5);
	assert_string_equal(emu_stat_text(qp, "kind", buf, sizeof(buf)), "");
	/* cut to the buffer, never past the end of the value */
	assert_string_equal(emu_stat_text(ctx, "last_refused", buf,
					  sizeof(buf)),
			    "alloc:E");
	assert_string_equal(emu_stat_text(ctx, "dev", buf, sizeof(buf)),
			    "mlx5_0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_plot),
		cmocka_unit_test(test_output_file),
		cmocka_unit_test(test_parse_decimal),
		cmocka_unit_test(test_emu_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
