/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the endpoints cost, measured three ways and labelled by source:
 *
 *  maps    UAR pages allocated: the process's mappings of the device
 *          (/proc/self/maps), read before and after the row's contexts
 *          are built: the writable ones only (the clock pages are
 *          read-only), each device page once (the emulator maps an alias
 *          of every page it hands out, in a file per context).
 *  bf.reg  UAR pages and uUARs used: the BlueFlame register each QP rings
 *          (mlx5dv_init_obj), and from it the mapping level of each thread.
 *  emu     the emulated device's own accounting (mlx5emu stat), when the
 *          program runs under mlx5emu.
 */
#ifndef WMT_ACCOUNTING_H
#define WMT_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wmt_mapping {
	uintptr_t start, end;
	uint64_t offset;
	uint64_t inode;
	bool writable;
	char path[96];
};

struct wmt_maps {
	struct wmt_mapping *m;
	size_t n;
};

int wmt_maps_snapshot(struct wmt_maps *s);
void wmt_maps_free(struct wmt_maps *s);

/*
 * 4 KB device pages mapped writable between before and after through the
 * device files behind the contexts' cmd_fds; *mappings gets how many
 * mappings that took (aliases included). One pair of snapshots around all
 * contexts: a read per context made setup quadratic.
 */
unsigned int wmt_maps_device_pages(const struct wmt_maps *before,
				   const struct wmt_maps *after,
				   const int *cmd_fds, unsigned int nfds,
				   unsigned int *mappings);

/* the mapping levels of paper Fig. 4(b) */
enum wmt_level {
	LEVEL_OWN_UAR = 1,
	LEVEL_SHARED_UAR = 2,
	LEVEL_SHARED_UUAR = 3,
	LEVEL_SHARED_QP = 4,
};

/* a uUAR is a 0x200-byte BlueFlame register pair inside a 4 KB UAR */
static inline uintptr_t wmt_uuar(uintptr_t bf_reg)
{
	return bf_reg & ~(uintptr_t)0x1ff;
}

static inline uintptr_t wmt_uar_page(uintptr_t bf_reg)
{
	return bf_reg & ~(uintptr_t)0xfff;
}

/*
 * regs[q]: the register QP q rings, users[q] the threads posting on it
 * (QPs nobody uses are skipped). Fills the distinct pages and uUARs
 * rung, and level[q] for each used QP.
 */
void wmt_bf_usage(const uintptr_t *regs, const unsigned int *users,
		  unsigned int nqps, unsigned int *pages, unsigned int *uuars,
		  enum wmt_level *level);

/*
 * The emulator's count of the 4 KB UARs held by the contexts that own the
 * given QPs. Returns 0, or -1 when not running under mlx5emu.
 */
int wmt_emu_uars(const uint32_t *qpns, unsigned int nqpns, unsigned int *uars,
		 unsigned int *contexts);

#endif
