/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A streaming JSON writer: objects and arrays nest, commas and string
 * escapes are taken care of. Keys are ignored inside arrays (pass NULL).
 */
#ifndef PERFTEST_EXT_JSON_WRITER_H
#define PERFTEST_EXT_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_writer {
	FILE *f;
	unsigned int depth;
	bool in_array[JSON_MAX_DEPTH];
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json_writer *w, FILE *f);
void json_begin_object(struct json_writer *w, const char *key);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *val);
void json_uint(struct json_writer *w, const char *key, uint64_t val);
void json_int(struct json_writer *w, const char *key, int64_t val);
/* non-finite values are written as null */
void json_double(struct json_writer *w, const char *key, double val);
void json_bool(struct json_writer *w, const char *key, bool val);
void json_null(struct json_writer *w, const char *key);
/* ends the document with a newline; returns -1 if any write failed */
int json_finish(struct json_writer *w);

#endif
