// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The exit statuses every perftest-ext tool shares, and their --help text. */
#include "exit_code.h"

static const char *const exit_text[PERFTEST_EXIT_COUNT] = {
	[PERFTEST_EXIT_OK] = "ok",
	[PERFTEST_EXIT_USAGE] = "bad options",
	[PERFTEST_EXIT_VERIFY] = "data verification failed",
	[PERFTEST_EXIT_UNAVAILABLE] =
		"a category is unavailable on this library/device",
	[PERFTEST_EXIT_DEVICE] = "no such device, or a verbs/completion error",
	[PERFTEST_EXIT_PROTOCOL] =
		"malformed, truncated or mismatched peer message",
	[PERFTEST_EXIT_VERSION] = "peer of another protocol version",
	[PERFTEST_EXIT_DISCONNECT] = "peer disconnected",
	[PERFTEST_EXIT_TIMEOUT] = "connect or peer timeout",
	[PERFTEST_EXIT_OUTPUT] = "output file error",
	[PERFTEST_EXIT_PEER] = "the peer gave up (its reason is printed)",
};

const char *perftest_exit_text(enum perftest_exit code)
{
	return code < PERFTEST_EXIT_COUNT ? exit_text[code] : "?";
}

void perftest_exit_usage(FILE *f, const enum perftest_exit *codes,
			 unsigned int n)
{
	unsigned int i;

	fputs("Exit status:\n", f);
	for (i = 0; i < n; i++)
		fprintf(f, "  %d  %s\n", codes[i],
			perftest_exit_text(codes[i]));
}
