// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mlx5emu: run a program on the emulated ConnectX device, or show what the
 * emulated devices of running/finished programs hold.
 *
 *   mlx5emu run [options] -- COMMAND [ARGS...]   (run.c)
 *   mlx5emu stat [--dir=DIR] [--pid=PID] [--machine]   (stat.c)
 */
#include <string.h>

#include "base/option.h"
#include "launcher.h"

void launcher_usage(FILE *f)
{
	fprintf(f,
		"Usage: mlx5emu run [OPTIONS] -- COMMAND [ARGS...]\n"
		"       mlx5emu stat [--dir=DIR] [--pid=PID] [--machine|--json]\n"
		"\n"
		"Runs COMMAND on an emulated mlx5 (ConnectX) device: the staged\n"
		"libibverbs and libmlx5 find mlx5_0.. through a generated sysfs\n"
		"tree and an LD_PRELOAD emulation of /dev/infiniband/uverbsN.\n"
		"\n");
	emu_option_usage(f);
	fprintf(f,
		"\n"
		"stat options:\n"
		"  --dir=DIR     attribution directory (default $MLX5EMU_STAT_DIR)\n"
		"  --pid=PID     only that process\n"
		"  --machine     print the raw key=value records\n"
		"  --json        the same records as a JSON array\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		launcher_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1);
	fprintf(stderr, "mlx5emu: unknown command '%s'\n", argv[1]);
	launcher_usage(stderr);
	return 2;
}
