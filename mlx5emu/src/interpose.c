// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libc symbol interposition: with interpose_fd.c, interpose_path.c and
 * interpose_net.c the only files that know about LD_PRELOAD. Calls on
 * /dev/infiniband/uverbsN and on the fds we hand out are routed to the
 * emulated kernel; everything else goes straight to libc. This file: the
 * real libc entry points, and I/O on our fds.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mlx5emu.h"

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

static void forked(void)
{
	emu_uar_forked();
	emu_stat_forked();
}

__attribute__((constructor)) static void emu_ctor(void)
{
	emu_libc_init();
	pthread_atfork(NULL, NULL, forked);
}

__attribute__((destructor)) static void emu_dtor(void)
{
	emu_stat_exit();
}

/*
 * A fork() child shares the parent's uverbs files but not our memory: it
 * may close them (that only drops its reference, as in the kernel), but
 * commands on them are refused instead of acting on a stale copy.
 */
static struct emu_context *own_ctx(int fd, bool *inherited)
{
	struct emu_context *ctx = emu_fd_get(fd, EMU_FD_CMD);

	*inherited = ctx && ctx->pid != getpid();
	return ctx;
}

/* ------------------------------------------------------------------ */
/* I/O on our fds                                                      */

/*
 * The context of our cmd fd, else NULL; *refused when the call fails with
 * errno set: EIO on an inherited cmd fd, ev_errno on an event fd.
 */
static struct emu_context *cmd_fd(int fd, int ev_errno, bool *refused)
{
	bool inherited;
	struct emu_context *ctx = own_ctx(fd, &inherited);

	emu_libc_init();
	*refused = false;
	if (inherited) {
		errno = EIO;
		*refused = true;
		return NULL;
	}
	if (!ctx && emu_fd_get(fd, EMU_FD_EVENT)) {
		errno = ev_errno;
		*refused = true;
	}
	return ctx;
}

int ioctl(int fd, unsigned long req, ...)
{
	struct emu_context *ctx;
	bool refused;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	ctx = cmd_fd(fd, ENOTTY, &refused);
	if (ctx && ctx->maps_unseen)
		emu_uar_sync(ctx);
	if (ctx)
		return emu_uverbs_ioctl(ctx, req, arg);
	if (refused)
		return -1;
	return emu_libc.ioctl(fd, req, arg);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	bool refused;
	struct emu_context *ctx = cmd_fd(fd, EINVAL, &refused);
	struct emu_netlink *nl = emu_fd_get(fd, EMU_FD_NETLINK);
	struct ucma_file *cm = emu_fd_get(fd, EMU_FD_UCMA);

	if (nl)
		return emu_netlink_send_buf(nl, buf, count);
	if (cm)
		return ucma_write(cm, fd, buf, count);
	if (ctx && ctx->maps_unseen)
		emu_uar_sync(ctx);
	if (ctx)
		return emu_uverbs_write(ctx, buf, count);
	if (refused)
		return -1;
	return emu_libc.write(fd, buf, count);
}

ssize_t read(int fd, void *buf, size_t count)
{
	struct emu_event_file *ev = emu_fd_get(fd, EMU_FD_EVENT);

	emu_libc_init();
	if (ev)
		return emu_event_read(ev, fd, buf, count);
	if (emu_fd_get(fd, EMU_FD_CMD) || emu_fd_get(fd, EMU_FD_UCMA)) {
		/* the uverbs and rdma_cm cdevs have no read method */
		errno = EINVAL;
		return -1;
	}
	return emu_libc.read(fd, buf, count);
}

int close(int fd)
{
	bool inherited;
	struct emu_context *ctx = own_ctx(fd, &inherited);
	struct emu_event_file *ev;
	struct emu_netlink *nl;
	struct ucma_file *cm;

	emu_libc_init();
	/* a copy (inherited or dup()ed) drops only its own reference */
	if (inherited || (ctx && fd != ctx->fd)) {
		emu_fd_clear(fd);
		return emu_libc.close(fd);
	}
	if (ctx) {
		emu_fd_forget_copies(ctx);
		emu_context_close(ctx);
		return 0;
	}
	ev = emu_fd_get(fd, EMU_FD_EVENT);
	if (ev) {
		emu_fd_clear(fd);
		emu_event_file_closed(ev);
		return 0;
	}
	cm = emu_fd_get(fd, EMU_FD_UCMA);
	if (cm) {
		ucma_close(cm);
		return 0;
	}
	nl = emu_fd_get(fd, EMU_FD_NETLINK);
	if (nl) {
		emu_fd_clear(fd);
		emu_netlink_close(nl);
	}
	return emu_libc.close(fd);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	bool refused;
	struct emu_context *ctx = cmd_fd(fd, ENODEV, &refused);

	if (ctx)
		return emu_uar_mmap(ctx, addr, len, prot, flags, off);
	if (refused)
		return MAP_FAILED;
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
