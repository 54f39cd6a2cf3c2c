/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The options of the emulated device, one table row each: the launcher's
 * getopt, its usage() and the environment it sets come from the table, and
 * so does the preload library's parser of that environment (config.c).
 * tests/mlx5emu-options checks README.md and mlx5emu(1) against it.
 */
#ifndef MLX5EMU_OPTION_H
#define MLX5EMU_OPTION_H

#include <stddef.h>
#include <stdio.h>

enum emu_opt_kind {
	EMU_OPT_UINT, /* a number in min..max */
	EMU_OPT_CHOICE, /* one of choices: the value is its index */
	EMU_OPT_BOOL, /* on|off; the environment holds 1|0 */
	EMU_OPT_STRING, /* a name or a path (max: its longest, 0: any) */
};

enum {
	EMU_OPTF_OPTIONAL_ARG = 1 << 0, /* --name alone means "implied" */
	EMU_OPTF_INHERIT = 1 << 1, /* not given: the environment's stays */
};

struct emu_option {
	const char *name; /* --name of `mlx5emu run`; NULL: environment only */
	const char *var; /* the environment variable */
	enum emu_opt_kind kind;
	const char *const *choices; /* CHOICE: NULL-terminated */
	unsigned int min, max; /* UINT: the range; STRING: its length */
	const char *def; /* value when not given; NULL: left unset */
	const char *unset; /* what "unset" means, for the documentation */
	const char *arg; /* in usage(): N, DIR, FILE, NAME */
	const char *implied; /* OPTIONAL_ARG: the value of --name alone */
	unsigned int flags;
	const char *help;
	/* STRING: whether v is a value, with what is wanted in err */
	int (*check)(const char *v, char *err, size_t errlen);
};

/* rows of emu_options[], by what they set */
enum emu_opt_id {
	EMU_OPTION_MODEL,
	EMU_OPTION_DEVICES,
	EMU_OPTION_PORTS,
	EMU_OPTION_UAR,
	EMU_OPTION_TRANSPORT,
	EMU_OPTION_UARS_PER_PAGE,
	EMU_OPTION_DYN_BFREGS,
	EMU_OPTION_UAR_LIMIT,
	EMU_OPTION_DEVICE_UARS,
	EMU_OPTION_FABRIC,
	EMU_OPTION_PEERS,
	EMU_OPTION_HOST_INDEX,
	EMU_OPTION_FABRIC_SECRET,
	EMU_OPTION_TRACE,
	EMU_OPTION_STAT_DIR,
	EMU_OPTION_NETLINK,
	EMU_OPTION_NIC,
	EMU_OPTION_NIC_IDLE_US,
	EMU_OPTION_NIC_SCHED,
	EMU_OPTION_NIC_BUDGET,
	EMU_OPTION_MAX_QP,
	EMU_OPTION_MAPS_QUERY,
	EMU_OPTION_DOORBELL_TRAP,
	EMU_OPTION_ONESIDED,
	EMU_OPTION_FAULT_DROP,
	EMU_OPTION_FAULT_DELAY,
	EMU_OPTION_FAULT_DELAY_US,
	EMU_OPTION_FAULT_SEED,
	EMU_OPTION_FAULT_TIMEOUT_US,
	EMU_OPTION_FAULT_PORT_DOWN,
	EMU_OPTION_FAULT_CQ_OVERRUN,
	EMU_NOPTIONS
};

extern const struct emu_option emu_options[EMU_NOPTIONS];

/* the row of --name, or NULL */
const struct emu_option *emu_option_find(const char *name);
/*
 * v as a value of o: 0 and *out (UINT: the number, CHOICE: the index,
 * BOOL: 0 or 1, STRING: 0), or -1 and what o wants in err.
 */
int emu_option_parse(const struct emu_option *o, const char *v,
		     unsigned int *out, char *err, size_t errlen);
/* the default as the documentation shows it */
const char *emu_option_default(const struct emu_option *o);
/* the launcher's options, then the environment-only ones */
void emu_option_usage(FILE *f);

#endif
