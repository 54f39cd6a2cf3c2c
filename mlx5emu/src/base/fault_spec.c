// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Parsers of the fault injection specs (fault_spec.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_spec.h"

/* a whole decimal number of at most 2^48 */
static int parse_count(const char *s, uint64_t *n)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*n = strtoull(s, &end, 10);
	return errno || *end || *n > (1ull << 48) ? -1 : 0;
}

static int parse_rate(const char *s, uint32_t *rate)
{
	char *end;
	double p;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -1;
	p = strtod(s, &end);
	if (*end || !(p >= 0.0 && p <= 1.0))
		return -1;
	*rate = p >= 1.0 ? UINT32_MAX : (uint32_t)(p * 4294967296.0);
	return 0;
}

int emu_fault_sel_parse(const char *s, struct emu_fault_sel *sel, char *err,
			size_t errlen)
{
	static const struct {
		const char *prefix;
		enum emu_fault_kind kind;
	} kinds[] = {
		{ "nth:", EMU_FAULT_NTH },
		{ "every:", EMU_FAULT_EVERY },
		{ "rate:", EMU_FAULT_RATE },
		{ "from:", EMU_FAULT_FROM },
	};
	unsigned int i;

	memset(sel, 0, sizeof(*sel));
	for (i = 0; s && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);

		if (strncmp(s, kinds[i].prefix, n))
			continue;
		sel->kind = kinds[i].kind;
		if (sel->kind == EMU_FAULT_RATE) {
			if (!parse_rate(s + n, &sel->rate))
				return 0;
		} else if (!parse_count(s + n, &sel->n) && sel->n) {
			return 0;
		}
		break;
	}
	sel->kind = EMU_FAULT_NONE;
	snprintf(err, errlen, "nth:N, every:N, from:N (N >= 1) or rate:P");
	return -1;
}

int emu_fault_window_parse(const char *s, uint64_t *at_ms, uint64_t *dur_ms,
			   char *err, size_t errlen)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	char at[32];

	if (colon && (size_t)(colon - s) < sizeof(at)) {
		memcpy(at, s, colon - s);
		at[colon - s] = 0;
		if (!parse_count(at, at_ms) && !parse_count(colon + 1, dur_ms))
			return 0;
	}
	snprintf(err, errlen, "AT_MS:DURATION_MS");
	return -1;
}
