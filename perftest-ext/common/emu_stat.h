/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The attribution records mlx5emu keeps for each process under
 * $MLX5EMU_STAT_DIR/<pid> (what `mlx5emu stat --machine` prints; the format
 * is described in mlx5emu/src/stat.c): one record a line, a kind and then
 * key=value fields, "end pid=.." last once the file is complete.
 */
#ifndef PERFTEST_EXT_EMU_STAT_H
#define PERFTEST_EXT_EMU_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* pid's record file, or NULL (errno set) when not under mlx5emu or absent */
FILE *emu_stat_open(pid_t pid);

/* is line a record of kind ("qp", "page", "context", "ring", "end", ...) */
bool emu_stat_is(const char *line, const char *kind);

/* the value of key= in line as a number (decimal or 0x..), def if absent */
long long emu_stat_num(const char *line, const char *key, long long def);

/* the value of key= in line as text into buf ("" if absent); returns buf */
const char *emu_stat_text(const char *line, const char *key, char *buf,
			  size_t len);

#endif
