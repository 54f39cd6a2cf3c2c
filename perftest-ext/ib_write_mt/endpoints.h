/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The initiator's endpoints of one category: contexts, PDs, TDs with
 * their parent domains, MRs over cache-line aligned per-thread buffers,
 * CQs and RC QPs, laid out by struct wmt_layout, and what they cost.
 */
#ifndef WMT_ENDPOINTS_H
#define WMT_ENDPOINTS_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "accounting.h"
#include "rc_connect.h"
#include "layout.h"

struct wmt_qp_ep {
	struct ibv_qp *qp;
	struct ibv_td *td;
	struct ibv_pd *parent; /* parent domain of the TD, or NULL */
	unsigned int ctx, cq;
	unsigned int users; /* threads posting on it */
	uintptr_t bf_reg;
	enum wmt_level level;
	uint64_t bytes; /* SQ + RQ buffers */
};

struct wmt_thread_ep {
	unsigned int qp;
	unsigned int cq;
	uint8_t *src; /* slots * size bytes the payloads are written from */
	uint32_t lkey;
};

/* what the endpoints cost, each figure labelled in the report by source */
struct wmt_usage {
	unsigned int count[RES_COUNT];
	unsigned int tds;
	unsigned int uar_pages; /* maps: allocated */
	unsigned int uar_mappings; /* maps: mappings seen (aliases too) */
	unsigned int pages_used; /* bf.reg */
	unsigned int uuars_used; /* bf.reg */
	int emu_uars; /* emu: -1 when not under mlx5emu */
	uint64_t qp_bytes, cq_bytes, buf_bytes;
	unsigned int levels[5]; /* threads per enum wmt_level */
	/* --td-fallback: TDs per sharing level granted, 1..3 */
	unsigned int td_granted[4];
	bool td_degraded; /* a TD got another level than the category's */
};

struct wmt_endpoints {
	struct wmt_layout l;
	unsigned int slots, size;
	struct ibv_context **ctx;
	struct ibv_pd **pd;
	struct ibv_mr **mr;
	uint8_t *arena; /* every buffer */
	size_t arena_len;
	struct ibv_cq **cq;
	struct wmt_qp_ep *qp;
	struct wmt_thread_ep *th;
	struct wmt_usage usage;
};

/*
 * Builds the endpoints on dev. Returns 0; PERFTEST_EXIT_UNAVAILABLE when the
 * library or device cannot build the category; PERFTEST_EXIT_DEVICE on other
 * failures. err says why; nothing stays allocated on failure.
 */
int wmt_endpoints_build(struct wmt_endpoints *e, const struct wmt_options *o,
			const struct wmt_layout *l, struct ibv_device *dev,
			unsigned int slots, char *err, size_t errlen);

/*
 * The k-th used QP: its address into local[k], then INIT and RTR/RTS
 * towards remote[k].
 */
int wmt_endpoints_connect(struct wmt_endpoints *e, const struct wmt_options *o,
			  const struct rc_addr *remote, struct rc_addr *local,
			  char *err, size_t errlen);

/* the mlx5emu accounting for these endpoints (emu_uars) */
void wmt_endpoints_emu_usage(struct wmt_endpoints *e);

void wmt_endpoints_destroy(struct wmt_endpoints *e);

#endif
