/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The exit status of every perftest-ext tool, so that scripts read
 * ib_write_mt and ib_write_breakdown alike. What each means is the table
 * in exit_code.c, which --help prints.
 */
#ifndef PERFTEST_EXT_EXIT_CODE_H
#define PERFTEST_EXT_EXIT_CODE_H

#include <stdio.h>

enum perftest_exit {
	PERFTEST_EXIT_OK = 0,
	PERFTEST_EXIT_USAGE = 1, /* bad option or impossible combination */
	PERFTEST_EXIT_VERIFY = 2, /* a written byte or a guard is wrong */
	PERFTEST_EXIT_UNAVAILABLE = 3, /* the library/device cannot build it */
	PERFTEST_EXIT_DEVICE = 4, /* no device, a verb or completion failed */
	PERFTEST_EXIT_PROTOCOL = 5, /* malformed peer message */
	PERFTEST_EXIT_VERSION = 6, /* peer of another protocol version */
	PERFTEST_EXIT_DISCONNECT = 7, /* peer closed the connection mid-run */
	PERFTEST_EXIT_TIMEOUT = 8, /* connect or read timeout */
	PERFTEST_EXIT_OUTPUT = 9, /* a JSON, CSV or plot file not written */
	PERFTEST_EXIT_PEER = 10, /* the peer gave up (sent an ERROR) */
	PERFTEST_EXIT_COUNT
};

/* what status code means, for --help and messages */
const char *perftest_exit_text(enum perftest_exit code);

/* "Exit status:" and one line per code a tool returns, for its --help */
void perftest_exit_usage(FILE *f, const enum perftest_exit *codes,
			 unsigned int n);

#endif
