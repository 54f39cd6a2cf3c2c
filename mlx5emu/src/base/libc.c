// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The real libc entry points (emu_libc.h), resolved on first use. */
#include <dlfcn.h>
#include <stdbool.h>

#include "emu_libc.h"

struct emu_libc emu_libc;

/* Idempotent and lazy: racing threads store the same values. */
void emu_libc_init(void)
{
	static bool resolved;

	if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		return;
#define EMU_LIBC_RESOLVE(ret, name, params)                                    \
	emu_libc.name = dlsym(RTLD_NEXT, #name);
	EMU_LIBC_CALLS(EMU_LIBC_RESOLVE)
#undef EMU_LIBC_RESOLVE
	__atomic_store_n(&resolved, true, __ATOMIC_RELEASE);
}
