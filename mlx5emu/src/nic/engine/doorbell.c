// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbell attribution. UAR writes are used for attribution only: the
 * first 8 bytes of every bfreg half are swapped to zero, and a non-zero
 * value is a ring whose qpn_ds says which QP rang on which UAR page and
 * slot. Everything here runs under nic.lock.
 *
 * BlueFlame copy or 8-byte doorbell: bytes 8..15 of every half hold a
 * mark (0xff in the signature, stream id and fm_ce_se bytes, which no
 * control segment has). A BlueFlame copy overwrites it with the WQE's
 * control segment, a doorbell leaves it; taking a ring puts it back. A
 * copy still under way when its ring is taken shows later as a mark gone
 * with no new ring: the ring it belongs to, kept in a word of the page
 * libmlx5 never writes, moves from doorbells to BlueFlame copies. A mark
 * gone with nothing pending is a copy whose ring the NIC has not seen yet
 * (its two words were read either side of the copy, or the CPU made the
 * copy visible out of order, as arm64's 64-byte stores may): the next
 * ring on that half is a BlueFlame copy.
 */
#include <string.h>

#include "glue.h"
#include "fabric/fabric.h"

#define NIC_MAX_RINGS 1024

#define BF_MARK 0xffffffffu /* bytes 8..11 of a half, little endian */
#define PENDING_OFF 0x400 /* the pending words, one per half */
#define PENDING_COPY (1ULL << 63) /* a copy came before its ring */

struct ring_rec {
	uint32_t ctx, page_id, slot, qpn;
	bool gone; /* its QP was destroyed: a new one of that number starts anew */
	uint64_t count;
	/* BlueFlame copies among them, and their 64-byte blocks */
	uint64_t bf, bf_blocks;
};

/*
 * What the process's QPs rang (BlueFlame copies as they are found), and
 * the rings and counters of its destroyed QPs.
 */
struct ring_totals {
	uint64_t bf, bf_blocks;
	uint64_t gone_rings;
	struct nic_counters gone;
};

static struct {
	bool dirty; /* rings or their counts changed since the stat file */
	struct ring_rec rings[NIC_MAX_RINGS];
	unsigned int nrings;
	struct ring_totals total;
} doorbells;

static bool is_mark(uint64_t v)
{
	return (le64toh(v) & 0xffffffffu) == BF_MARK;
}

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
	for (s = 0; s < NIC_DOORBELL_SLOTS; s++) {
		uint64_t zero = 0;

		q->slot[s] = (uint64_t *)(uar + 0x800 + s * 0x100);
		q->pending[s] = (uint64_t *)(uar + PENDING_OFF + s * 8);
		/* a page another QP rings has its marks already */
		__atomic_compare_exchange_n(&q->slot[s][1], &zero,
					    htole64(BF_MARK), false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
}

static struct ring_rec *ring_record(struct emu_nic_qp *q, unsigned int s,
				    uint64_t v)
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
		    r->qpn == qpn && !r->gone) {
			r->count++;
			/* a new count too, or stat shows the first one forever */
			doorbells.dirty = true;
			return r;
		}
	}
	if (doorbells.nrings == NIC_MAX_RINGS)
		return NULL;
	r = &doorbells.rings[doorbells.nrings++];
	r->ctx = ctx;
	r->page_id = qp->uar_id;
	r->slot = s;
	r->qpn = qpn;
	r->count = 1;
	r->gone = false;
	r->bf = r->bf_blocks = 0;
	doorbells.dirty = true;
	return r;
}

/* the 64-byte blocks a BlueFlame copy of the ring's WQE takes */
static unsigned int ring_blocks(uint64_t v)
{
	uint32_t qpn_ds;
	unsigned int ds;

	memcpy(&qpn_ds, (uint8_t *)&v + 4, 4);
	ds = be32toh(qpn_ds) & 0xff; /* libmlx5 writes ds unmasked */
	return (ds * 16 + NIC_BB - 1) / NIC_BB;
}

static void count_bf(struct ring_rec *r, unsigned int blocks)
{
	doorbells.total.bf++;
	doorbells.total.bf_blocks += blocks;
	if (r) {
		r->bf++;
		r->bf_blocks += blocks;
	}
}

