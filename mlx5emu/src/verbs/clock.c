// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The clock info page mlx5_ib shares read-only with every context (mmap
 * command 7, index MLX5_IB_CLOCK_INFO_V1): how to turn the device's
 * free-running timestamps into nanoseconds of wall-clock time. The
 * emulated device counts nanoseconds of CLOCK_MONOTONIC, so the page says
 * 1 cycle = 1 ns from the wall-clock time the monotonic clock started.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mlx5emu.h"

#define CLOCK_PGOFF                                                            \
	((uint64_t)MLX5_IB_MMAP_CLOCK_INFO << 8 | MLX5_IB_CLOCK_INFO_V1)

static uint64_t ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static off_t clock_off(void)
{
	return CLOCK_PGOFF * sysconf(_SC_PAGESIZE);
}

int emu_clock_info_init(struct emu_context *ctx)
{
	struct ib_uverbs_clock_info ci = {
		.nsec = ns(CLOCK_REALTIME) - ns(CLOCK_MONOTONIC),
		.mult = 1,
		.mask = ~0ULL,
		.overflow_period = ~0ULL >> 2,
	};
	int ret;

	ret = emu_uar_grow_file(ctx, clock_off() + sysconf(_SC_PAGESIZE));
	if (ret)
		return ret;
	if (pwrite(ctx->fd, &ci, sizeof(ci), clock_off()) != sizeof(ci))
		return -ENOMEM;
	return 0;
}

bool emu_clock_info_offset(off_t off)
{
	return off == clock_off();
}

/* mlx5_ib refuses a writable or executable mapping of it */
void *emu_clock_info_mmap(struct emu_context *ctx, void *addr, size_t len,
			  int prot, int flags)
{
	if (prot & (PROT_WRITE | PROT_EXEC)) {
		errno = EPERM;
		return MAP_FAILED;
	}
	if (len != (size_t)sysconf(_SC_PAGESIZE) || !(flags & MAP_SHARED)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return emu_libc.mmap(addr, len, prot, flags, ctx->fd, clock_off());
}
