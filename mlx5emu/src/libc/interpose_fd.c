// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The dup() family, which may copy a cmd fd: the copy names the same
 * context in the fd table (base/fd_table.c).
 */
#include <fcntl.h>
#include <stdarg.h>

#include "verbs/mlx5emu.h"

int dup(int fd)
{
	emu_libc_init();
	return emu_fd_dup(fd, emu_libc.dup(fd));
}

int dup2(int fd, int newfd)
{
	emu_libc_init();
	return emu_fd_dup(fd, emu_libc.dup2(fd, newfd));
}

int dup3(int fd, int newfd, int flags)
{
	emu_libc_init();
	return emu_fd_dup(fd, emu_libc.dup3(fd, newfd, flags));
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
		emu_fd_dup(fd, ret);
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
