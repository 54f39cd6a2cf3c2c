/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Small utilities of the emulated device: an intrusive list, a sparse id
 * table (table.c), container_of and ARRAY_SIZE. Nothing here knows about
 * verbs.
 */
#ifndef MLX5EMU_UTIL_H
#define MLX5EMU_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))

struct emu_list {
	struct emu_list *next, *prev;
};

static inline void emu_list_init(struct emu_list *h)
{
	h->next = h->prev = h;
}

static inline bool emu_list_empty(const struct emu_list *h)
{
	return h->next == h;
}

static inline void emu_list_add_tail(struct emu_list *h, struct emu_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void emu_list_del(struct emu_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define emu_list_for_each_safe(pos, tmp, head)                                 \
	for (pos = (head)->next, tmp = pos->next; pos != (head);               \
	     pos = tmp, tmp = pos->next)

/* rings of power-of-two sizes: the smallest one with room for v */
static inline uint32_t emu_roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/*
 * Sparse id -> pointer map; ids are reused lowest-first like an IDR, or,
 * in a cyclic table, only after the ids above them (QPNs: the firmware
 * hands them out in rising order, so a CQE a destroyed QP left behind does
 * not name the next QP).
 */
struct emu_table {
	void **slot;
	uint32_t nslots;
	uint32_t hint;
	uint32_t used;
	uint32_t limit; /* ids below this, 0: no limit */
	bool cyclic;
};

int emu_table_alloc(struct emu_table *t, void *p, uint32_t *id);
int emu_table_alloc_at(struct emu_table *t, void *p, uint32_t id);
void *emu_table_get(const struct emu_table *t, uint32_t id);
void *emu_table_remove(struct emu_table *t, uint32_t id);
void emu_table_destroy(struct emu_table *t);

static inline size_t emu_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* hidden_thread.c: a detached thread with every signal blocked; -errno */
int emu_thread_start(void *(*fn)(void *), void *arg);

#endif
