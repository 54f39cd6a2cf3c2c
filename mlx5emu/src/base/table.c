// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A small IDR: ids are handed out lowest-free-first, like the kernel's, or
 * (cyclic tables) round the table, like the device's own numbers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_util.h"

#define TABLE_MIN 16

static int grow(struct emu_table *t, uint32_t need)
{
	uint32_t n = t->nslots ? t->nslots : TABLE_MIN;
	void **slot;

	while (n <= need)
		n *= 2;
	slot = realloc(t->slot, n * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	memset(slot + t->nslots, 0, (n - t->nslots) * sizeof(*slot));
	t->slot = slot;
	t->nslots = n;
	return 0;
}

int emu_table_alloc(struct emu_table *t, void *p, uint32_t *id)
{
	uint32_t end = t->limit && t->limit < t->nslots ? t->limit : t->nslots;
	uint32_t i;

	for (i = t->hint; i < end; i++)
		if (!t->slot[i])
			goto found;
	/* round again from 0 before the table grows */
	if (t->cyclic)
		for (i = 0; i < t->hint && i < end; i++)
			if (!t->slot[i])
				goto found;
	i = t->hint > t->nslots ? t->hint : t->nslots;
	if (t->limit && i >= t->limit) {
		/* the cyclic hint may have run past the free ids */
		for (i = 0; i < end; i++)
			if (!t->slot[i])
				goto found;
		return -ENOMEM;
	}
	if (grow(t, i))
		return -ENOMEM;
found:
	t->slot[i] = p;
	t->hint = i + 1;
	t->used++;
	*id = i;
	return 0;
}

int emu_table_alloc_at(struct emu_table *t, void *p, uint32_t id)
{
	if (id >= t->nslots && grow(t, id))
		return -ENOMEM;
	if (t->slot[id])
		return -EBUSY;
	t->slot[id] = p;
	t->used++;
	return 0;
}

void *emu_table_get(const struct emu_table *t, uint32_t id)
{
	return id < t->nslots ? t->slot[id] : NULL;
}

void *emu_table_remove(struct emu_table *t, uint32_t id)
{
	void *p = emu_table_get(t, id);

	if (!p)
		return NULL;
	t->slot[id] = NULL;
	t->used--;
	if (id < t->hint && !t->cyclic)
		t->hint = id;
	if (!t->used) {
		/* keep long-running loops from holding a grown array; a cyclic
		 * table goes on round the smallest one */
		free(t->slot);
		t->slot = NULL;
		t->nslots = 0;
		if (!t->cyclic || t->hint >= TABLE_MIN)
			t->hint = 0;
	}
	return p;
}

void emu_table_destroy(struct emu_table *t)
{
	bool cyclic = t->cyclic;
	uint32_t limit = t->limit;

	free(t->slot);
	memset(t, 0, sizeof(*t));
	t->cyclic = cyclic;
	t->limit = limit;
}
