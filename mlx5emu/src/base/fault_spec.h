/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Fault injection specs (MLX5EMU_FAULT_*), parsed the same way by the
 * launcher (which refuses a bad one) and the preload library. Plain C, no
 * dependency: the NIC core uses the types.
 */
#ifndef MLX5EMU_FAULT_SPEC_H
#define MLX5EMU_FAULT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* which packets of a QP a fault hits, by the QP's packet sequence */
enum emu_fault_kind {
	EMU_FAULT_NONE,
	EMU_FAULT_NTH, /* nth:N   the Nth packet (1-based), once */
	EMU_FAULT_EVERY, /* every:N every Nth packet */
	EMU_FAULT_RATE, /* rate:P  each with probability P, from the seed */
	EMU_FAULT_FROM, /* from:N  the Nth and all after (a vanished peer) */
};

struct emu_fault_sel {
	enum emu_fault_kind kind;
	uint64_t n;
	uint32_t rate; /* RATE: P * 2^32, saturated */
};

/* MLX5EMU_FAULT_*, as the preload library read them */
struct emu_fault_cfg {
	bool on; /* any fault, or the ACK timeout, asked for */
	struct emu_fault_sel drop, delay;
	unsigned int delay_us;
	unsigned int seed;
	unsigned int timeout_us; /* 0: each QP's own */
	unsigned int cq_overrun; /* the Nth CQE of a CQ overruns it; 0: off */
	bool port_down;
	uint64_t port_at_ms, port_dur_ms;
};

/* 0, or -1 with what a spec looks like in err */
int emu_fault_sel_parse(const char *s, struct emu_fault_sel *sel, char *err,
			size_t errlen);
/* "AT:DUR" in milliseconds: 0, or -1 with err */
int emu_fault_window_parse(const char *s, uint64_t *at_ms, uint64_t *dur_ms,
			   char *err, size_t errlen);

#endif
