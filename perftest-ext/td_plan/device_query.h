/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What an unprivileged process learns about a device's UARs without
 * allocating any beyond what opening a context maps: the UAR mode and the
 * pages mapped at open (/proc/self/maps), BlueFlame and the dynamic range
 * (mlx5dv_query_device), the sharing levels (ibv_query_device_ex) and the
 * PCI BAR that holds the UARs (sysfs). --probe adds a measurement.
 */
#ifndef TD_PLAN_DEVICE_QUERY_H
#define TD_PLAN_DEVICE_QUERY_H

#include <stdbool.h>

#include "plan_model.h"

struct plan_facts {
	char name[64];
	struct plan_device dev;
	bool sharing_reported; /* td_sharing_caps non-zero */
	long long max_dynamic_bfregs; /* mlx5dv, PLAN_UNKNOWN if not told */
	long long bar_bytes; /* BAR0, PLAN_UNKNOWN if no resource file */
	char bar_why[384]; /* why bar_bytes is unknown */
	long long open_mappings; /* writable device mappings at open */
	/* --probe: level-1 TDs one context got, and the errno that ended */
	long long probe_level1;
	int probe_errno;
};

/*
 * Fills facts for the device named name (NULL: the first mlx5 device).
 * Returns 0, or -1 with a message in err (no such device, cannot open).
 */
int plan_device_query(const char *name, struct plan_facts *facts, char *err,
		      unsigned int errlen);

/*
 * Opens a context of the device and allocates level-1 TDs until one fails
 * (at most max), then frees them all. Returns 0 with facts->probe_*, or -1
 * with a message in err.
 */
int plan_device_probe(struct plan_facts *facts, unsigned int max, char *err,
		      unsigned int errlen);

/* the 4 KB UARs of a BAR of bytes, its first page not a UAR */
long long plan_bar_uars(long long bytes);

#endif
