// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * User memory as the kernel's uaccess and umem pinning see it: every
 * pointer a command carries (the command itself, responses, ioctl
 * attributes, rings, doorbell records, MRs) is checked here before it is
 * read, written or kept, and a bad one answers EFAULT.
 *
 * The check reads the process's mappings and their permissions from
 * /proc/self/maps, which is what get_user_pages() looks at. Probes that
 * touch the memory were the alternatives: process_vm_readv/writev on our
 * own pid (refused by some container seccomp profiles) or write()/read()
 * through a pipe. Both can prove readability, but proving writability
 * means writing, which races with the application's other threads on
 * shared doorbell pages and on memory being registered while in use.
 * The map's permissions leave the memory alone; the cost, one read of
 * the maps file per check, is paid on the control path only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mlx5emu.h"

int emu_access_ok(uint64_t addr, uint64_t len, int prot)
{
	uint64_t cur = addr, end = addr + len;
	char buf[8192];
	size_t have = 0;
	bool eof = false;
	int fd, ret = -EFAULT;

	if (!len)
		return 0;
	if (end < addr)
		return -EFAULT;
	/* the raw syscalls: none of our interposed entry points */
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/maps",
		     O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EFAULT;
	for (;;) {
		char *nl, perms[5];
		unsigned long start, stop;

		nl = memchr(buf, '\n', have);
		if (!nl && !eof) {
			ssize_t n = syscall(SYS_read, fd, buf + have,
					    sizeof(buf) - 1 - have);

			if (n <= 0)
				eof = true;
			else
				have += n;
			continue;
		}
		if (!nl)
			break;
		*nl = 0;
		if (sscanf(buf, "%lx-%lx %4s", &start, &stop, perms) == 3 &&
		    stop > cur) {
			/* lines come in address order: a gap ends it */
			if (start > cur)
				break;
			if (((prot & PROT_READ) && perms[0] != 'r') ||
			    ((prot & PROT_WRITE) && perms[1] != 'w'))
				break;
			cur = stop;
			if (cur >= end) {
				ret = 0;
				break;
			}
		}
		have -= nl + 1 - buf;
		memmove(buf, nl + 1, have);
	}
	syscall(SYS_close, fd);
	return ret;
}

int emu_copy_from_user(void *dst, const void *src, size_t len)
{
	int ret = emu_access_ok((uintptr_t)src, len, PROT_READ);

	if (!ret)
		memcpy(dst, src, len);
	return ret;
}
