// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libc symbol interposition: with interpose_fd.c, interpose_path.c and
 * interpose_net.c the only files that know about LD_PRELOAD. Calls on
 * /dev/infiniband/uverbsN and on the fds we hand out are routed to the
 * emulated kernel; everything else goes straight to libc (base/libc.c
 * holds the real entry points). This file: I/O on our fds, through the
 * file operations of their kind.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs/mlx5emu.h"

__attribute__((constructor)) static void emu_ctor(void)
{
	emu_libc_init();
}

__attribute__((destructor)) static void emu_dtor(void)
{
	emu_stat_exit();
}

/* ------------------------------------------------------------------ */
/* I/O on our fds: each kind's file operations (kernel/fops.c)         */

static const struct emu_fd_ops *const fd_fops[] = {
	[EMU_FD_CMD] = &emu_uverbs_fops,
	[EMU_FD_EVENT] = &emu_event_fops,
	[EMU_FD_NETLINK] = &emu_netlink_fops,
	[EMU_FD_UCMA] = &emu_ucma_fops,
};

/* the file operations of our fd and its object in *obj, else NULL */
static const struct emu_fd_ops *fd_ops(int fd, void **obj)
{
	enum emu_fd_kind kind;

	emu_libc_init();
	*obj = emu_fd_find(fd, &kind);
	return *obj ? fd_fops[kind] : NULL;
}

int ioctl(int fd, unsigned long req, ...)
{
	const struct emu_fd_ops *ops;
	va_list ap;
	void *arg, *obj;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	ops = fd_ops(fd, &obj);
	if (ops && ops->ioctl)
		return ops->ioctl(obj, req, arg);
	return emu_libc.ioctl(fd, req, arg);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	void *obj;
	const struct emu_fd_ops *ops = fd_ops(fd, &obj);

	if (ops && ops->write)
		return ops->write(obj, fd, buf, count);
	return emu_libc.write(fd, buf, count);
}

ssize_t read(int fd, void *buf, size_t count)
{
	void *obj;
	const struct emu_fd_ops *ops = fd_ops(fd, &obj);

	if (ops && ops->read)
		return ops->read(obj, fd, buf, count);
	return emu_libc.read(fd, buf, count);
}

int close(int fd)
{
	void *obj;
	const struct emu_fd_ops *ops = fd_ops(fd, &obj);

	if (ops && ops->close)
		return ops->close(obj, fd);
	return emu_libc.close(fd);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *obj;
	const struct emu_fd_ops *ops = fd_ops(fd, &obj);

	if (ops && ops->mmap)
		return ops->mmap(obj, addr, len, prot, flags, off);
	return emu_libc.mmap(addr, len, prot, flags, fd, off);
}

/* off64_t is off_t on LP64 */
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
	__attribute__((alias("mmap")));

int munmap(void *addr, size_t len)
{
	int ret;

	emu_libc_init();
	ret = emu_libc.munmap(addr, len);
	if (!ret)
		emu_uar_munmap(addr, len);
	return ret;
}
