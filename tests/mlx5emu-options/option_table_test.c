// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The option table of mlx5emu is the only place an option is defined: its
 * rows must be consistent, and README.md's option tables and the
 * mlx5emu(1) page must list exactly its options with its defaults.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fault_spec.h"
#include "model.h"
#include "option.h"

/* the whole file, NUL-terminated */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), n);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* "name" out of "--name=..." "--name[=...]" or "--name`" */
static void option_name(const char *p, char *name, size_t len)
{
	size_t n = strcspn(p, "=[` \n");

	if (n >= len)
		n = len - 1;
	memcpy(name, p, n);
	name[n] = 0;
}

static void test_defaults_are_values(void **state)
{
	unsigned int i, v;
	char want[64];

	(void)state;
	for (i = 0; i < EMU_NOPTIONS; i++) {
		const struct emu_option *o = &emu_options[i];

		assert_non_null(o->var);
		assert_non_null(o->help);
		assert_non_null(emu_option_default(o));
		if (o->def &&
		    emu_option_parse(o, o->def, &v, want, sizeof(want)))
			fail_msg("%s: default %s is not one of %s", o->var,
				 o->def, want);
		if (o->name && !emu_option_find(o->name))
			fail_msg("--%s not found by name", o->name);
	}
}

static void test_model_choices_are_models(void **state)
{
	const struct emu_option *o = &emu_options[EMU_OPTION_MODEL];
	unsigned int i;

	(void)state;
	for (i = 0; o->choices[i]; i++)
		assert_non_null(emu_model_find(o->choices[i]));
	assert_string_equal(o->def, emu_model_default()->name);
}