/*
 * Half s rang (v, 0 if not) or its mark is gone. The pending word: the
 * ring rec + 1 << 4 | blocks of the last ring taken here as a doorbell,
 * or PENDING_COPY.
 */
static void slot_take(struct emu_nic_qp *q, unsigned int s, uint64_t v)
{
	uint64_t old = __atomic_exchange_n(&q->slot[s][1], htole64(BF_MARK),
					   __ATOMIC_ACQ_REL);
	uint64_t *pend = q->pending[s];
	struct ring_rec *r;
	unsigned int blocks;

	if (!v) {
		uint64_t p = *pend;

		if (is_mark(old) || p == PENDING_COPY)
			return;
		if (!p) {
			/* a copy whose ring the NIC has not taken yet */
			*pend = PENDING_COPY;
			return;
		}
		/* the copy of the ring taken as a doorbell came after it */
		*pend = 0;
		r = (p >> 4) ? &doorbells.rings[(p >> 4) - 1] : NULL;
		count_bf(r, p & 15);
		doorbells.dirty = true;
		return;
	}
	r = ring_record(q, s, v);
	blocks = ring_blocks(v);
	if (!is_mark(old) || *pend == PENDING_COPY) {
		count_bf(r, blocks);
		*pend = 0;
	} else {
		*pend = (r ? (uint64_t)(r - doorbells.rings) + 1 : 0) << 4 |
			(blocks > 15 ? 15 : blocks);
	}
}

void nic_doorbell_watch(struct emu_nic_qp *q)
{
	unsigned int s;

	for (s = 0; s < NIC_DOORBELL_SLOTS; s++) {
		uint64_t v;

		if (!q->slot[s])
			continue;
		v = __atomic_load_n(q->slot[s], __ATOMIC_RELAXED);
		if (!v &&
		    is_mark(__atomic_load_n(&q->slot[s][1], __ATOMIC_RELAXED)))
			continue;
		if (v)
			v = __atomic_exchange_n(q->slot[s], 0,
						__ATOMIC_ACQ_REL);
		slot_take(q, s, v);
	}
}

bool nic_doorbell_dirty(void)
{
	/* peers' one-sided requests moved our QPs' counts (fabric/direct.c) */
	return doorbells.dirty || fabric_direct_counted(false);
}

void nic_doorbell_clean(void)
{
	doorbells.dirty = false;
	fabric_direct_counted(true);
}

void nic_doorbell_forget(void)
{
	doorbells.nrings = 0;
	doorbells.dirty = false;
	memset(&doorbells.total, 0, sizeof(doorbells.total));
}

/* what peers' one-sided requests moved, taken into q's counts */
static void take_direct(struct emu_nic_qp *q)
{
	uint64_t rd, wr;

	fabric_direct_qp_counts(q->nq.dev->index, &q->nq, &rd, &wr);
	q->nq.cnt.dma_read += rd;
	q->nq.cnt.dma_write += wr;
}

static void counters_add(struct nic_counters *to, const struct nic_counters *c)
{
	to->wqe_bbs += c->wqe_bbs;
	to->sq_dbr += c->sq_dbr;
	to->rq_dbr += c->rq_dbr;
	to->dma_read += c->dma_read;
	to->dma_write += c->dma_write;
	to->cqes += c->cqes;
}

/*
 * The rings of q, at least as many as the doorbell-record advances seen:
 * every ring follows a new record, and a ring overwritten before the NIC
 * looked (the next one on a register libmlx5 does not alternate, after a
 * trapped store whose fault made the NIC answer before the store landed)
 * still left its record behind.
 */
static uint64_t qp_rings(const struct emu_nic_qp *q, uint64_t *bf,
			 uint64_t *blocks, bool retire)
{
	uint32_t ctx = q->qp->uobj.ctx->id;
	uint64_t rings = 0;
	unsigned int i;

	*bf = *blocks = 0;
	for (i = 0; i < doorbells.nrings; i++) {
		struct ring_rec *r = &doorbells.rings[i];

		if (r->ctx != ctx || r->qpn != q->qp->qpn || r->gone)
			continue;
		rings += r->count;
		*bf += r->bf;
		*blocks += r->bf_blocks;
		r->gone = retire;
	}
	return rings > q->nq.cnt.sq_dbr ? rings : q->nq.cnt.sq_dbr;
}

