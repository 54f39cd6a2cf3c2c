/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Data verification. Each thread owns a region of the target: a ring of
 * slots, with guard bytes before, between and after the regions. Iteration
 * i of thread t writes a payload that depends on (t, i) into slot
 * i % slots; consecutive writes into a slot differ in every byte. After
 * the run the target checks every slot against the last payload written
 * there (zero if none) and every guard byte.
 */
#ifndef WMT_VERIFY_H
#define WMT_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#define WMT_GUARD 64
#define WMT_GUARD_BYTE 0xa5

struct wmt_regions {
	unsigned int threads;
	unsigned int slots; /* a power of two */
	unsigned int size;
	uint64_t stride; /* region + the guard after it */
	uint64_t total;
};

void wmt_regions_init(struct wmt_regions *r, unsigned int threads,
		      unsigned int slots, unsigned int size);

static inline uint64_t wmt_region_offset(const struct wmt_regions *r,
					 unsigned int t)
{
	return WMT_GUARD + (uint64_t)t * r->stride;
}

/*
 * The payload of iteration i of thread t; slots = 1 << shift. Byte k is
 * first + k * step: first moves by WMT_PAYLOAD_SLOT_STEP from one slot to
 * the next, and both change with every lap of the ring.
 */
#define WMT_PAYLOAD_SLOT_STEP 13

static inline uint8_t wmt_payload_first(unsigned int t, uint64_t i,
					unsigned int shift)
{
	uint64_t lap = i >> shift, slot = i & ((1ull << shift) - 1);

	return 0x5b + t * 7 + slot * WMT_PAYLOAD_SLOT_STEP + lap + 1;
}

static inline uint8_t wmt_payload_step(uint64_t i, unsigned int shift)
{
	return 2 * ((i >> shift) + 1);
}

/* the bytes of one payload from its first byte and step */
static inline void wmt_payload_fill(uint8_t *dst, unsigned int size,
				    uint8_t first, uint8_t step)
{
	unsigned int k;

	for (k = 0; k < size; k++, first += step)
		dst[k] = first;
}

static inline void wmt_payload(uint8_t *dst, unsigned int size, unsigned int t,
			       uint64_t i, unsigned int shift)
{
	wmt_payload_fill(dst, size, wmt_payload_first(t, i, shift),
			 wmt_payload_step(i, shift));
}

/* guards set, slots zeroed */
void wmt_regions_prepare(const struct wmt_regions *r, uint8_t *mem);

/*
 * iters[t]: how many iterations thread t wrote. Returns the number of bad
 * slots and guard bytes; what first went wrong goes to msg.
 */
uint64_t wmt_regions_verify(const struct wmt_regions *r, const uint8_t *mem,
			    const uint64_t *iters, char *msg, size_t msglen);

#endif
