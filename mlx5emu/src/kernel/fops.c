// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The file operations of the fds the emulated kernel hands out, one table
 * per kind of fd (struct emu_fd_ops, as file_operations): the libc edge
 * (libc/interpose.c) looks the fd up and calls the kind's operation. An
 * operation left NULL passes the call on to libc on the real fd; one the
 * kernel's file has no method for fails as the kernel's would: read and
 * write with EINVAL, ioctl with ENOTTY, mmap with ENODEV.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs/mlx5emu.h"

static ssize_t no_read(void *obj, int fd, void *buf, size_t count)
{
	(void)obj, (void)fd, (void)buf, (void)count;
	errno = EINVAL;
	return -1;
}

static ssize_t no_write(void *obj, int fd, const void *buf, size_t count)
{
	(void)obj, (void)fd, (void)buf, (void)count;
	errno = EINVAL;
	return -1;
}

static int no_ioctl(void *obj, unsigned long req, void *arg)
{
	(void)obj, (void)req, (void)arg;
	errno = ENOTTY;
	return -1;
}

static void *no_mmap(void *obj, void *addr, size_t len, int prot, int flags,
		     off_t off)
{
	(void)obj, (void)addr, (void)len, (void)prot, (void)flags, (void)off;
	errno = ENODEV;
	return MAP_FAILED;
}

/* ---- /dev/infiniband/uverbsN ---- */

/*
 * A fork() child shares the parent's uverbs files but not our memory: it
 * may close them (that only drops its reference, as in the kernel), but
 * commands on them are refused instead of acting on a stale copy.
 */
static struct emu_context *own_ctx(void *obj)
{
	struct emu_context *ctx = obj;

	if (ctx->pid != getpid()) {
		errno = EIO;
		return NULL;
	}
	if (ctx->maps_unseen)
		emu_uar_sync(ctx);
	return ctx;
}

static ssize_t cmd_write(void *obj, int fd, const void *buf, size_t count)
{
	struct emu_context *ctx = own_ctx(obj);

	(void)fd;
	return ctx ? emu_uverbs_write(ctx, buf, count) : -1;
}

static int cmd_ioctl(void *obj, unsigned long req, void *arg)
{
	struct emu_context *ctx = own_ctx(obj);

	return ctx ? emu_uverbs_ioctl(ctx, req, arg) : -1;
}

static void *cmd_mmap(void *obj, void *addr, size_t len, int prot, int flags,
		      off_t off)
{
	struct emu_context *ctx = obj;

	if (ctx->pid != getpid()) {
		errno = EIO;
		return MAP_FAILED;
	}
	return emu_uar_mmap(ctx, addr, len, prot, flags, off);
}

static int cmd_close(void *obj, int fd)
{
	struct emu_context *ctx = obj;

	/* a copy (inherited or dup()ed) drops only its own reference */
	if (ctx->pid != getpid() || fd != ctx->fd) {
		emu_fd_clear(fd);
		return emu_libc.close(fd);
	}
	emu_fd_forget_copies(ctx, ctx->fd);
	emu_context_close(ctx);
	return 0;
}

/* the uverbs cdev has no read method */
const struct emu_fd_ops emu_uverbs_fops = {
	.read = no_read,
	.write = cmd_write,
	.ioctl = cmd_ioctl,
	.mmap = cmd_mmap,
	.close = cmd_close,
};

/* ---- completion channels and the async event file ---- */

static ssize_t event_read(void *obj, int fd, void *buf, size_t count)
{
	return emu_event_read(obj, fd, buf, count);
}

static int event_close(void *obj, int fd)
{
	emu_fd_clear(fd);
	emu_event_file_closed(obj);
	return 0;
}

/* poll() and epoll reach the eventfd itself */
const struct emu_fd_ops emu_event_fops = {
	.read = event_read,
	.write = no_write,
	.ioctl = no_ioctl,
	.mmap = no_mmap,
	.close = event_close,
};

/* ---- NETLINK_RDMA sockets: read() and the rest are the socket's ---- */

static ssize_t netlink_write(void *obj, int fd, const void *buf, size_t count)
{
	(void)fd;
	return emu_netlink_send_buf(obj, buf, count);
}

static int netlink_close(void *obj, int fd)
{
	emu_fd_clear(fd);
	emu_netlink_close(obj);
	return emu_libc.close(fd);
}

const struct emu_fd_ops emu_netlink_fops = {
	.write = netlink_write,
	.close = netlink_close,
};

/* ---- /dev/infiniband/rdma_cm: commands by write(), no read method ---- */

static ssize_t ucma_fop_write(void *obj, int fd, const void *buf, size_t count)
{
	return ucma_write(obj, fd, buf, count);
}

static int ucma_fop_close(void *obj, int fd)
{
	(void)fd;
	ucma_close(obj);
	return 0;
}

const struct emu_fd_ops emu_ucma_fops = {
	.read = no_read,
	.write = ucma_fop_write,
	.close = ucma_fop_close,
};
