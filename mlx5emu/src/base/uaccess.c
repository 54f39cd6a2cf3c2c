// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * User memory as the kernel's uaccess and umem pinning see it: every
 * pointer a command carries (the command itself, responses, ioctl
 * attributes, rings, doorbell records, MRs) is checked here before it is
 * read, written or kept, and a bad one answers EFAULT.
 *
 * The check asks the kernel which mapping covers each address and with
 * which permissions, which is what get_user_pages() looks at: the
 * PROCMAP_QUERY ioctl of /proc/self/maps (Linux 6.11) answers one lookup
 * per mapping the range spans, whatever the number of mappings. Older
 * kernels fall back to reading the maps file, whose cost grows with the
 * process's mappings (one UAR page per thread domain adds one).
 * Probes that touch the memory were the alternatives: process_vm_readv on
 * our own pid (refused by some container seccomp profiles) or a pipe.
 * Both can prove readability, but proving writability means writing,
 * which races with the application's other threads on shared doorbell
 * pages and on memory being registered while in use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu_param.h"
#include "uaccess.h"

/* include/uapi/linux/fs.h (6.11); Debian 12's headers predate it */
struct emu_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};

#define EMU_PROCMAP_QUERY _IOWR('f', 17, struct emu_procmap_query)
#define EMU_PROCMAP_VMA_READABLE 0x01
#define EMU_PROCMAP_VMA_WRITABLE 0x02

enum { QUERY_UNKNOWN, QUERY_WORKS, QUERY_MISSING };
static int procmap_query_state = QUERY_UNKNOWN;

static bool perms_allow(bool readable, bool writable, int prot)
{
	return (readable || !(prot & PROT_READ)) &&
	       (writable || !(prot & PROT_WRITE));
}

/*
 * Walk [addr, end) one covering mapping at a time. Returns 0 or -EFAULT,
 * or -ENOTTY when the query cannot be made (an older kernel, a filter).
 */
static int access_ok_by_query(int fd, uint64_t addr, uint64_t end, int prot)
{
	uint64_t cur = addr;

	while (cur < end) {
		struct emu_procmap_query q = {
			.size = sizeof(q),
			.query_addr = cur,
		};

		if (syscall(SYS_ioctl, fd, EMU_PROCMAP_QUERY, &q)) {
			/* ENOENT: no mapping covers cur; else no query */
			return errno == ENOENT ? -EFAULT : -ENOTTY;
		}
		if (q.vma_start > cur || q.vma_end <= cur ||
		    !perms_allow(q.vma_flags & EMU_PROCMAP_VMA_READABLE,
				 q.vma_flags & EMU_PROCMAP_VMA_WRITABLE, prot))
			return -EFAULT;
		cur = q.vma_end;
	}
	return 0;
}

/* The text of the maps file, for kernels without PROCMAP_QUERY. */
static int access_ok_by_text(int fd, uint64_t addr, uint64_t end, int prot)
{
	uint64_t cur = addr;
	char buf[8192];
	size_t have = 0;
	bool eof = false;

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
			return -EFAULT;
		*nl = 0;
		if (sscanf(buf, "%lx-%lx %4s", &start, &stop, perms) == 3 &&
		    stop > cur) {
			/* lines come in address order: a gap ends it */
			if (start > cur || !perms_allow(perms[0] == 'r',
							perms[1] == 'w', prot))
				return -EFAULT;
			cur = stop;
			if (cur >= end)
				return 0;
		}
		have -= nl + 1 - buf;
		memmove(buf, nl + 1, have);
	}
}

/* the layer that maps device memory says where it is (uar_map.c) */
static bool (*io_mapped)(uint64_t addr, uint64_t len);

void emu_access_set_io_check(bool (*mapped)(uint64_t addr, uint64_t len))
{
	io_mapped = mapped;
}

static int access_check(uint64_t addr, uint64_t len, int prot)
{
	uint64_t end = addr + len;
	int fd, ret = -ENOTTY;

	if (!len)
		return 0;
	if (end < addr)
		return -EFAULT;
	/*
	 * Device memory: get_user_pages() refuses a UAR mapping (VM_IO), and
	 * the NIC thread must never write into one (nic/engine/doorbell_trap.c).
	 */
	if (io_mapped && io_mapped(addr, len))
		return -EFAULT;
	/*
	 * The raw syscalls: none of our interposed entry points. Opened per
	 * check because /proc/self is resolved at open, and a forked child
	 * must not ask about its parent.
	 */
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/maps",
		     O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EFAULT;
	if (emu_cfg.maps_query &&
	    __atomic_load_n(&procmap_query_state, __ATOMIC_RELAXED) !=
		    QUERY_MISSING) {
		ret = access_ok_by_query(fd, addr, end, prot);
		__atomic_store_n(&procmap_query_state,
				 ret == -ENOTTY ? QUERY_MISSING : QUERY_WORKS,
				 __ATOMIC_RELAXED);
	}
	if (ret == -ENOTTY)
		ret = access_ok_by_text(fd, addr, end, prot);
	syscall(SYS_close, fd);
	return ret;
}

bool emu_access_ok(uint64_t addr, uint64_t len, int prot)
{
	return !access_check(addr, len, prot);
}

int emu_copy_from_user(void *dst, const void *src, size_t len)
{
	if (!emu_access_ok((uintptr_t)src, len, PROT_READ))
		return -EFAULT;
	memcpy(dst, src, len);
	return 0;
}
