/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The command line: perftest's letters where perftest has the knob. */
#ifndef WMT_OPTIONS_H
#define WMT_OPTIONS_H

#include <stdio.h>

#include "ib_write_mt.h"

/*
 * Returns -1 to go on, or the exit code (0 after --help/--version,
 * PERFTEST_EXIT_USAGE with a message on stderr).
 */
int wmt_options_parse(struct wmt_options *o, int argc, char **argv);

/* --help, generated from the tables it describes (usage.c) */
void wmt_usage(FILE *f);

/* the categories of a --endpoints list; 0 if a name is unknown */
/*
 * --endpoints=LIST into o->categories and o->order (the rows' order, as
 * listed; a set in its own order). -1 on an unknown name.
 */
int wmt_parse_categories(struct wmt_options *o, const char *list);

#endif
