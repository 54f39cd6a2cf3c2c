/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* fd_table.c: which fds are ours, and what each one is */
#ifndef MLX5EMU_FD_TABLE_H
#define MLX5EMU_FD_TABLE_H

enum emu_fd_kind {
	EMU_FD_NONE,
	EMU_FD_CMD,
	EMU_FD_EVENT,
	EMU_FD_NETLINK,
	EMU_FD_UCMA,
};

#include <stddef.h>
#include <sys/types.h>

/*
 * What each kind of fd does (file_operations' job; kernel/fops.c): an
 * operation left NULL passes the call on to libc on the real fd.
 */
struct emu_fd_ops {
	ssize_t (*read)(void *obj, int fd, void *buf, size_t count);
	ssize_t (*write)(void *obj, int fd, const void *buf, size_t count);
	int (*ioctl)(void *obj, unsigned long req, void *arg);
	void *(*mmap)(void *obj, void *addr, size_t len, int prot, int flags,
		      off_t off);
	int (*close)(void *obj, int fd);
};

void emu_fd_set(int fd, enum emu_fd_kind kind, void *obj);
/* our fd's object and its kind, else NULL */
void *emu_fd_find(int fd, enum emu_fd_kind *kind);
void *emu_fd_get(int fd, enum emu_fd_kind kind);
void emu_fd_clear(int fd);
/*
 * A dup() of a cmd fd names the same context (ibv_import_device): newfd,
 * which dup() returned for oldfd, is then ours too; returns newfd.
 */
int emu_fd_dup(int oldfd, int newfd);
/* the context ctx goes: its cmd fds but keep are plain fds from now on */
void emu_fd_forget_copies(void *ctx, int keep);

#endif
