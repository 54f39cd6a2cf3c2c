// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The device-wide registry of HW UAR indices, across processes. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mlx5emu.h"
#include "fabric/wire.h"

/*
 * Device-wide HW UAR indices: a process owns index id of device dev while
 * it holds the abstract name ".../d<dev>.uar.<id>" bound, so the kernel
 * releases it when the process dies. Called under dev->lock.
 */
static int *uar_claims[EMU_MAX_DEVICES]; /* fd + 1 per index, 0: none */

bool emu_uar_claim(unsigned int dev, uint32_t id)
{
	uint32_t max = emu_cfg.model->max_uars;
	struct sockaddr_un sa;
	char what[32];
	socklen_t len;
	int fd;

	if (dev >= EMU_MAX_DEVICES || id >= max)
		return false;
	if (!uar_claims[dev]) {
		uar_claims[dev] = calloc(max, sizeof(int));
		if (!uar_claims[dev])
			return false;
	}
	snprintf(what, sizeof(what), "d%u.uar.%u", dev, id);
	len = fabric_sockaddr(&sa, getuid(), emu_cfg.fabric, what);
	fd = emu_libc.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	if (emu_libc.bind(fd, (struct sockaddr *)&sa, len)) {
		emu_libc.close(fd);
		return false; /* another process has it */
	}
	uar_claims[dev][id] = fd + 1;
	return true;
}

void emu_uar_release(unsigned int dev, uint32_t id)
{
	if (dev >= EMU_MAX_DEVICES || !uar_claims[dev] ||
	    id >= emu_cfg.model->max_uars || !uar_claims[dev][id])
		return;
	emu_libc.close(uar_claims[dev][id] - 1);
	uar_claims[dev][id] = 0;
}
