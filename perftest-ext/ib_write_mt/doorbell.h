/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * --doorbell: the environment levers libmlx5 reads when a context opens,
 * set around the initiator's endpoints only; and what the emulated NIC
 * counted for a row (mlx5emu's traffic record of this process, before
 * and after), per message and as PCIe bytes (breakdown/pcie.h).
 */
#ifndef WMT_DOORBELL_H
#define WMT_DOORBELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ib_write_mt.h"

/* the process's totals from `mlx5emu stat` (traffic ... qpn=all) */
struct wmt_traffic {
	bool valid;
	uint64_t bf, bf_blocks, db, fetched_bbs;
	uint64_t payload_read, payload_written, cqes;
};

/* a row's counts, per message posted (the warm-up's included) */
struct wmt_doorbell_counts {
	bool counted; /* false: not on the emulated device */
	uint64_t posted;
	struct wmt_traffic d; /* the row's share of the totals */
	double mmio; /* MMIO writes: BlueFlame blocks and doorbells */
	double wqe_bytes; /* WQE bytes the NIC fetched by DMA */
	double pcie_bytes; /* modelled */
};

/*
 * Can the row have its mode at all? 0, or PERFTEST_EXIT_UNAVAILABLE with
 * the reason: libmlx5 never copies a post list to the BlueFlame register.
 */
int wmt_doorbell_check(const struct wmt_options *o, char *why, size_t len);

/* set the mode's levers before the initiator's contexts open; undo after */
struct wmt_doorbell_env {
	char *saved[2];
	bool had[2];
};
void wmt_doorbell_set(const struct wmt_options *o, struct wmt_doorbell_env *e);
void wmt_doorbell_restore(struct wmt_doorbell_env *e);

void wmt_traffic_read(struct wmt_traffic *t);
/* after - before over posted messages; not counted unless after is valid */
void wmt_doorbell_account(struct wmt_doorbell_counts *c,
			  const struct wmt_traffic *before,
			  const struct wmt_traffic *after, uint64_t posted);

#endif
