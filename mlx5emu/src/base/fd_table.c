// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Which fds are ours (cmd, event, netlink and rdma_cm fds) and the object
 * behind each: the layers that hand out an fd record it here, the libc
 * edge looks each call's fd up.
 */
#include <stdbool.h>
#include <stdint.h>

#include "emu_param.h"
#include "fd_table.h"

static struct {
	uint8_t kind;
	void *obj;
} fdtab[EMU_MAX_FDS];
static unsigned int nr_fds;

void emu_fd_set(int fd, enum emu_fd_kind kind, void *obj)
{
	fdtab[fd].obj = obj;
	__atomic_store_n(&fdtab[fd].kind, kind, __ATOMIC_RELEASE);
	__atomic_add_fetch(&nr_fds, 1, __ATOMIC_RELAXED);
}

void emu_fd_clear(int fd)
{
	__atomic_store_n(&fdtab[fd].kind, EMU_FD_NONE, __ATOMIC_RELEASE);
	fdtab[fd].obj = NULL;
	__atomic_sub_fetch(&nr_fds, 1, __ATOMIC_RELAXED);
}

void *emu_fd_get(int fd, enum emu_fd_kind kind)
{
	if (fd < 0 || fd >= EMU_MAX_FDS ||
	    !__atomic_load_n(&nr_fds, __ATOMIC_RELAXED))
		return NULL;
	if (__atomic_load_n(&fdtab[fd].kind, __ATOMIC_ACQUIRE) != kind)
		return NULL;
	return fdtab[fd].obj;
}

void *emu_fd_find(int fd, enum emu_fd_kind *kind)
{
	if (fd < 0 || fd >= EMU_MAX_FDS ||
	    !__atomic_load_n(&nr_fds, __ATOMIC_RELAXED))
		return NULL;
	*kind = __atomic_load_n(&fdtab[fd].kind, __ATOMIC_ACQUIRE);
	if (*kind == EMU_FD_NONE)
		return NULL;
	return fdtab[fd].obj;
}

static bool dups_made;

int emu_fd_dup(int oldfd, int newfd)
{
	void *ctx = emu_fd_get(oldfd, EMU_FD_CMD);

	if (ctx && newfd >= 0 && newfd < EMU_MAX_FDS) {
		if (emu_fd_get(newfd, EMU_FD_CMD))
			emu_fd_clear(newfd);
		__atomic_store_n(&dups_made, true, __ATOMIC_RELAXED);
		emu_fd_set(newfd, EMU_FD_CMD, ctx);
	}
	return newfd;
}

void emu_fd_forget_copies(void *ctx, int keep)
{
	int fd;

	if (!__atomic_load_n(&dups_made, __ATOMIC_RELAXED))
		return;
	for (fd = 0; fd < EMU_MAX_FDS; fd++)
		if (fd != keep && fdtab[fd].obj == ctx &&
		    __atomic_load_n(&fdtab[fd].kind, __ATOMIC_ACQUIRE) ==
			    EMU_FD_CMD)
			emu_fd_clear(fd);
}
