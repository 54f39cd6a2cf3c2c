/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one path for the system calls the library makes for itself (as
 * libuv's uv__close()): the real libc entry points, resolved once with
 * RTLD_NEXT (libc.c). The library exports interposers of the same names
 * (libc/), so a plain close() or socket() of its own would come back
 * through them; every file below the libc edge calls emu_libc.name()
 * instead. Calls libc has no pointer here for (open, recv, send) take
 * their general form: openat(AT_FDCWD, ...), recvfrom(), sendto().
 */
#ifndef MLX5EMU_LIBC_H
#define MLX5EMU_LIBC_H

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * The real libc entry points, resolved with RTLD_NEXT by emu_libc_init():
 * what we interpose and must pass on, and what the emulator itself uses
 * on its own fds.
 */
#define EMU_LIBC_CALLS(X)                                                      \
	X(int, close, (int fd))                                                \
	X(ssize_t, read, (int fd, void *buf, size_t count))                    \
	X(ssize_t, write, (int fd, const void *buf, size_t count))             \
	X(void *, mmap,                                                        \
	  (void *addr, size_t len, int prot, int flags, int fd, off_t off))    \
	X(int, munmap, (void *addr, size_t len))                               \
	X(int, ioctl, (int fd, unsigned long req, ...))                        \
	X(int, openat, (int dirfd, const char *path, int flags, ...))          \
	X(int, stat, (const char *path, struct stat *st))                      \
	X(int, lstat, (const char *path, struct stat *st))                     \
	X(int, fstat, (int fd, struct stat *st))                               \
	X(int, fstatat,                                                        \
	  (int dirfd, const char *path, struct stat *st, int flags))           \
	X(int, statx,                                                          \
	  (int dirfd, const char *path, int flags, unsigned int mask,          \
	   struct statx *stx))                                                 \
	X(int, faccessat, (int dirfd, const char *path, int mode, int flags))  \
	X(FILE *, fopen, (const char *path, const char *mode))                 \
	X(DIR *, opendir, (const char *path))                                  \
	X(ssize_t, readlink, (const char *path, char *buf, size_t len))        \
	X(ssize_t, readlinkat,                                                 \
	  (int dirfd, const char *path, char *buf, size_t len))                \
	X(char *, realpath, (const char *path, char *resolved))                \
	X(ssize_t, getxattr,                                                   \
	  (const char *path, const char *name, void *val, size_t len))         \
	X(ssize_t, lgetxattr,                                                  \
	  (const char *path, const char *name, void *val, size_t len))         \
	X(int, dup, (int fd))                                                  \
	X(int, dup2, (int fd, int newfd))                                      \
	X(int, dup3, (int fd, int newfd, int flags))                           \
	X(int, fcntl, (int fd, int cmd, ...))                                  \
	X(int, socket, (int domain, int type, int protocol))                   \
	X(int, bind, (int fd, const struct sockaddr *addr, socklen_t len))     \
	X(int, getsockname, (int fd, struct sockaddr *addr, socklen_t *len))   \
	X(int, setsockopt,                                                     \
	  (int fd, int level, int name, const void *val, socklen_t len))       \
	X(ssize_t, sendto,                                                     \
	  (int fd, const void *buf, size_t len, int flags,                     \
	   const struct sockaddr *to, socklen_t tolen))                        \
	X(ssize_t, sendmsg, (int fd, const struct msghdr *msg, int flags))     \
	X(ssize_t, recvfrom,                                                   \
	  (int fd, void *buf, size_t len, int flags, struct sockaddr *from,    \
	   socklen_t *fromlen))                                                \
	X(ssize_t, recvmsg, (int fd, struct msghdr *msg, int flags))           \
	X(int, sigaction,                                                      \
	  (int sig, const struct sigaction *act, struct sigaction *old))       \
	X(sighandler_t, signal, (int sig, sighandler_t handler))               \
	X(int, sigprocmask, (int how, const sigset_t *set, sigset_t *old))     \
	X(int, pthread_sigmask, (int how, const sigset_t *set, sigset_t *old))

struct emu_libc {
#define EMU_LIBC_POINTER(ret, name, params) ret(*name) params;
	EMU_LIBC_CALLS(EMU_LIBC_POINTER)
#undef EMU_LIBC_POINTER
};

extern struct emu_libc emu_libc;
void emu_libc_init(void);

#endif
