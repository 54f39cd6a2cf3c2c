/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* fork.c: the library's one fork() hook */
#ifndef MLX5EMU_FORK_H
#define MLX5EMU_FORK_H

/*
 * What a part of the library does around fork(), as pthread_atfork()'s
 * three handlers (any may be NULL): prepare in the parent before, parent
 * after, child in the child. A hook lives as long as the library.
 */
struct emu_fork_hook {
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(void);
};

/* at init: run h at every fork() from now on */
void emu_fork_register(const struct emu_fork_hook *h);

#endif
