/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RFC 4180 CSV: one header row, then rows of fields; fields that need it
 * are quoted.
 */
#ifndef PERFTEST_EXT_CSV_WRITER_H
#define PERFTEST_EXT_CSV_WRITER_H

#include <stdint.h>
#include <stdio.h>

struct csv_writer {
	FILE *f;
	unsigned int field; /* fields written in the current row */
};

void csv_init(struct csv_writer *w, FILE *f);
void csv_string(struct csv_writer *w, const char *val);
void csv_uint(struct csv_writer *w, uint64_t val);
void csv_double(struct csv_writer *w, double val);
void csv_end_row(struct csv_writer *w);
/* returns -1 if any write failed */
int csv_finish(struct csv_writer *w);

#endif
