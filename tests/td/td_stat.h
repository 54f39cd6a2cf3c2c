/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * This process's attribution file, read directly (the records
 * `mlx5emu stat --machine` prints): cheap enough to read every round.
 */
#ifndef TD_STAT_H
#define TD_STAT_H

#include <stdbool.h>
#include <stdint.h>

/* 4 KB BlueFlame UARs the process's contexts hold (UAR objects, ALLOC_WC) */
unsigned int td_stat_held_uars(void);

/*
 * The doorbells the NIC saw from QP qpn: the HW UAR and the registers
 * (bit 0: +0x800 .. bit 7: +0xf00) they landed on. Returns false if none.
 */
bool td_stat_rings(uint32_t qpn, uint32_t *uar, unsigned int *slots);

#endif
