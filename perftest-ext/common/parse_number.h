/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Numeric option values, checked whole: "12x" or "" is not 12 or 0. */
#ifndef PERFTEST_EXT_PARSE_NUMBER_H
#define PERFTEST_EXT_PARSE_NUMBER_H

/*
 * s as a decimal integer in [min, max] into *v: 0, or -EINVAL (and *v
 * untouched) if s is anything else. The caller words the message.
 */
int parse_decimal(const char *s, long long min, long long max, long long *v);

#endif
