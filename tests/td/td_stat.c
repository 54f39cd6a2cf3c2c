// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_stat.h"
#include "td_stat.h"

static FILE *open_stat(void)
{
	FILE *f = emu_stat_open(getpid());

	assert_non_null(f);
	return f;
}

unsigned int td_stat_held_uars(void)
{
	char line[1024];
	unsigned int held = 0;
	FILE *f = open_stat();

	while (fgets(line, sizeof(line), f)) {
		char kind[16];

		if (!emu_stat_is(line, "page") ||
		    emu_stat_num(line, "destroyed", 0))
			continue;
		emu_stat_text(line, "kind", kind, sizeof(kind));
		if (!strcmp(kind, "bf") || !strcmp(kind, "alloc_wc"))
			held += emu_stat_num(line, "nuars", 0);
	}
	fclose(f);
	return held;
}

bool td_stat_rings(uint32_t qpn, uint32_t *uar, unsigned int *slots)
{
	char line[1024];
	bool found = false;
	FILE *f = open_stat();

	*slots = 0;
	while (fgets(line, sizeof(line), f)) {
		uint32_t page;

		if (!emu_stat_is(line, "ring") ||
		    emu_stat_num(line, "qpn", -1) != qpn)
			continue;
		page = emu_stat_num(line, "page_id", 0);
		if (found && page != *uar)
			fail_msg("QP 0x%x rang two UARs", qpn);
		*uar = page;
		*slots |= 1u
			  << ((emu_stat_num(line, "slot", 0) - 0x800) / 0x100);
		found = true;
	}
	fclose(f);
	return found;
}
