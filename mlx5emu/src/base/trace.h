/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* --trace (trace.c): a line to emu_cfg.trace_fd, when tracing is on */
#ifndef MLX5EMU_TRACE_H
#define MLX5EMU_TRACE_H

void emu_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
