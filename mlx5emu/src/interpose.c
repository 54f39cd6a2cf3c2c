// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libc symbol interposition: the only file that knows about LD_PRELOAD.
 * Calls on /dev/infiniband/uverbsN and on the fds we hand out are routed to
 * the emulated kernel; everything else goes straight to libc.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
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
static int (*real_dup)(int fd);
static int (*real_dup2)(int fd, int newfd);
static int (*real_dup3)(int fd, int newfd, int flags);
static int (*real_fcntl)(int fd, int cmd, ...);
static FILE *(*real_fopen)(const char *path, const char *mode);
static DIR *(*real_opendir)(const char *path);
static ssize_t (*real_readlink)(const char *path, char *buf, size_t len);
static ssize_t (*real_readlinkat)(int dirfd, const char *path, char *buf,
				  size_t len);
static char *(*real_realpath)(const char *path, char *resolved);
static ssize_t (*real_getxattr)(const char *path, const char *name, void *val,
				size_t len);
static ssize_t (*real_lgetxattr)(const char *path, const char *name, void *val,
				 size_t len);
static int (*real_faccessat)(int dirfd, const char *path, int mode, int flags);
static int (*real_bind)(int fd, const struct sockaddr *addr, socklen_t len);
static int (*real_getsockname)(int fd, struct sockaddr *addr, socklen_t *len);
static ssize_t (*real_sendto)(int fd, const void *buf, size_t len, int flags,
			      const struct sockaddr *to, socklen_t tolen);
static ssize_t (*real_sendmsg)(int fd, const struct msghdr *msg, int flags);
static ssize_t (*real_recvfrom)(int fd, void *buf, size_t len, int flags,
				struct sockaddr *from, socklen_t *fromlen);

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
	real_dup = next("dup");
	real_dup2 = next("dup2");
	real_dup3 = next("dup3");
	real_fcntl = next("fcntl");
	real_fopen = next("fopen");
	real_opendir = next("opendir");
	real_readlink = next("readlink");
	real_readlinkat = next("readlinkat");
	real_realpath = next("realpath");
	real_getxattr = next("getxattr");
	real_lgetxattr = next("lgetxattr");
	real_faccessat = next("faccessat");
	real_bind = next("bind");
	real_getsockname = next("getsockname");
	real_sendto = next("sendto");
	real_sendmsg = next("sendmsg");
	real_recvfrom = next("recvfrom");
	emu_libc.recvmsg = next("recvmsg");
	emu_libc.setsockopt = next("setsockopt");
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
	return track_dup(fd, real_dup(fd));
}

int dup2(int fd, int newfd)
{
	emu_libc_init();
	return track_dup(fd, real_dup2(fd, newfd));
}

int dup3(int fd, int newfd, int flags)
{
	emu_libc_init();
	return track_dup(fd, real_dup3(fd, newfd, flags));
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
	ret = real_fcntl(fd, cmd, arg);
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

	char buf[PATH_MAX];

	if (cdev_open(path, flags, &fd))
		return fd;
	va_start(ap, flags);
	mode = va_mode(flags, ap);
	va_end(ap);
	return real_open(emu_sysfs_path(path, buf, sizeof(buf)), flags, mode);
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

	char buf[PATH_MAX];

	if (cdev_open(path, flags, &fd))
		return fd;
	va_start(ap, flags);
	mode = va_mode(flags, ap);
	va_end(ap);
	return real_openat(dirfd, emu_sysfs_path(path, buf, sizeof(buf)), flags,
			   mode);
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
	char buf[PATH_MAX];

	if (cdev_stat(emu_cdev_index(path), st))
		return 0;
	return real_stat(emu_sysfs_path(path, buf, sizeof(buf)), st);
}

int lstat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];

	if (cdev_stat(emu_cdev_index(path), st))
		return 0;
	return real_lstat(emu_sysfs_path(path, buf, sizeof(buf)), st);
}

int fstat(int fd, struct stat *st)
{
	if (cdev_stat(fd_index(fd), st))
		return 0;
	return real_fstat(fd, st);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];

	if (cdev_stat(path_or_fd_index(dirfd, path, flags), st))
		return 0;
	return real_fstatat(dirfd, emu_sysfs_path(path, buf, sizeof(buf)), st,
			    flags);
}

int statx(int dirfd, const char *path, int flags, unsigned int mask,
	  struct statx *stx)
{
	int index = path_or_fd_index(dirfd, path, flags);
	char buf[PATH_MAX];

	emu_libc_init();
	if (index >= 0) {
		fake_statx(stx, index);
		return 0;
	}
	return real_statx(dirfd, emu_sysfs_path(path, buf, sizeof(buf)), flags,
			  mask, stx);
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
	if (ctx && ctx->maps_unseen)
		emu_uar_sync(ctx);
	if (ctx)
		return emu_uverbs_ioctl(ctx, req, arg);
	if (refused)
		return -1;
	return emu_libc.ioctl(fd, req, arg);
}

