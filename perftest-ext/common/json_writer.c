// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The streaming JSON writer every tool's --json goes through. */
#include <math.h>
#include <inttypes.h>

#include "json_writer.h"

void json_init(struct json_writer *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->in_array[0] = true; /* the top level takes values without keys */
	w->need_comma[0] = false;
}

static void put_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* the comma, indentation and key that precede every value */
static void begin_value(struct json_writer *w, const char *key)
{
	if (w->need_comma[w->depth])
		fputc(',', w->f);
	if (w->depth)
		fprintf(w->f, "\n%*s", 2 * w->depth, "");
	if (!w->in_array[w->depth]) {
		put_escaped(w->f, key ? key : "");
		fputs(": ", w->f);
	}
	w->need_comma[w->depth] = true;
}

static void open_scope(struct json_writer *w, const char *key, bool array)
{
	begin_value(w, key);
	fputc(array ? '[' : '{', w->f);
	if (w->depth + 1 < JSON_MAX_DEPTH)
		w->depth++;
	w->in_array[w->depth] = array;
	w->need_comma[w->depth] = false;
}

static void close_scope(struct json_writer *w, char c)
{
	bool had_values = w->need_comma[w->depth];

	if (w->depth)
		w->depth--;
	if (had_values)
		fprintf(w->f, "\n%*s", 2 * w->depth, "");
	fputc(c, w->f);
}

void json_begin_object(struct json_writer *w, const char *key)
{
	open_scope(w, key, false);
}

void json_end_object(struct json_writer *w)
{
	close_scope(w, '}');
}

void json_begin_array(struct json_writer *w, const char *key)
{
	open_scope(w, key, true);
}

void json_end_array(struct json_writer *w)
{
	close_scope(w, ']');
}

void json_string(struct json_writer *w, const char *key, const char *val)
{
	begin_value(w, key);
	if (val)
		put_escaped(w->f, val);
	else
		fputs("null", w->f);
}

void json_uint(struct json_writer *w, const char *key, uint64_t val)
{
	begin_value(w, key);
	fprintf(w->f, "%" PRIu64, val);
}

void json_int(struct json_writer *w, const char *key, int64_t val)
{
	begin_value(w, key);
	fprintf(w->f, "%" PRId64, val);
}

void json_double(struct json_writer *w, const char *key, double val)
{
	begin_value(w, key);
	if (isfinite(val))
		fprintf(w->f, "%.6g", val);
	else
		fputs("null", w->f);
}

void json_bool(struct json_writer *w, const char *key, bool val)
{
	begin_value(w, key);
	fputs(val ? "true" : "false", w->f);
}

void json_null(struct json_writer *w, const char *key)
{
	begin_value(w, key);
	fputs("null", w->f);
}

int json_finish(struct json_writer *w)
{
	fputc('\n', w->f);
	return ferror(w->f) ? -1 : 0;
}
