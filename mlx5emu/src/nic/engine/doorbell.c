// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbell attribution. UAR writes are used for attribution only: the
 * first 8 bytes of every bfreg half are swapped to zero, and a non-zero
 * value is a ring whose qpn_ds says which QP rang on which UAR page and
 * slot. Everything here runs under nic.lock.
 */
#include <string.h>

#include "glue.h"

#define NIC_MAX_RINGS 1024

struct ring_rec {
	uint32_t ctx, page_id, slot, qpn;
	uint64_t count;
};

static struct {
	bool dirty; /* rings or their counts changed since the stat file */
	struct ring_rec rings[NIC_MAX_RINGS];
	unsigned int nrings;
} doorbells;

/* where the QP's bfreg halves are in the emulator's alias of its UAR */
void nic_doorbell_map(struct emu_nic_qp *q)
{
	struct emu_qp *qp = q->qp;
	uint8_t *uar;
	unsigned int s;

	if (!qp->uar || !qp->uar->alias)
		return;
	uar = (uint8_t *)qp->uar->alias +
	      (size_t)(qp->uar_id - qp->uar->page_id) * EMU_ADAPTER_PAGE;
	for (s = 0; s < NIC_DOORBELL_SLOTS; s++)
		q->slot[s] = (uint64_t *)(uar + 0x800 + s * 0x100);
}

static void ring_record(struct emu_nic_qp *q, unsigned int s, uint64_t v)
{
	struct emu_qp *qp = q->qp;
	uint32_t qpn_ds, qpn, i;
	uint32_t ctx = qp->uobj.ctx->id;
	struct ring_rec *r;

	memcpy(&qpn_ds, (uint8_t *)&v + 4, 4);
	qpn = be32toh(qpn_ds) >> 8;
	for (i = 0; i < doorbells.nrings; i++) {
		r = &doorbells.rings[i];
		if (r->ctx == ctx && r->page_id == qp->uar_id && r->slot == s &&
		    r->qpn == qpn) {
			r->count++;
			/* a new count too, or stat shows the first one forever */
			doorbells.dirty = true;
			return;
		}
	}
	if (doorbells.nrings == NIC_MAX_RINGS)
		return;
	r = &doorbells.rings[doorbells.nrings++];
	r->ctx = ctx;
	r->page_id = qp->uar_id;
	r->slot = s;
	r->qpn = qpn;
	r->count = 1;
	doorbells.dirty = true;
}

void nic_doorbell_watch(struct emu_nic_qp *q)
{
	unsigned int s;

	for (s = 0; s < NIC_DOORBELL_SLOTS; s++) {
		uint64_t v;

		if (!q->slot[s] ||
		    !__atomic_load_n(q->slot[s], __ATOMIC_RELAXED))
			continue;
		v = __atomic_exchange_n(q->slot[s], 0, __ATOMIC_ACQ_REL);
		if (v)
			ring_record(q, s, v);
	}
}

bool nic_doorbell_dirty(void)
{
	return doorbells.dirty;
}

void nic_doorbell_clean(void)
{
	doorbells.dirty = false;
}

void nic_doorbell_forget(void)
{
	doorbells.nrings = 0;
	doorbells.dirty = false;
}

void nic_stat_write(FILE *f, int pid, struct emu_context *ctx)
{
	unsigned int i;

	pthread_mutex_lock(&nic.lock);
	for (i = 0; i < doorbells.nrings; i++) {
		struct ring_rec *r = &doorbells.rings[i];

		if (r->ctx != ctx->id)
			continue;
		fprintf(f,
			"ring pid=%d ctx=%u page_id=0x%x slot=0x%x qpn=0x%x count=%llu\n",
			pid, r->ctx, r->page_id, 0x800 + r->slot * 0x100,
			r->qpn, (unsigned long long)r->count);
	}
	pthread_mutex_unlock(&nic.lock);
}