static ssize_t netlink_send_buf(struct emu_netlink *nl, const void *buf,
				size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	return emu_netlink_send(nl, &msg);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	bool refused;
	struct emu_context *ctx = cmd_fd(fd, EINVAL, &refused);
	struct emu_netlink *nl = emu_fd_get(fd, EMU_FD_NETLINK);

	if (nl)
		return netlink_send_buf(nl, buf, count);
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
	struct emu_netlink *nl;

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

/* ------------------------------------------------------------------ */
/* access(): the cdev is crw-rw-rw-                                     */

/* the cdev is answered here; everything else, /sys mapped, by libc */
int faccessat(int dirfd, const char *path, int mode, int flags)
{
	char buf[PATH_MAX];

	emu_libc_init();
	if (emu_cdev_index(path) < 0)
		return real_faccessat(dirfd,
				      emu_sysfs_path(path, buf, sizeof(buf)),
				      mode, flags);
	if (mode & X_OK) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

int access(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, 0);
}

int euidaccess(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS);
}

int eaccess(const char *path, int mode)
{
	return euidaccess(path, mode);
}

/* ------------------------------------------------------------------ */
/* the rest of the path-taking calls that reach /sys/class/infiniband   */

FILE *fopen(const char *path, const char *mode)
{
	char buf[PATH_MAX];

	emu_libc_init();
	return real_fopen(emu_sysfs_path(path, buf, sizeof(buf)), mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
}

DIR *opendir(const char *path)
{
	char buf[PATH_MAX];

	emu_libc_init();
	return real_opendir(emu_sysfs_path(path, buf, sizeof(buf)));
}

ssize_t readlink(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];

	emu_libc_init();
	return real_readlink(emu_sysfs_path(path, buf, sizeof(buf)), out, len);
}

ssize_t readlinkat(int dirfd, const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];

	emu_libc_init();
	return real_readlinkat(dirfd, emu_sysfs_path(path, buf, sizeof(buf)),
			       out, len);
}

/* ls -l asks for the security label of each entry */
ssize_t getxattr(const char *path, const char *name, void *val, size_t len)
{
	char buf[PATH_MAX];

	emu_libc_init();
	return real_getxattr(emu_sysfs_path(path, buf, sizeof(buf)), name, val,
			     len);
}

ssize_t lgetxattr(const char *path, const char *name, void *val, size_t len)
{
	char buf[PATH_MAX];

	emu_libc_init();
	return real_lgetxattr(emu_sysfs_path(path, buf, sizeof(buf)), name, val,
			      len);
}

/* The tree's symlinks resolve inside it; the answer is shown under /sys. */
char *realpath(const char *path, char *resolved)
{
	char buf[PATH_MAX];
	const char *p;
	char *ret;

	emu_libc_init();
	p = emu_sysfs_path(path, buf, sizeof(buf));
	ret = real_realpath(p, resolved);
	if (ret && p != path)
		emu_sysfs_unmap(ret);
	return ret;
}

char *__realpath_chk(const char *path, char *resolved, size_t len);
char *__realpath_chk(const char *path, char *resolved, size_t len)
{
	(void)len; /* resolved is PATH_MAX by contract */
	return realpath(path, resolved);
}

char *canonicalize_file_name(const char *path)
{
	return realpath(path, NULL);
}

/* ------------------------------------------------------------------ */
/* RDMA netlink sockets (netlink.c); --netlink=off refuses them        */

int socket(int domain, int type, int protocol)
{
	emu_libc_init();
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		emu_init();
		if (emu_cfg.netlink)
			return emu_netlink_socket(type);
		/* libibverbs then falls back to sysfs */
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return real_socket(domain, type, protocol);
}

static struct emu_netlink *netlink_fd(int fd)
{
	emu_libc_init();
	return emu_fd_get(fd, EMU_FD_NETLINK);
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_bind(nl, addr, len) : real_bind(fd, addr, len);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_getsockname(nl, addr, len) :
		    real_getsockname(fd, addr, len);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_setsockopt(nl, fd, level, name, val, len) :
		    emu_libc.setsockopt(fd, level, name, val, len);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? netlink_send_buf(nl, buf, len) :
		    real_sendto(fd, buf, len, flags, to, tolen);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_send(nl, msg) : real_sendmsg(fd, msg, flags);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	return netlink_fd(fd) ? emu_netlink_recv(fd, msg, flags) :
				emu_libc.recvmsg(fd, msg, flags);
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
		 struct sockaddr *from, socklen_t *fromlen)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (!netlink_fd(fd))
		return real_recvfrom(fd, buf, len, flags, from, fromlen);
	msg.msg_name = from;
	msg.msg_namelen = fromlen ? *fromlen : 0;
	n = emu_netlink_recv(fd, &msg, flags);
	if (n >= 0 && fromlen)
		*fromlen = msg.msg_namelen;
	return n;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}
