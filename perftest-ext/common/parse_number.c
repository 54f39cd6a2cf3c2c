// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Numeric option values, parsed whole and range-checked. */
#include <errno.h>
#include <stdlib.h>

#include "parse_number.h"

int parse_decimal(const char *s, long long min, long long max, long long *v)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || end == s || *end || n < min || n > max)
		return -EINVAL;
	*v = n;
	return 0;
}
