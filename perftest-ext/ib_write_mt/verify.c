// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Data verification: the target's regions, slots, guards and payloads. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ib_write_mt.h"
#include "verify.h"

void wmt_regions_init(struct wmt_regions *r, unsigned int threads,
		      unsigned int slots, unsigned int size)
{
	r->threads = threads;
	r->slots = slots;
	r->size = size;
	r->stride =
		wmt_align((uint64_t)slots * size, WMT_CACHE_LINE) + WMT_GUARD;
	r->total = WMT_GUARD + threads * r->stride;
}

/* everything that is not a slot is a guard byte */
static int is_guard(const struct wmt_regions *r, uint64_t off)
{
	uint64_t in;

	if (off < WMT_GUARD)
		return 1;
	in = (off - WMT_GUARD) % r->stride;
	return in >= (uint64_t)r->slots * r->size;
}

void wmt_regions_prepare(const struct wmt_regions *r, uint8_t *mem)
{
	uint64_t off;

	for (off = 0; off < r->total; off++)
		mem[off] = is_guard(r, off) ? WMT_GUARD_BYTE : 0;
}

static unsigned int log2u(unsigned int v)
{
	unsigned int s = 0;

	while ((1u << s) < v)
		s++;
	return s;
}

uint64_t wmt_regions_verify(const struct wmt_regions *r, const uint8_t *mem,
			    const uint64_t *iters, char *msg, size_t msglen)
{
	unsigned int shift = log2u(r->slots), t, j;
	uint8_t expect[65536];
	uint64_t bad = 0, off;

	msg[0] = 0;
	for (off = 0; off < r->total; off++)
		if (is_guard(r, off) && mem[off] != WMT_GUARD_BYTE) {
			if (!bad++)
				snprintf(msg, msglen,
					 "guard byte at offset %" PRIu64
					 " overwritten (0x%02x)",
					 off, mem[off]);
		}
	for (t = 0; t < r->threads; t++) {
		const uint8_t *region = mem + wmt_region_offset(r, t);

		for (j = 0; j < r->slots; j++) {
			const uint8_t *got = region + (uint64_t)j * r->size;
			uint64_t last;

			if (iters[t] > j) {
				last = j +
				       ((iters[t] - 1 - j) >> shift << shift);
				wmt_payload(expect, r->size, t, last, shift);
			} else {
				last = UINT64_MAX;
				memset(expect, 0, r->size);
			}
			if (!memcmp(got, expect, r->size))
				continue;
			if (!bad++)
				snprintf(
					msg, msglen,
					"thread %u slot %u: not the payload of iteration %" PRId64,
					t, j,
					last == UINT64_MAX ? -1 :
							     (int64_t)last);
		}
	}
	return bad;
}
