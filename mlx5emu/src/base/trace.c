// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* --trace: one line per event, from every layer. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "emu_libc.h"
#include "emu_param.h"
#include "trace.h"

void emu_trace(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (emu_cfg.trace_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "mlx5emu[%d]: ", getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* one write() so lines of concurrent processes do not interleave */
	if (emu_libc.write)
		emu_libc.write(emu_cfg.trace_fd, line, n);
}
