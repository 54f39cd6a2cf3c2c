// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The NIC's side of the seam (seam/emu_nic.h): the emulated device's CQs,
 * QPs and SRQs attached to the core's, and the callbacks the core makes
 * into the device. Everything that touches a core object takes nic.lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "glue.h"
#include "fabric/fabric.h"

const struct emu_nic_host *nic_host;

void nic_set_host(const struct emu_nic_host *host)
{
	nic_host = host;
}

/* ---- the core calls into the device ---- */

static int nic_lookup_mr(struct nic_dev *ndev, uint32_t key, struct nic_mr *out)
{
	struct emu_device *dev = to_emu_device(ndev);
	struct emu_mr *mr;
	int ret = -1;

	pthread_mutex_lock(&dev->lock);
	mr = nic_host->mr_lookup(dev, key);
	if (mr) {
		out->lkey = mr->lkey;
		out->rkey = mr->rkey;
		out->pdn = mr->pd->pdn;
		out->access = mr->access;
		out->iova = mr->iova;
		out->length = mr->length;
		out->va = (uint8_t *)(uintptr_t)mr->start;
		ret = 0;
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

static void nic_raise_comp_event(struct nic_dev *ndev, struct nic_cq *nc)
{
	struct emu_cq *cq = to_emu_nic_cq(nc)->cq;

	(void)ndev;
	nic_host->comp_event(cq);
}

static void nic_raise_qp_event(struct nic_dev *ndev, struct nic_qp *nq,
			       int event)
{
	struct emu_qp *qp = to_emu_nic_qp(nq)->qp;

	(void)ndev;
	nic_host->async_event(&qp->uobj, event);
}

static void nic_raise_srq_event(struct nic_dev *ndev, struct nic_srq *ns,
				int event)
{
	struct emu_srq *srq = to_emu_nic_srq(ns)->srq;

	(void)ndev;
	/* QUERY_SRQ reads 0 from now on: the limit is disarmed */
	__atomic_store_n(&srq->limit, 0, __ATOMIC_RELAXED);
	nic_host->async_event(&srq->uobj, event);
}

static void nic_raise_cq_event(struct nic_dev *ndev, struct nic_cq *nc,
			       int event)
{
	struct emu_cq *cq = to_emu_nic_cq(nc)->cq;

	(void)ndev;
	nic_host->async_event(&cq->uobj, event);
}

static void nic_report_qp_error(struct nic_dev *ndev, struct nic_qp *nq)
{
	struct emu_qp *qp = to_emu_nic_qp(nq)->qp;

	/* the modify path holds the context lock, we don't: one store */
	__atomic_store_n(&qp->state, EMU_QPS_ERR, __ATOMIC_RELAXED);
	fabric_direct_qp_state(ndev->index, nq, NIC_QPS_ERR);
}

const struct nic_dev_ops nic_emu_ops = {
	.qp_error = nic_report_qp_error,
	.mr_lookup = nic_lookup_mr,
	.comp_event = nic_raise_comp_event,
	.qp_event = nic_raise_qp_event,
	.srq_event = nic_raise_srq_event,
	.cq_event = nic_raise_cq_event,
	.ud_fate = nic_ud_report,
	.xmit = fabric_xmit,
};

struct nic_qp *nic_find_qp(uint16_t dlid, uint32_t qpn)
{
	unsigned int i, p;

	for (i = 0; i < emu_cfg.ndevices; i++) {
		struct emu_device *dev = &nic_host->devices[i];
		struct emu_qp *qp;

		for (p = 0; p < emu_cfg.nports; p++)
			if (dev->port[p].lid == dlid)
				break;
		if (p == emu_cfg.nports)
			continue;
		pthread_mutex_lock(&dev->lock);
		qp = nic_host->qp_lookup(dev, qpn);
		pthread_mutex_unlock(&dev->lock);
		return qp && qp->nic ? &qp->nic->nq : NULL;
	}
	return NULL;
}

struct nic_dev *nic_find_dev(uint16_t dlid)
{
	unsigned int i, p;

	for (i = 0; i < emu_cfg.ndevices; i++)
		for (p = 0; p < emu_cfg.nports; p++)
			if (nic_host->devices[i].port[p].lid == dlid)
				return &nic.dev[i];
	return &nic.dev[0];
}

/* ---- the fabric asks ---- */

/* every QP talking to the process in that fabric slot loses its answers */
void nic_peer_lost(uint32_t slot)
{
	struct emu_list *pos, *tmp;

	emu_list_for_each_safe(pos, tmp, &nic.qps)
	{
		struct emu_nic_qp *q =
			container_of(pos, struct emu_nic_qp, node);

		if ((q->nq.dest_qpn >> 16) == slot + 1)
			nic_req_lost(&q->nq);
	}
}

const struct fabric_nic_ops nic_fabric_ops = {
	.find_qp = nic_find_qp,
	.find_dev = nic_find_dev,
	.peer_lost = nic_peer_lost,
	.ud_sent = nic_ud_trace_sent,
};

/* ---- the control path attaches and detaches ---- */

static unsigned int dev_index(struct emu_context *ctx)
{
	return ctx->dev - nic_host->devices;
}

static struct nic_dev *dev_of(struct emu_context *ctx)
{
	return &nic.dev[dev_index(ctx)];
}

/* what peers of this host check before they touch the QP's memory */
static void publish_qp(struct emu_qp *qp, const struct nic_qp *nq, bool new_psn)
{
	const struct emu_device *dev = qp->uobj.ctx->dev;
	uint16_t lid[EMU_MAX_PORTS];
	unsigned int p;

	for (p = 0; p < emu_cfg.nports && p < EMU_MAX_PORTS; p++)
		lid[p] = dev->port[p].lid;
	fabric_direct_qp(dev_index(qp->uobj.ctx), nq, lid, p, new_psn);
}

/*
 * The MR as the device holds it, read under dev->lock; published after,
 * as the NIC takes dev->lock inside the records' lock (an atomic).
 */
static bool mr_snapshot(struct emu_mr *mr, struct nic_mr *m)
{
	struct emu_device *dev = mr->uobj.ctx->dev;
	bool live;

	pthread_mutex_lock(&dev->lock);
	live = nic_host->mr_lookup(dev, mr->lkey) == mr;
	*m = (struct nic_mr){
		.lkey = mr->lkey,
		.rkey = mr->rkey,
		.pdn = mr->pd->pdn,
		.access = mr->access,
		.iova = mr->iova,
		.length = mr->length,
		.va = (uint8_t *)(uintptr_t)mr->start,
	};
	pthread_mutex_unlock(&dev->lock);
	return live;
}

void nic_publish_mr(struct emu_mr *mr)
{
	struct nic_mr m;

	if (mr_snapshot(mr, &m))
		fabric_direct_mr(dev_index(mr->uobj.ctx), &m);
}

int nic_attach_cq(struct emu_cq *cq)
{
	struct emu_nic_cq *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	c->cq = cq;
	c->dev = dev_of(cq->uobj.ctx);
	c->nc.buf = (uint8_t *)(uintptr_t)cq->buf_addr;
	c->nc.ncqe = cq->ncqe;
	c->nc.cqe_size = cq->cqe_size;
	c->nc.dbrec = (uint32_t *)(uintptr_t)cq->db_addr;
	c->nc.cqn = cq->cqn;
	nic_dma_area(c->nc.buf, (size_t)cq->ncqe * cq->cqe_size);
	nic_dma_area(c->nc.dbrec, 8);
	pthread_mutex_lock(&nic.lock);
	ret = nic_start();
	if (!ret) {
		nic_cq_init(&c->nc);
		emu_list_add_tail(&nic.cqs, &c->node);
		cq->nic = c;
		nic_kick();
	}
	pthread_mutex_unlock(&nic.lock);
	if (ret)
		free(c);
	return ret;
}

int nic_resize_cq(struct emu_cq *cq, uint64_t buf_addr, uint32_t ncqe,
		  uint32_t cqe_size)
{
	struct emu_nic_cq *c = cq->nic;
	int ret;

	if (!c)
		return 0;
	nic_dma_area((void *)(uintptr_t)buf_addr, (size_t)ncqe * cqe_size);
	pthread_mutex_lock(&nic.lock);
	ret = nic_cq_resize(&c->nc, (uint8_t *)(uintptr_t)buf_addr, ncqe,
			    cqe_size);
	/* CQEs held back for room may fit now */
	if (!ret)
		nic_kick();
	pthread_mutex_unlock(&nic.lock);
	return ret;
}

void nic_detach_cq(struct emu_cq *cq)
{
	struct emu_nic_cq *c = cq->nic;

	if (!c)
		return;
	pthread_mutex_lock(&nic.lock);
	emu_list_del(&c->node);
	pthread_mutex_unlock(&nic.lock);
	cq->nic = NULL;
	free(c);
}

int nic_attach_qp(struct emu_qp *qp)
{
	struct emu_nic_qp *q = calloc(1, sizeof(*q));
	struct nic_qp *nq;
	int ret;

	if (!q)
		return -ENOMEM;
	nq = &q->nq;
	q->qp = qp;
	nq->dev = dev_of(qp->uobj.ctx);
	nq->qpn = qp->qpn;
	nq->type = qp->qp_type;
	/* CQE version 0 puts the SRQN where version 1 has the user index */
	if (qp->uobj.ctx->cqe_version)
		nq->uidx = qp->uidx;
	else
		nq->uidx = qp->srq ? qp->srq->srqn : 0;
	if (qp->srq)
		nq->srq = &qp->srq->nic->ns;
	nq->pdn = qp->pd->pdn;
	nq->state = NIC_QPS_RESET;
	nq->sig_all = qp->sq_sig_all;
	nq->rq = qp->rq_wqe_cnt ? (uint8_t *)(uintptr_t)qp->buf_addr : NULL;
	nq->rq_cnt = qp->rq_wqe_cnt;
	nq->rq_shift = qp->rq_wqe_shift;
	nq->sq = (uint8_t *)(uintptr_t)qp->buf_addr +
		 ((size_t)qp->rq_wqe_cnt << qp->rq_wqe_shift);
	nq->sq_bbs = qp->sq_wqe_cnt;
	nq->dbrec = (uint32_t *)(uintptr_t)qp->db_addr;
	nic_dma_area((void *)(uintptr_t)qp->buf_addr,
		     nq->sq + (size_t)qp->sq_wqe_cnt * MLX5_SEND_WQE_BB -
			     (uint8_t *)(uintptr_t)qp->buf_addr);
	nic_dma_area(nq->dbrec, 8);
	nq->scq = &qp->send_cq->nic->nc;
	nq->rcq = &qp->recv_cq->nic->nc;
	nic_doorbell_map(q);
	pthread_mutex_lock(&nic.lock);
	ret = nic_start();
	if (!ret) {
		emu_list_add_tail(&nic.qps, &q->node);
		qp->nic = q;
		nic_kick();
	}
	pthread_mutex_unlock(&nic.lock);
	if (ret)
		free(q);
	return ret;
}

void nic_modify_qp(struct emu_qp *qp)
{
	struct emu_nic_qp *q = qp->nic;
	struct nic_qp *nq;
	bool new_psn;

	if (!q)
		return;
	nq = &q->nq;
	pthread_mutex_lock(&nic.lock);
	new_psn = qp->state == EMU_QPS_RTR && nq->state < NIC_QPS_RTR;
	nq->access = qp->access;
	nq->qkey = qp->qkey;
	nq->dlid = qp->ah.dlid;
	nq->dest_qpn = qp->dest_qp_num;
	fabric_forget();
	/* the PSNs the application exchanged start the RC transport */
	if (qp->state == EMU_QPS_RTR && nq->state < NIC_QPS_RTR)
		nq->resp_psn = qp->rq_psn & NIC_PSN_MASK;
	if (qp->state == EMU_QPS_RTS && nq->state < NIC_QPS_RTS) {
		nq->req_psn = qp->sq_psn & NIC_PSN_MASK;
		nq->timeout = qp->timeout;
		nq->retry_cnt = qp->retry_cnt;
		nq->retry_until = 0;
		nq->rnr_retry = qp->rnr_retry;
		nq->rnr_count = 0;
		nq->hold_until = 0;
		nq->ack_due = 0;
		nq->ack_retries = 0;
		nq->peer_lost = false;
		nq->sq_sent = nq->sq_ci;
	}
	switch (qp->state) {
	case EMU_QPS_RESET:
		nic_qp_reset(nq);
		break;
	case EMU_QPS_INIT:
		nq->state = NIC_QPS_INIT;
		break;
	case EMU_QPS_RTR:
		nq->state = NIC_QPS_RTR;
		break;
	case EMU_QPS_RTS:
	case EMU_QPS_SQD:
		nq->state = NIC_QPS_RTS;
		break;
	default:
		if (nq->state != NIC_QPS_ERR)
			nic_qp_error(nq);
		break;
	}
	publish_qp(qp, nq, new_psn);
	nic_kick();
	pthread_mutex_unlock(&nic.lock);
}

int nic_attach_srq(struct emu_srq *srq)
{
	struct emu_nic_srq *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->srq = srq;
	q->ns.dev = dev_of(srq->uobj.ctx);
	q->ns.buf = (uint8_t *)(uintptr_t)srq->buf_addr;
	q->ns.nwqe = srq->nwqe;
	q->ns.shift = srq->wqe_shift;
	q->ns.dbrec = (uint32_t *)(uintptr_t)srq->db_addr;
	q->ns.srqn = srq->srqn;
	nic_dma_area(q->ns.buf, (size_t)srq->nwqe << srq->wqe_shift);
	nic_dma_area(q->ns.dbrec, 8);
	nic_srq_init(&q->ns);
	srq->nic = q;
	return 0;
}

void nic_arm_srq(struct emu_srq *srq)
{
	struct emu_nic_srq *q = srq->nic;

	pthread_mutex_lock(&nic.lock);
	q->ns.limit = srq->limit;
	pthread_mutex_unlock(&nic.lock);
}

void nic_detach_srq(struct emu_srq *srq)
{
	/* its QPs are gone, so once we hold the lock nothing takes from it */
	pthread_mutex_lock(&nic.lock);
	pthread_mutex_unlock(&nic.lock);
	free(srq->nic);
	srq->nic = NULL;
}

void nic_forget_mr(struct emu_mr *mr)
{
	struct nic_mr m;

	/* peers first (reregistered: as it is now); a request of theirs
	 * under way ends before */
	if (mr_snapshot(mr, &m))
		fabric_direct_mr(dev_index(mr->uobj.ctx), &m);
	else
		fabric_direct_mr_gone(dev_index(mr->uobj.ctx), mr->rkey);
	/* a WQE using it is finished once we hold the lock */
	pthread_mutex_lock(&nic.lock);
	dev_of(mr->uobj.ctx)->mr_gen++;
	pthread_mutex_unlock(&nic.lock);
}

void nic_detach_qp(struct emu_qp *qp)
{
	struct emu_nic_qp *q = qp->nic;

	if (!q)
		return;
	pthread_mutex_lock(&nic.lock);
	nic_doorbell_watch(q);
	nic_drain_sq(q);
	nic_doorbell_retire(q);
	emu_list_del(&q->node);
	fabric_forget();
	fabric_direct_qp_gone(dev_index(qp->uobj.ctx), &q->nq);
	pthread_mutex_unlock(&nic.lock);
	qp->nic = NULL;
	free(q);
}
