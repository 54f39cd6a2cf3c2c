/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The exit status of every perftest-ext tool, so that scripts read
 * ib_write_mt and ib_write_breakdown alike (each documents the ones it can
 * return in --help and its man page).
 */
#ifndef PERFTEST_EXT_EXIT_CODE_H
#define PERFTEST_EXT_EXIT_CODE_H

enum perftest_exit {
	PERFTEST_EXIT_OK = 0,
	/* bad option or impossible combination */
	PERFTEST_EXIT_USAGE = 1,
	/* a written byte or a guard is wrong */
	PERFTEST_EXIT_VERIFY = 2,
	/* something the library or device cannot build (a category) */
	PERFTEST_EXIT_UNAVAILABLE = 3,
	/* no such device, or a verb or a completion failed */
	PERFTEST_EXIT_DEVICE = 4,
	/* malformed, truncated or mismatched peer message */
	PERFTEST_EXIT_PROTOCOL = 5,
	/* the peer speaks another protocol version */
	PERFTEST_EXIT_VERSION = 6,
	/* the peer closed the connection mid-run */
	PERFTEST_EXIT_DISCONNECT = 7,
	/* connect or read timeout */
	PERFTEST_EXIT_TIMEOUT = 8,
	/* a JSON, CSV or plot file could not be written */
	PERFTEST_EXIT_OUTPUT = 9,
};

#endif
