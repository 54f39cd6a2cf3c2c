// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Which fds are ours (cmd, event and netlink fds), and the dup() family
 * that copies a cmd fd.
 */
#include <fcntl.h>
#include <stdarg.h>

#include "mlx5emu.h"

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

static bool dups_made;

/* a dup() of a cmd fd names the same context (ibv_import_device) */
static int track_dup(int oldfd, int newfd)
{
	struct emu_context *ctx = emu_fd_get(oldfd, EMU_FD_CMD);

	if (ctx && newfd >= 0 && newfd < EMU_MAX_FDS) {
		if (emu_fd_get(newfd, EMU_FD_CMD))
			emu_fd_clear(newfd);
		__atomic_store_n(&dups_made, true, __ATOMIC_RELAXED);
		emu_fd_set(newfd, EMU_FD_CMD, ctx);
	}
	return newfd;
}

/* the context goes: its copies are plain fds from now on */
void emu_fd_forget_copies(struct emu_context *ctx)
{
	int fd;

	if (!__atomic_load_n(&dups_made, __ATOMIC_RELAXED))
		return;
	for (fd = 0; fd < EMU_MAX_FDS; fd++)
		if (fd != ctx->fd && fdtab[fd].obj == ctx &&
		    __atomic_load_n(&fdtab[fd].kind, __ATOMIC_ACQUIRE) ==
			    EMU_FD_CMD)
			emu_fd_clear(fd);
}

int dup(int fd)
{
	emu_libc_init();
	return track_dup(fd, emu_libc.dup(fd));
}

int dup2(int fd, int newfd)
{
	emu_libc_init();
	return track_dup(fd, emu_libc.dup2(fd, newfd));
}

int dup3(int fd, int newfd, int flags)
{
	emu_libc_init();
	return track_dup(fd, emu_libc.dup3(fd, newfd, flags));
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;
	int ret;

	emu_libc_init();
	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	ret = emu_libc.fcntl(fd, cmd, arg);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		track_dup(fd, ret);
	return ret;
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return fcntl(fd, cmd, arg);
}