static void test_parse(void **state)
{
	const struct emu_option *dyn = emu_option_find("dyn-bfregs");
	const struct emu_option *uar = emu_option_find("uar");
	const struct emu_option *nl = emu_option_find("netlink");
	unsigned int v;
	char want[64];

	(void)state;
	assert_int_equal(emu_option_parse(dyn, "2048", &v, want, 64), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(emu_option_parse(dyn, "0x10", &v, want, 64), 0);
	assert_int_equal(v, 16);
	assert_int_equal(emu_option_parse(dyn, "2049", &v, want, 64), -1);
	assert_string_equal(want, "0..2048");
	assert_int_equal(emu_option_parse(dyn, "-1", &v, want, 64), -1);
	assert_int_equal(emu_option_parse(dyn, "", &v, want, 64), -1);
	assert_int_equal(emu_option_parse(dyn, "12x", &v, want, 64), -1);
	assert_int_equal(emu_option_parse(uar, "static", &v, want, 64), 0);
	assert_int_equal(v, 1);
	assert_int_equal(emu_option_parse(uar, "Static", &v, want, 64), -1);
	assert_string_equal(want, "dynamic|static");
	assert_int_equal(emu_option_parse(nl, "off", &v, want, 64), 0);
	assert_int_equal(v, 0);
	assert_int_equal(emu_option_parse(nl, "1", &v, want, 64), 0);
	assert_int_equal(v, 1);
	assert_int_equal(emu_option_parse(nl, "yes", &v, want, 64), -1);
}

/* the fault specs: what each means, and a clear "want" for a bad one */
static void test_parse_fault(void **state)
{
	const struct emu_option *drop = emu_option_find("fault-drop");
	const struct emu_option *down = emu_option_find("fault-port-down");
	static const char *const bad[] = {
		"",	  "nth",      "nth:",	   "nth:0",  "nth:-1",
		"nth:1x", "rate:1.5", "rate:-0.1", "rate:x", "every:0",
		"from:",  "1",	      NULL
	};
	struct emu_fault_sel sel;
	uint64_t at, dur;
	unsigned int i, v;
	char want[64];

	(void)state;
	assert_int_equal(emu_option_parse(drop, "nth:3", &v, want, 64), 0);
	assert_int_equal(emu_option_parse(drop, "rate:0.25", &v, want, 64), 0);
	for (i = 0; bad[i]; i++) {
		if (!emu_option_parse(drop, bad[i], &v, want, 64))
			fail_msg("--fault-drop=%s accepted", bad[i]);
		assert_non_null(strstr(want, "rate:P"));
	}
	assert_int_equal(emu_fault_sel_parse("every:4", &sel, want, 64), 0);
	assert_int_equal(sel.kind, EMU_FAULT_EVERY);
	assert_int_equal(sel.n, 4);
	assert_int_equal(emu_fault_sel_parse("rate:1", &sel, want, 64), 0);
	assert_int_equal(sel.rate, UINT32_MAX);
	assert_int_equal(emu_fault_sel_parse("rate:0.5", &sel, want, 64), 0);
	assert_int_equal(sel.rate, 1u << 31);
	assert_int_equal(
		emu_fault_window_parse("250:1000", &at, &dur, want, 64), 0);
	assert_int_equal(at, 250);
	assert_int_equal(dur, 1000);
	assert_int_equal(emu_option_parse(down, "250", &v, want, 64), -1);
	assert_string_equal(want, "AT_MS:DURATION_MS");
	assert_int_equal(emu_option_parse(down, ":5", &v, want, 64), -1);
	assert_int_equal(emu_option_parse(down, "5:", &v, want, 64), -1);
}

static void test_usage_lists_every_option(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned int i;
	char form[64];

	(void)state;
	emu_option_usage(f);
	fclose(f);
	for (i = 0; i < EMU_NOPTIONS; i++) {
		const struct emu_option *o = &emu_options[i];

		snprintf(form, sizeof(form), "  %s%s", o->name ? "--" : "",
			 o->name ? o->name : o->var);
		if (!strstr(buf, form))
			fail_msg("usage() lacks %s", form);
	}
	free(buf);
}

/* the README row of --name: its default cell, backticks dropped */
static bool readme_row(const char *readme, const char *name, char *def,
		       size_t len)
{
	const char *p;
	char opt[64];

	for (p = readme; p; p = next_line(p)) {
		const char *cell, *end;
		size_t n, k = 0;

		if (strncmp(p, "| `--", 5))
			continue;
		option_name(p + 5, opt, sizeof(opt));
		if (strcmp(opt, name))
			continue;
		cell = strstr(p + 5, " | ");
		assert_non_null(cell);
		cell += 3;
		end = strstr(cell, " | ");
		assert_non_null(end);
		for (n = 0; cell + n < end && k + 1 < len; n++)
			if (cell[n] != '`')
				def[k++] = cell[n];
		def[k] = 0;
		return true;
	}
	return false;
}

static void test_readme_matches_table(void **state)
{
	char *readme = slurp(MLX5EMU_README);
	const char *p;
	char def[256], name[64], var[80];
	unsigned int i;

	(void)state;
	for (i = 0; i < EMU_NOPTIONS; i++) {
		const struct emu_option *o = &emu_options[i];

		if (!o->name) {
			/* the data path's environment table */
			snprintf(var, sizeof(var), "| `%s", o->var);
			p = strstr(readme, var);
			if (!p)
				fail_msg("README.md lacks a row for %s",
					 o->var);
			snprintf(def, sizeof(def), "%.*s",
				 (int)strcspn(p, "\n"), p);
			if (!strstr(def, emu_option_default(o)))
				fail_msg(
					"README.md: %s does not say its default '%s'",
					o->var, emu_option_default(o));
			continue;
		}
		if (!readme_row(readme, o->name, def, sizeof(def)))
			fail_msg("README.md lacks a row for --%s", o->name);
		if (!strstr(def, emu_option_default(o)))
			fail_msg(
				"README.md: --%s defaults to '%s', the table to '%s'",
				o->name, def, emu_option_default(o));
		/* the launcher's environment table: "_DEVICES" or in full */
		if (!strstr(readme, o->var) &&
		    !strstr(readme, o->var + strlen("MLX5EMU")))
			fail_msg("README.md does not name %s", o->var);
	}
	for (p = readme; p; p = next_line(p)) {
		if (strncmp(p, "| `--", 5))
			continue;
		option_name(p + 5, name, sizeof(name));
		if (!emu_option_find(name))
			fail_msg("README.md documents --%s, not in the table",
				 name);
	}
	free(readme);
}

/* the man page's paragraph of --name (up to the next .TP or .SH) */
static const char *man_entry(const char *man, const char *name, size_t *len)
{
	const char *p, *end;
	char opt[64];

	for (p = man; p; p = next_line(p)) {
		if (strncmp(p, ".BI \\-\\-", 8) && strncmp(p, ".BR \\-\\-", 8))
			continue;
		option_name(p + 8, opt, sizeof(opt));
		/* the page spells - as \- */
		for (char *c = opt; (c = strstr(c, "\\-"));)
			memmove(c, c + 1, strlen(c));
		if (strcmp(opt, name))
			continue;
		end = strstr(p, "\n.TP");
		if (!end || (strstr(p, "\n.SH") && strstr(p, "\n.SH") < end))
			end = strstr(p, "\n.SH");
		*len = end ? (size_t)(end - p) : strlen(p);
		return p;
	}
	return NULL;
}

static void test_man_matches_table(void **state)
{
	char *man = slurp(MLX5EMU_MAN);
	const char *p, *opts, *stop;
	char name[64], entry[1024];
	unsigned int i;
	size_t len;

	(void)state;
	for (i = 0; i < EMU_NOPTIONS; i++) {
		const struct emu_option *o = &emu_options[i];

		if (!o->name)
			continue;
		p = man_entry(man, o->name, &len);
		if (!p)
			fail_msg("mlx5emu.1 lacks --%s", o->name);
		snprintf(entry, sizeof(entry), "%.*s", (int)len, p);
		if (!strstr(entry, emu_option_default(o)))
			fail_msg(
				"mlx5emu.1: --%s does not say its default '%s'",
				o->name, emu_option_default(o));
	}
	/* the environment-only ones, in ENVIRONMENT */
	for (i = 0; i < EMU_NOPTIONS; i++) {
		const struct emu_option *o = &emu_options[i];
		const char *end;

		if (o->name)
			continue;
		snprintf(entry, sizeof(entry), ".B %s", o->var);
		p = strstr(man, entry);
		if (!p)
			fail_msg("mlx5emu.1 lacks %s", o->var);
		end = strstr(p + 1, "\n.TP");
		snprintf(entry, sizeof(entry), "%.*s",
			 end ? (int)(end - p) : (int)strlen(p), p);
		snprintf(name, sizeof(name), "default %s",
			 emu_option_default(o));
		if (!strstr(entry, name))
			fail_msg("mlx5emu.1: %s does not say its %s", o->var,
				 name);
	}
	/* every option of the OPTIONS section is in the table */
	opts = strstr(man, "\n.SH OPTIONS");
	assert_non_null(opts);
	stop = strstr(opts + 1, "\n.SH");
	for (p = opts; p && (!stop || p < stop); p = next_line(p)) {
		if (strncmp(p, ".BI \\-\\-", 8) && strncmp(p, ".BR \\-\\-", 8))
			continue;
		option_name(p + 8, name, sizeof(name));
		for (char *c = name; (c = strstr(c, "\\-"));)
			memmove(c, c + 1, strlen(c));
		if (!emu_option_find(name))
			fail_msg("mlx5emu.1 documents --%s, not in the table",
				 name);
	}
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_values),
		cmocka_unit_test(test_model_choices_are_models),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_fault),
		cmocka_unit_test(test_usage_lists_every_option),
		cmocka_unit_test(test_readme_matches_table),
		cmocka_unit_test(test_man_matches_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
