// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What ib_umem_get() cannot pin although the mapping's permissions allow
 * it: pages under the application's own userfaultfd. The kernel faults
 * an MR's pages in to pin them; a page that is missing in a range
 * registered for missing faults, or write-protected in one registered
 * for write protection when the MR may be written, is a fault only the
 * application's handler could resolve, and the pinning gives up with
 * EFAULT (a user-mode-only userfaultfd never sees kernel faults).
 *
 * The state of each page is in /proc/self/pagemap, the registration in
 * the mapping's VmFlags of /proc/self/smaps (um, uw). smaps is dear (it
 * counts every mapping's pages), so it is read only when a page of the
 * range is missing or write-protected.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu_libc.h"
#include "uaccess.h"

#define PM_PRESENT (1ULL << 63)
#define PM_SWAPPED (1ULL << 62)
#define PM_UFFD_WP (1ULL << 57)

#define PM_BATCH 512 /* pagemap entries per read */

/* would pinning [start, end) for writing (write) fault to the handler? */
static bool pages_fault(int pagemap, uint64_t start, uint64_t end, bool missing,
			bool wp)
{
	uint64_t ps = sysconf(_SC_PAGESIZE), ent[PM_BATCH];
	uint64_t pg = start / ps, last = (end + ps - 1) / ps;

	while (pg < last) {
		uint64_t n = last - pg < PM_BATCH ? last - pg : PM_BATCH, i;

		/* the raw call: none of our interposed entry points */
		if (syscall(SYS_pread64, pagemap, ent, n * sizeof(*ent),
			    (off_t)(pg * sizeof(*ent))) !=
		    (long)(n * sizeof(*ent)))
			return true;
		for (i = 0; i < n; i++)
			if ((missing &&
			     !(ent[i] & (PM_PRESENT | PM_SWAPPED))) ||
			    (wp && (ent[i] & PM_UFFD_WP)))
				return true;
		pg += n;
	}
	return false;
}

/* does a mapping registered with a userfaultfd hold such a page? */
static int registered_fault(int pagemap, uint64_t addr, uint64_t end,
			    bool write)
{
	uint64_t lo = 0, hi = 0;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = emu_libc.fopen("/proc/self/smaps", "re");
	if (!f)
		return 0; /* no smaps (a filter): what the maps allow */
	while (!ret && getline(&line, &cap, f) > 0) {
		unsigned long s, e;
		bool missing, wp;

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			lo = s;
			hi = e;
			continue;
		}
		if (strncmp(line, "VmFlags:", 8) || hi <= addr || lo >= end)
			continue;
		missing = strstr(line, " um");
		wp = write && strstr(line, " uw");
		if ((missing || wp) &&
		    pages_fault(pagemap, lo > addr ? lo : addr,
				hi < end ? hi : end, missing, wp))
			ret = -EFAULT;
	}
	free(line);
	fclose(f);
	return ret;
}

int emu_pin_check(uint64_t addr, uint64_t len, bool write)
{
	int pagemap, ret = 0;

	pagemap = syscall(SYS_openat, AT_FDCWD, "/proc/self/pagemap",
			  O_RDONLY | O_CLOEXEC);
	if (pagemap < 0)
		return 0;
	/* every page there (and writable): nothing to ask smaps, the usual */
	if (pages_fault(pagemap, addr, addr + len, true, write))
		ret = registered_fault(pagemap, addr, addr + len, write);
	syscall(SYS_close, pagemap);
	return ret;
}
