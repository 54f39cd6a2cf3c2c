// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The path-taking calls: the cdev /dev/infiniband/uverbsN is answered
 * here (open, stat, access), and /sys paths the emulated tree shadows are
 * mapped into it ($SYSFS_PATH, sysfs_path.c) before libc sees them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "verbs/mlx5emu.h"

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
	if (ucma_is_cdev(path)) {
		*fd = ucma_open(flags);
		return true;
	}
	if (index < 0)
		return false;
	*fd = open_cdev(index, flags);
	return true;
}

/* what openat() does from the working directory */
int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_mode(flags, ap);
	va_end(ap);
	return openat(AT_FDCWD, path, flags, mode);
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
	return emu_libc.openat(dirfd, emu_sysfs_path(path, buf, sizeof(buf)),
			       flags, mode);
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

/* Fills st for the rdma_cm cdev or one of its fds */
static bool ucma_stat(const char *path, int fd, struct stat *st)
{
	emu_libc_init();
	if (!(path ? ucma_is_cdev(path) : !!emu_fd_get(fd, EMU_FD_UCMA)))
		return false;
	ucma_fake_stat(st);
	return true;
}

int stat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];

	if (ucma_stat(path, -1, st))
		return 0;
	if (cdev_stat(emu_cdev_index(path), st))
		return 0;
	return emu_libc.stat(emu_sysfs_path(path, buf, sizeof(buf)), st);
}

int lstat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];

	if (ucma_stat(path, -1, st))
		return 0;
	if (cdev_stat(emu_cdev_index(path), st))
		return 0;
	return emu_libc.lstat(emu_sysfs_path(path, buf, sizeof(buf)), st);
}

int fstat(int fd, struct stat *st)
{
	if (ucma_stat(NULL, fd, st))
		return 0;
	if (cdev_stat(fd_index(fd), st))
		return 0;
	return emu_libc.fstat(fd, st);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];

	if (*path ? ucma_stat(path, -1, st) :
		    (flags & AT_EMPTY_PATH) && ucma_stat(NULL, dirfd, st))
		return 0;
	if (cdev_stat(path_or_fd_index(dirfd, path, flags), st))
		return 0;
	return emu_libc.fstatat(dirfd, emu_sysfs_path(path, buf, sizeof(buf)),
				st, flags);
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
	return emu_libc.statx(dirfd, emu_sysfs_path(path, buf, sizeof(buf)),
			      flags, mask, stx);
}

/* On LP64 glibc struct stat64 == struct stat; the 64 names are aliases. */
int stat64(const char *path, struct stat64 *st) __attribute__((alias("stat")));
int lstat64(const char *path, struct stat64 *st)
	__attribute__((alias("lstat")));
int fstat64(int fd, struct stat64 *st) __attribute__((alias("fstat")));
int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
	__attribute__((alias("fstatat")));

/*
 * Pre-2.33 glibc entry points (binaries built against older glibc import
 * these). The ver argument only selects the layout, identical on LP64.
 */
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
	       int flags);

int __xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return stat(path, st);
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return lstat(path, st);
}

int __fxstat(int ver, int fd, struct stat *st)
{
	(void)ver;
	return fstat(fd, st);
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ver;
	return fstatat(dirfd, path, st, flags);
}

int __xstat64(int ver, const char *path, struct stat64 *st)
	__attribute__((alias("__xstat")));
int __lxstat64(int ver, const char *path, struct stat64 *st)
	__attribute__((alias("__lxstat")));
int __fxstat64(int ver, int fd, struct stat64 *st)
	__attribute__((alias("__fxstat")));
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags) __attribute__((alias("__fxstatat")));

/* ------------------------------------------------------------------ */
/* access(): the cdev is crw-rw-rw-                                     */

/* the cdev is answered here; everything else, /sys mapped, by libc */
int faccessat(int dirfd, const char *path, int mode, int flags)
{
	char buf[PATH_MAX];

	emu_libc_init();
	if (emu_cdev_index(path) < 0 && !ucma_is_cdev(path))
		return emu_libc.faccessat(
			dirfd, emu_sysfs_path(path, buf, sizeof(buf)), mode,
			flags);
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

/*
 * The wrapper of a call that only needs its path mapped: ret name(params),
 * whose path parameter is named path, passed on to libc as args.
 */
#define SYSFS_PATH_CALL(ret, name, params, args)                               \
	ret name params                                                        \
	{                                                                      \
		char buf[PATH_MAX];                                            \
                                                                               \
		emu_libc_init();                                               \
		path = emu_sysfs_path(path, buf, sizeof(buf));                 \
		return emu_libc.name args;                                     \
	}

SYSFS_PATH_CALL(FILE *, fopen, (const char *path, const char *mode),
		(path, mode))
SYSFS_PATH_CALL(DIR *, opendir, (const char *path), (path))
SYSFS_PATH_CALL(ssize_t, readlink, (const char *path, char *out, size_t len),
		(path, out, len))
SYSFS_PATH_CALL(ssize_t, readlinkat,
		(int dirfd, const char *path, char *out, size_t len),
		(dirfd, path, out, len))
/* ls -l asks for the security label of each entry */
SYSFS_PATH_CALL(ssize_t, getxattr,
		(const char *path, const char *name, void *val, size_t len),
		(path, name, val, len))
SYSFS_PATH_CALL(ssize_t, lgetxattr,
		(const char *path, const char *name, void *val, size_t len),
		(path, name, val, len))

FILE *fopen64(const char *path, const char *mode)
	__attribute__((alias("fopen")));

/* The tree's symlinks resolve inside it; the answer is shown under /sys. */
char *realpath(const char *path, char *resolved)
{
	char buf[PATH_MAX];
	const char *p;
	char *ret;

	emu_libc_init();
	p = emu_sysfs_path(path, buf, sizeof(buf));
	ret = emu_libc.realpath(p, resolved);
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
