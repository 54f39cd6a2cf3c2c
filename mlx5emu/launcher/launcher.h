/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The launcher's commands: main.c picks one, run.c and stat.c are them. */
#ifndef MLX5EMU_LAUNCHER_H
#define MLX5EMU_LAUNCHER_H

#include <stdio.h>

/* the usage of every command, with the option table's */
void launcher_usage(FILE *f);
/* mlx5emu run [options] -- COMMAND [ARGS...] */
int cmd_run(int argc, char **argv);
/* mlx5emu stat [--dir=DIR] [--pid=PID] [--machine|--json] */
int cmd_stat(int argc, char **argv);

#endif
