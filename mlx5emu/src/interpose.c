// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libc symbol interposition: the only file that knows about LD_PRELOAD.
 * Calls on /dev/infiniband/uverbsN and on the fds we hand out are routed to
 * the emulated kernel; everything else goes straight to libc.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "mlx5emu.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

struct emu_libc emu_libc;

static int (*real_open)(const char *path, int flags, ...);
static int (*real_openat)(int dirfd, const char *path, int flags, ...);
static int (*real_stat)(const char *path, struct stat *st);
static int (*real_lstat)(const char *path, struct stat *st);
static int (*real_fstat)(int fd, struct stat *st);
static int (*real_fstatat)(int dirfd, const char *path, struct stat *st,
			   int flags);
static int (*real_statx)(int dirfd, const char *path, int flags,
			 unsigned int mask, struct statx *stx);
static int (*real_socket)(int domain, int type, int protocol);

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* Idempotent; racing threads store the same values. */
void emu_libc_init(void)
{
	if (__atomic_load_n(&real_socket, __ATOMIC_ACQUIRE))
		return;
	emu_libc.close = next("close");
	emu_libc.read = next("read");
	emu_libc.write = next("write");
	emu_libc.mmap = next("mmap");
	emu_libc.munmap = next("munmap");
	emu_libc.ioctl = next("ioctl");
	real_open = next("open");
	real_openat = next("openat");
	real_stat = next("stat");
	real_lstat = next("lstat");
	real_fstat = next("fstat");
	real_fstatat = next("fstatat");
	real_statx = next("statx");
	__atomic_store_n(&real_socket, next("socket"), __ATOMIC_RELEASE);
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

__attribute__((destructor)) static void emu_dtor(void)
{
	emu_stat_exit();
}

/* ------------------------------------------------------------------ */
/* fd table                                                            */

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

/* ------------------------------------------------------------------ */
/* open                                                                */

static int open_cdev(int index, int flags)
{
	struct emu_context *ctx = emu_context_open(index, flags);

	return ctx ? ctx->fd : -1;
}

static mode_t va_mode(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

/* Opens path if it names an emulated cdev; false: the call goes to libc */
static bool cdev_open(const char *path, int flags, int *fd)
{
	int index = emu_cdev_index(path);

	emu_libc_init();
	if (index < 0)
		return false;
	*fd = open_cdev(index, flags);
	return true;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	int fd;

	if (cdev_open(path, flags, &fd))
		return fd;
	va_start(ap, flags);
	mode = va_mode(flags, ap);
	va_end(ap);
	return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_mode(flags, ap);
	va_end(ap);
	return open(path, flags | O_LARGEFILE, mode);
}

int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags)
{
	return open(path, flags | O_LARGEFILE);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;
	int fd;

	if (cdev_open(path, flags, &fd))
		return fd;
	va_start(ap, flags);
	mode = va_mode(flags, ap);
	va_end(ap);
	return real_openat(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_mode(flags, ap);
	va_end(ap);
	return openat(dirfd, path, flags | O_LARGEFILE, mode);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags | O_LARGEFILE);
}

/* ------------------------------------------------------------------ */
/* stat family: the cdev and our cmd fds look like a character device  */

static void fake_stat(struct stat *st, unsigned int index)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(0, 6);
	st->st_ino = 1000 + index;
	st->st_mode = S_IFCHR | 0666;
	st->st_nlink = 1;
	st->st_rdev = emu_cdev_rdev(index);
	st->st_blksize = 4096;
}

static void fake_statx(struct statx *stx, unsigned int index)
{
	memset(stx, 0, sizeof(*stx));
	stx->stx_mask = STATX_BASIC_STATS;
	stx->stx_blksize = 4096;
	stx->stx_nlink = 1;
	stx->stx_mode = S_IFCHR | 0666;
	stx->stx_ino = 1000 + index;
	stx->stx_rdev_major = EMU_CDEV_MAJOR;
	stx->stx_rdev_minor = EMU_CDEV_MINOR_BASE + index;
	stx->stx_dev_minor = 6;
}

/* -1 if fd is not an emulated cdev, else the device index */
static int fd_index(int fd)
{
	struct emu_context *ctx = emu_fd_get(fd, EMU_FD_CMD);

	return ctx ? (int)ctx->dev->index : -1;
}

static int path_or_fd_index(int dirfd, const char *path, int flags)
{
	if (path && !*path && (flags & AT_EMPTY_PATH))
		return fd_index(dirfd);
	return emu_cdev_index(path);
}

/* Fills st if index names an emulated cdev; false: the call goes to libc */
static bool cdev_stat(int index, struct stat *st)
{
	emu_libc_init();
	if (index < 0)
		return false;
	fake_stat(st, index);
	return true;
}

int stat(const char *path, struct stat *st)
{
	if (cdev_stat(emu_cdev_index(path), st))
		return 0;
	return real_stat(path, st);
}

int lstat(const char *path, struct stat *st)
{
	if (cdev_stat(emu_cdev_index(path), st))
		return 0;
	return real_lstat(path, st);
}

int fstat(int fd, struct stat *st)
{
	if (cdev_stat(fd_index(fd), st))
		return 0;
	return real_fstat(fd, st);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	if (cdev_stat(path_or_fd_index(dirfd, path, flags), st))
		return 0;
	return real_fstatat(dirfd, path, st, flags);
}

int statx(int dirfd, const char *path, int flags, unsigned int mask,
	  struct statx *stx)
{
	int index = path_or_fd_index(dirfd, path, flags);

	emu_libc_init();
	if (index >= 0) {
		fake_statx(stx, index);
		return 0;
	}
	return real_statx(dirfd, path, flags, mask, stx);
}

/* On LP64 glibc struct stat64 == struct stat; the 64 names are aliases. */
int stat64(const char *path, struct stat64 *st)
{
	return stat(path, (struct stat *)st);
}

int lstat64(const char *path, struct stat64 *st)
{
	return lstat(path, (struct stat *)st);
}

int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

/*
 * Pre-2.33 glibc entry points (binaries built against older glibc import
 * these). The ver argument only selects the layout, identical on LP64.
 */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstat64(int ver, int fd, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
	       int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags);

int __xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return stat(path, st);
}

int __xstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	return stat64(path, st);
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return lstat(path, st);
}

int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	return lstat64(path, st);
}

int __fxstat(int ver, int fd, struct stat *st)
{
	(void)ver;
	return fstat(fd, st);
}

int __fxstat64(int ver, int fd, struct stat64 *st)
{
	(void)ver;
	return fstat64(fd, st);
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ver;
	return fstatat(dirfd, path, st, flags);
}

int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags)
{
	(void)ver;
	return fstatat64(dirfd, path, st, flags);
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
	if (emu_fd_get(fd, EMU_FD_CMD)) {
		/* the uverbs cdev has no read method */
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

	emu_libc_init();
	if (inherited) {
		emu_fd_clear(fd);
		return emu_libc.close(fd);
	}
	if (ctx) {
		emu_context_close(ctx);
		return 0;
	}
	ev = emu_fd_get(fd, EMU_FD_EVENT);
	if (ev) {
		emu_fd_clear(fd);
		emu_event_file_closed(ev);
		return 0;
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

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	int ret;

	emu_libc_init();
	ret = emu_libc.munmap(addr, len);
	if (!ret)
		emu_uar_munmap(addr, len);
	return ret;
}

/* Without an RDMA netlink socket libibverbs falls back to sysfs. */
int socket(int domain, int type, int protocol)
{
	emu_libc_init();
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return real_socket(domain, type, protocol);
}
