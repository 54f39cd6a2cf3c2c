/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* uaccess.c: the application's memory as copy_from/to_user see it */
#ifndef MLX5EMU_UACCESS_H
#define MLX5EMU_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * May the range be read (prot PROT_READ) or written (PROT_WRITE)?
 * copy_from_user: 0 or -EFAULT.
 */
bool emu_access_ok(uint64_t addr, uint64_t len, int prot);
int emu_copy_from_user(void *dst, const void *src, size_t len);
/*
 * pin_check.c: 0, or -EFAULT where pinning the range (for writing) would
 * fault to the application's own userfaultfd
 */
int emu_pin_check(uint64_t addr, uint64_t len, bool write);
/* device memory (UAR mappings), which no range may touch: set at load */
void emu_access_set_io_check(bool (*mapped)(uint64_t addr, uint64_t len));

#endif
