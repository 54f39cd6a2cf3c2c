// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The launcher itself: exit status, option checks, the environment it
 * hands to COMMAND and the cleanup of its private directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static int run(const char *args)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>&1", MLX5EMU_BIN, args);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static char *capture(const char *args)
{
	static char out[4096];
	char cmd[1024];
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", MLX5EMU_BIN, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	pclose(f);
	return out;
}

static void exit_status(void **state)
{
	(void)state;
	assert_int_equal(run("run -- true"), 0);
	assert_int_equal(run("run -- sh -c 'exit 7'"), 7);
	assert_int_equal(run("run -- sh -c 'kill -TERM $$'"), 128 + 15);
	assert_int_equal(run("run -- /nonexistent/program"), 127);
}

static void option_checks(void **state)
{
	(void)state;
	assert_int_equal(run(""), 2);
	assert_int_equal(run("frobnicate"), 2);
	assert_int_equal(run("run"), 2);
	assert_int_equal(run("run --model=cx9 -- true"), 2);
	assert_int_equal(run("run --uar=both -- true"), 2);
	assert_int_equal(run("run --transport=rdma -- true"), 2);
	assert_int_equal(run("run --devices=9 -- true"), 2);
	assert_int_equal(run("run --ports=3 -- true"), 2);
	assert_int_equal(run("run --uar=static --uars-per-page=2 -- true"), 2);
	assert_int_equal(run("--help"), 0);
	assert_int_equal(run("run --transport=ioctl -- true"), 0);
}

static void environment(void **state)
{
	const char *out;

	(void)state;
	out = capture("run --model=cx4 --devices=2 --ports=2 --uar=static "
		      "--uar-limit=12 --dyn-bfregs=8 -- env");
	assert_non_null(strstr(out, "MLX5EMU_MODEL=cx4\n"));
	assert_non_null(strstr(out, "MLX5EMU_DEVICES=2\n"));
	assert_non_null(strstr(out, "MLX5EMU_PORTS=2\n"));
	assert_non_null(strstr(out, "MLX5EMU_UAR=static\n"));
	assert_non_null(strstr(out, "MLX5EMU_UAR_LIMIT=12\n"));
	assert_non_null(strstr(out, "MLX5EMU_DYN_BFREGS=8\n"));
	assert_non_null(strstr(out, "MLX5EMU_TRANSPORT=write\n"));
	assert_non_null(strstr(out, "libmlx5emu.so"));
	assert_non_null(strstr(out, "SYSFS_PATH="));
	assert_non_null(strstr(out, "MLX5EMU=" MLX5EMU_BIN "\n"));
}

/* the sysfs tree and attribution live only as long as COMMAND */
static void cleanup(void **state)
{
	char dir[512];
	struct stat st;
	char *out, *p;

	(void)state;
	out = capture("run -- sh -c 'echo $SYSFS_PATH; "
		      "test -f $SYSFS_PATH/class/infiniband_verbs/abi_version "
		      "&& echo tree-ok'");
	assert_non_null(strstr(out, "tree-ok"));
	p = strchr(out, '\n');
	assert_non_null(p);
	*p = 0;
	snprintf(dir, sizeof(dir), "%s", out);
	assert_int_equal(stat(dir, &st), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_status),
		cmocka_unit_test(option_checks),
		cmocka_unit_test(environment),
		cmocka_unit_test(cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
