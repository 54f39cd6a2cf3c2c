/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The files the tools write their results to (--json, --csv): opened and
 * closed with a message on stderr, prefixed by the tool's name, when that
 * fails.
 */
#ifndef PERFTEST_EXT_OUTPUT_FILE_H
#define PERFTEST_EXT_OUTPUT_FILE_H

#include <stdio.h>

/* where --out_json writes without --out_json_file, as perftest's tools */
#define PERFTEST_JSON_DEFAULT "perftest_out.json"

/*
 * Before a run: can path be written (created, or an existing file
 * replaced)? 0, or -1 after saying why. Nothing is left behind.
 */
int output_check(const char *tool, const char *path);

/* path truncated for writing, or NULL after saying why */
FILE *output_open(const char *tool, const char *path);

/*
 * Closes f. written is what the writer's finish call returned; -1 after a
 * message if it or the close failed, else 0.
 */
int output_close(const char *tool, const char *path, FILE *f, int written);

#endif
