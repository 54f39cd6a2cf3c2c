// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The RFC 4180 CSV writer every tool's --csv goes through. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "csv_writer.h"

void csv_init(struct csv_writer *w, FILE *f)
{
	w->f = f;
	w->field = 0;
}

static void separate(struct csv_writer *w)
{
	if (w->field++)
		fputc(',', w->f);
}

void csv_string(struct csv_writer *w, const char *val)
{
	separate(w);
	if (!val)
		return;
	if (!strpbrk(val, ",\"\r\n")) {
		fputs(val, w->f);
		return;
	}
	fputc('"', w->f);
	for (; *val; val++) {
		if (*val == '"')
			fputc('"', w->f);
		fputc(*val, w->f);
	}
	fputc('"', w->f);
}

void csv_uint(struct csv_writer *w, uint64_t val)
{
	separate(w);
	fprintf(w->f, "%" PRIu64, val);
}

void csv_double(struct csv_writer *w, double val)
{
	separate(w);
	if (isfinite(val))
		fprintf(w->f, "%.6g", val);
}

void csv_end_row(struct csv_writer *w)
{
	fputs("\r\n", w->f);
	w->field = 0;
}

int csv_finish(struct csv_writer *w)
{
	return ferror(w->f) ? -1 : 0;
}
