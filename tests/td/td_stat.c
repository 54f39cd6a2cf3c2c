// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"
#include "td_stat.h"

static FILE *open_stat(void)
{
	const char *dir = getenv("MLX5EMU_STAT_DIR");
	char path[512];
	FILE *f;

	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/%d", dir, getpid());
	f = fopen(path, "r");
	assert_non_null(f);
	return f;
}

unsigned int td_stat_held_uars(void)
{
	char line[1024];
	unsigned int held = 0;
	FILE *f = open_stat();

	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "page ", 5) && !emu_test_field(line, "destroyed") &&
		    (strstr(line, " kind=bf ") || strstr(line, " kind=alloc_wc ")))
			held += emu_test_field(line, "nuars");
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
		if (strncmp(line, "ring ", 5) || emu_test_field(line, "qpn") != qpn)
			continue;
		if (found && emu_test_field(line, "page_id") != *uar)
			fail_msg("QP 0x%x rang two UARs", qpn);
		*uar = emu_test_field(line, "page_id");
		*slots |= 1u << ((emu_test_field(line, "slot") - 0x800) / 0x100);
		found = true;
	}
	fclose(f);
	return found;
}
