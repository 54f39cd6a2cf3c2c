/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The version -V/--version prints, one for every perftest-ext tool. */
#ifndef PERFTEST_EXT_VERSION_H
#define PERFTEST_EXT_VERSION_H

#define PERFTEST_EXT_VERSION "1.0"

#endif
