/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* sigbus.c: SIGBUS, taken for the doorbell trap and shared */
#ifndef MLX5EMU_SIGBUS_H
#define MLX5EMU_SIGBUS_H

#include <signal.h>
#include <stdbool.h>

/*
 * Take SIGBUS; doorbell(addr) says whether a fault at addr was a doorbell
 * it served. 0 or -errno.
 */
int emu_sigbus_claim(bool (*doorbell)(void *addr));
/* is SIGBUS ours? */
bool emu_sigbus_claimed(void);
/* while it is: the application's action, as sigaction() swaps it */
void emu_sigbus_app_action(const struct sigaction *act, struct sigaction *old);

#endif
