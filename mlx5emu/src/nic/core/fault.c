// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Fault injection: which packets are lost or held back, and which CQE
 * overruns its CQ. A choice depends on the seed, the QP's number within
 * its process and the QP's own packet sequence only, never on time or
 * on the order in which the NIC visits QPs: the same program with the
 * same seed loses the same packets. Tries an RNR NAK sends back, whose
 * number depends on when the receive comes, are not counted.
 *
 * What follows a loss is the transport's business (requester.c): RC
 * times out and retransmits, up to retry_cnt times; UC and UD lose it.
 */
#include <time.h>

#include "nic.h"

uint64_t nic_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* SplitMix64's finaliser: every input bit reaches every output bit */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

bool nic_fault_hits(const struct emu_fault_sel *sel, uint64_t seed,
		    uint32_t qpn, uint64_t seq)
{
	uint64_t n = seq + 1; /* the specs count from 1 */
	uint64_t h;

	switch (sel->kind) {
	case EMU_FAULT_NTH:
		return n == sel->n;
	case EMU_FAULT_EVERY:
		return !(n % sel->n);
	case EMU_FAULT_FROM:
		return n >= sel->n;
	case EMU_FAULT_RATE:
		/* QPNs differ between processes only above bit 16 */
		h = mix64(seed ^ (uint64_t)(qpn & 0xffff) << 32);
		h = mix64(h ^ seq);
		return sel->rate == UINT32_MAX ||
		       (uint32_t)(h >> 32) < sel->rate;
	case EMU_FAULT_NONE:
		break;
	}
	return false;
}

/* requests and answers of a QP count in one sequence */
enum nic_fault_verdict nic_fault_request(struct nic_dev *dev, struct nic_qp *qp)
{
	struct nic_faults *f = dev->faults;
	uint64_t seq = qp->fault_seq++;

	if (f->port_down || nic_fault_hits(&f->drop, f->seed, qp->qpn, seq)) {
		f->lost++;
		return NIC_FAULT_LOST;
	}
	if (nic_fault_hits(&f->delay, f->seed, qp->qpn, seq)) {
		f->delayed++;
		qp->hold_until = nic_now_ns() + f->delay_ns;
		return NIC_FAULT_DELAYED;
	}
	return NIC_FAULT_PASS;
}

bool nic_fault_answer_lost(struct nic_dev *dev, struct nic_qp *qp)
{
	struct nic_faults *f = dev->faults;

	if (!f->port_down &&
	    !nic_fault_hits(&f->drop, f->seed, qp->qpn, qp->fault_seq++))
		return false;
	f->lost++;
	return true;
}

bool nic_fault_cq_overrun(struct nic_dev *dev, struct nic_cq *cq)
{
	if (!dev->faults->cq_overrun ||
	    ++cq->fault_cqes != dev->faults->cq_overrun)
		return false;
	nic_cq_overrun(dev, cq);
	return true;
}

/* 4.096 us << timeout, as the IBA says; 0 is infinite */
uint64_t nic_ack_timeout_ns(const struct nic_qp *qp)
{
	unsigned int shift = qp->timeout < 31 ? qp->timeout : 31;

	if (!qp->timeout)
		return 0;
	if (qp->dev->faults && qp->dev->faults->ack_timeout_ns)
		return qp->dev->faults->ack_timeout_ns;
	return 4096ull << shift;
}