void nic_doorbell_retire(struct emu_nic_qp *q)
{
	uint64_t bf, blocks;

	take_direct(q);
	doorbells.total.gone_rings += qp_rings(q, &bf, &blocks, true);
	counters_add(&doorbells.total.gone, &q->nq.cnt);
	doorbells.dirty = true;
}

/*
 * One "traffic" record: MMIO writes (BlueFlame copies, their 64-byte
 * blocks, 8-byte doorbells), doorbell-record advances seen, and DMA:
 * WQE blocks fetched from the SQ (those no BlueFlame copy carried),
 * payload read and written, CQEs.
 */
static void traffic_write(FILE *f, const char *who, uint64_t rings, uint64_t bf,
			  uint64_t bf_blocks, const struct nic_counters *c)
{
	uint64_t fetched = c->wqe_bbs > bf_blocks ? c->wqe_bbs - bf_blocks : 0;

	fprintf(f,
		"traffic %s bf=%llu bf_blocks=%llu db=%llu sq_dbr=%llu rq_dbr=%llu wqe_bbs=%llu fetched_bbs=%llu payload_read=%llu payload_written=%llu cqes=%llu\n",
		who, (unsigned long long)bf, (unsigned long long)bf_blocks,
		(unsigned long long)(rings > bf ? rings - bf : 0),
		(unsigned long long)c->sq_dbr, (unsigned long long)c->rq_dbr,
		(unsigned long long)c->wqe_bbs, (unsigned long long)fetched,
		(unsigned long long)c->dma_read,
		(unsigned long long)c->dma_write, (unsigned long long)c->cqes);
}

static void qp_traffic(FILE *f, int pid, struct emu_context *ctx,
		       struct emu_nic_qp *q)
{
	uint64_t bf, blocks, rings = qp_rings(q, &bf, &blocks, false);
	char who[64];

	take_direct(q);
	snprintf(who, sizeof(who), "pid=%d ctx=%u qpn=0x%x", pid, ctx->id,
		 q->qp->qpn);
	traffic_write(f, who, rings, bf, blocks, &q->nq.cnt);
}

void nic_stat_write(FILE *f, int pid, struct emu_context *ctx)
{
	struct emu_list *pos, *tmp;
	unsigned int i;

	pthread_mutex_lock(&nic.lock);
	for (i = 0; i < doorbells.nrings; i++) {
		struct ring_rec *r = &doorbells.rings[i];

		if (r->ctx != ctx->id)
			continue;
		fprintf(f,
			"ring pid=%d ctx=%u page_id=0x%x slot=0x%x qpn=0x%x count=%llu bf=%llu\n",
			pid, r->ctx, r->page_id, 0x800 + r->slot * 0x100,
			r->qpn, (unsigned long long)r->count,
			(unsigned long long)r->bf);
	}
	emu_list_for_each_safe(pos, tmp, &nic.qps)
	{
		struct emu_nic_qp *q =
			container_of(pos, struct emu_nic_qp, node);

		if (q->qp->uobj.ctx == ctx)
			qp_traffic(f, pid, ctx, q);
	}
	pthread_mutex_unlock(&nic.lock);
}

/* everything the process's QPs did, the destroyed ones' included */
void nic_stat_write_traffic(FILE *f, int pid)
{
	uint64_t rings, bf, blocks;
	struct emu_list *pos, *tmp;
	struct nic_counters all;
	char who[48];

	pthread_mutex_lock(&nic.lock);
	all = doorbells.total.gone;
	rings = doorbells.total.gone_rings;
	emu_list_for_each_safe(pos, tmp, &nic.qps)
	{
		struct emu_nic_qp *q =
			container_of(pos, struct emu_nic_qp, node);

		take_direct(q);
		counters_add(&all, &q->nq.cnt);
		rings += qp_rings(q, &bf, &blocks, false);
	}
	snprintf(who, sizeof(who), "pid=%d qpn=all", pid);
	traffic_write(f, who, rings, doorbells.total.bf,
		      doorbells.total.bf_blocks, &all);
	pthread_mutex_unlock(&nic.lock);
}
