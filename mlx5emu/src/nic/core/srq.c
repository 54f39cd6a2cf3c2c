// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queue: the WQEs form a linked list the application keeps
 * (next_wqe_index in each WQE's first 16 bytes); the doorbell record
 * counts the WQEs posted. The NIC takes them in list order from index 0,
 * reading each link when it takes that WQE: by then the application has
 * written it, since posting a WQE means moving its own head past it.
 *
 * The limit, once armed by MODIFY_SRQ, fires one event when fewer WQEs
 * than the limit remain posted, and disarms itself.
 */
#include <string.h>

#include "nic.h"

#define SRQ_NEXT_SEG 16

void nic_srq_init(struct nic_srq *srq)
{
	srq->head = 0;
	srq->ci = 0;
	srq->limit = 0;
}

uint16_t nic_srq_posted(const struct nic_srq *srq)
{
	return (uint16_t)(nic_be32_load(&srq->dbrec[0]) - srq->ci);
}

static void srq_check_limit(struct nic_srq *srq)
{
	if (!srq->limit || nic_srq_posted(srq) >= srq->limit)
		return;
	srq->limit = 0;
	if (srq->dev->ops->srq_event)
		srq->dev->ops->srq_event(srq->dev, srq,
					 NIC_EVENT_SRQ_LIMIT_REACHED);
}

int nic_srq_take(struct nic_srq *srq, uint16_t *idx, struct nic_sge *sge,
		 uint32_t *nsge)
{
	const uint8_t *wqe;
	uint16_t next;
	int err;

	if (!nic_srq_posted(srq))
		return -1;
	*idx = srq->head;
	wqe = srq->buf + ((size_t)*idx << srq->shift);
	memcpy(&next, wqe + 2, sizeof(next));
	err = nic_scatter_parse(wqe + SRQ_NEXT_SEG,
				(1u << srq->shift) - SRQ_NEXT_SEG, sge, nsge);
	/* a link out of the ring is the application's bug: stay inside */
	srq->head = be16toh(next) & (srq->nwqe - 1);
	srq->ci++;
	srq->taken++;
	srq_check_limit(srq);
	return err;
}
