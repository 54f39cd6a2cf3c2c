// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The NIC thread and its glue to the emulated device's objects.
 *
 * One thread per process executes every QP's SQ, so all NIC work is
 * serialised by nic.lock; the control path takes the same lock, which is
 * what makes modify-to-RESET and destroy synchronous (no CQE after return).
 *
 * Doorbells are plain stores into the application's memory, so they cannot
 * wake us: the thread polls SND_DBR/ARM_DB, spins a little while there is
 * work and then sleeps with growing intervals (in poll() on the fabric's
 * sockets, so a peer's request still wakes it at once). MLX5EMU_NIC=spin
 * never sleeps (benchmarks); MLX5EMU_NIC_IDLE_US caps the sleep;
 * MLX5EMU_NIC_BUDGET=1 steps every QP one WQE per pass (determinism).
 *
 * UAR writes are used for attribution only: the first 8 bytes of every
 * bfreg half are swapped to zero, and a non-zero value is a ring whose
 * qpn_ds says which QP rang on which UAR page and slot.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* verbs.h (via nic.h) first: it defines RDMA_UAPI_PTR the uapi reuses */
#include "nic.h"
#include "../fabric/fabric.h"
#include "../mlx5emu.h"

#define NIC_BUDGET 64 /* WQEs per QP per pass, for fairness */
#define NIC_SPIN_PASSES 256 /* idle passes before the first sleep */
#define NIC_SLOTS 4 /* bfreg halves at 0x800..0xb00 of a UAR */
#define NIC_MAX_RINGS 1024

struct emu_nic_qp {
	struct nic_qp nq;
	struct emu_list node;
	struct emu_qp *qp;
	uint64_t *slot[NIC_SLOTS];
};

struct emu_nic_cq {
	struct nic_cq nc;
	struct nic_dev *dev;
	struct emu_list node;
	struct emu_cq *cq;
};

struct emu_nic_srq {
	struct nic_srq ns;
	struct emu_srq *srq;
};

struct ring_rec {
	uint32_t ctx, page_id, slot, qpn;
	uint64_t count;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool started;
	bool atfork;
	bool spin;
	unsigned int idle_max_us;
	unsigned int kicks; /* control-path changes the thread should see */
	unsigned int passes;
	unsigned int budget; /* WQEs per QP per pass */
	bool stat_dirty; /* ring counts changed since the stat file */
	struct timespec stat_time;
	struct emu_list qps, cqs;
	struct nic_dev dev[EMU_MAX_DEVICES];
	struct ring_rec rings[NIC_MAX_RINGS];
	unsigned int nrings;
} nic = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.qps = { &nic.qps, &nic.qps },
	.cqs = { &nic.cqs, &nic.cqs },
};

/* ---- device callbacks ---- */

static int glue_mr_lookup(struct nic_dev *ndev, uint32_t key,
			  struct nic_mr *out)
{
	struct emu_device *dev = ndev->priv;
	struct emu_mr *mr;
	int ret = -1;

	pthread_mutex_lock(&dev->lock);
	mr = emu_mr_lookup(dev, key);
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

static void glue_comp_event(struct nic_dev *ndev, struct nic_cq *nc)
{
	struct emu_cq *cq = ((struct emu_nic_cq *)nc->priv)->cq;

	(void)ndev;
	if (cq->channel)
		emu_event_push_comp(cq->channel, cq);
}

static void glue_qp_event(struct nic_dev *ndev, struct nic_qp *nq, int event)
{
	struct emu_qp *qp = ((struct emu_nic_qp *)nq->priv)->qp;
	struct emu_context *ctx = qp->uobj.ctx;

	(void)ndev;
	if (ctx->async)
		emu_event_push_async(ctx->async, &qp->uobj,
				     qp->uobj.user_handle, event);
}

static void glue_srq_event(struct nic_dev *ndev, struct nic_srq *ns, int event)
{
	struct emu_srq *srq = ((struct emu_nic_srq *)ns->priv)->srq;
	struct emu_context *ctx = srq->uobj.ctx;

	(void)ndev;
	/* QUERY_SRQ reads 0 from now on: the limit is disarmed */
	__atomic_store_n(&srq->limit, 0, __ATOMIC_RELAXED);
	if (ctx->async)
		emu_event_push_async(ctx->async, &srq->uobj,
				     srq->uobj.user_handle, event);
}

static void glue_qp_error(struct nic_dev *ndev, struct nic_qp *nq)
{
	struct emu_qp *qp = ((struct emu_nic_qp *)nq->priv)->qp;

	(void)ndev;
	/* the modify path holds the context lock, we don't: one store */
	__atomic_store_n(&qp->state, EMU_QPS_ERR, __ATOMIC_RELAXED);
}

static const struct nic_dev_ops glue_ops = {
	.qp_error = glue_qp_error,
	.mr_lookup = glue_mr_lookup,
	.comp_event = glue_comp_event,
	.qp_event = glue_qp_event,
	.srq_event = glue_srq_event,
	.xmit = fabric_xmit,
};

struct nic_qp *emu_nic_find_qp(uint16_t dlid, uint32_t qpn)
{
	unsigned int i, p;

	for (i = 0; i < emu_cfg.ndevices; i++) {
		struct emu_device *dev = &emu_devices[i];
		struct emu_qp *qp;

		for (p = 0; p < emu_cfg.nports; p++)
			if (dev->port[p].lid == dlid)
				break;
		if (p == emu_cfg.nports)
			continue;
		pthread_mutex_lock(&dev->lock);
		qp = emu_qp_lookup(dev, qpn);
		pthread_mutex_unlock(&dev->lock);
		return qp && qp->nic ? &((struct emu_nic_qp *)qp->nic)->nq :
				       NULL;
	}
	return NULL;
}

/* every QP talking to the process in that fabric slot loses its answers */
void emu_nic_peer_lost(uint32_t slot)
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

/* ---- doorbell attribution ---- */

static void ring_record(struct emu_nic_qp *q, unsigned int s, uint64_t v)
{
	struct emu_qp *qp = q->qp;
	uint32_t qpn_ds, qpn, i;
	uint32_t ctx = qp->uobj.ctx->id;
	struct ring_rec *r;

	memcpy(&qpn_ds, (uint8_t *)&v + 4, 4);
	qpn = be32toh(qpn_ds) >> 8;
	for (i = 0; i < nic.nrings; i++) {
		r = &nic.rings[i];
		if (r->ctx == ctx && r->page_id == qp->uar_id && r->slot == s &&
		    r->qpn == qpn) {
			r->count++;
			return;
		}
	}
	if (nic.nrings == NIC_MAX_RINGS)
		return;
	r = &nic.rings[nic.nrings++];
	r->ctx = ctx;
	r->page_id = qp->uar_id;
	r->slot = s;
	r->qpn = qpn;
	r->count = 1;
	nic.stat_dirty = true;
}

static void watch_rings(struct emu_nic_qp *q)
{
	unsigned int s;

	for (s = 0; s < NIC_SLOTS; s++) {
		uint64_t v;

		if (!q->slot[s] ||
		    !__atomic_load_n(q->slot[s], __ATOMIC_RELAXED))
			continue;
		v = __atomic_exchange_n(q->slot[s], 0, __ATOMIC_ACQ_REL);
		if (v)
			ring_record(q, s, v);
	}
}

void emu_nic_stat_write(FILE *f, int pid, struct emu_context *ctx)
{
	unsigned int i;

	pthread_mutex_lock(&nic.lock);
	for (i = 0; i < nic.nrings; i++) {
		struct ring_rec *r = &nic.rings[i];

		if (r->ctx != ctx->id)
			continue;
		fprintf(f,
			"ring pid=%d ctx=%u page_id=0x%x slot=0x%x qpn=0x%x count=%llu\n",
			pid, r->ctx, r->page_id, 0x800 + r->slot * 0x100,
			r->qpn, (unsigned long long)r->count);
	}
	pthread_mutex_unlock(&nic.lock);
}

/* ---- the thread ---- */

static unsigned int nic_pass(void)
{
	unsigned int work = 0;
	struct emu_list *pos, *tmp;

	emu_list_for_each_safe(pos, tmp, &nic.qps)
	{
		struct emu_nic_qp *q =
			container_of(pos, struct emu_nic_qp, node);

		watch_rings(q);
		work += nic_sq_process(&q->nq, nic.budget);
	}
	fabric_flush();
	/* an arm that comes after its CQE fires here */
	emu_list_for_each_safe(pos, tmp, &nic.cqs)
	{
		struct emu_nic_cq *c =
			container_of(pos, struct emu_nic_cq, node);

		work += nic_cq_poll_arm(c->dev, &c->nc);
	}
	/* peers' requests: every pass when idle, now and then when busy */
	if (!work || !(++nic.passes & 15))
		work += fabric_serve();
	return work;
}

/*
 * Rewrite the attribution file when ring counts changed, at most once a
 * second. Called with nic.lock held; drops it, since the stat writer
 * takes the stat lock and then ours.
 */
static void stat_refresh(void)
{
	struct timespec now;

	if (!nic.stat_dirty)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec == nic.stat_time.tv_sec)
		return;
	nic.stat_time = now;
	nic.stat_dirty = false;
	pthread_mutex_unlock(&nic.lock);
	emu_stat_changed();
	pthread_mutex_lock(&nic.lock);
}

static void nic_sleep(unsigned int us)
{
	struct pollfd fds[2 * FABRIC_MAX_SLOTS + 1];
	int n = fabric_fds(fds, 2 * FABRIC_MAX_SLOTS + 1);
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	pthread_mutex_unlock(&nic.lock);
	/* a request from a peer process ends the sleep early */
	ppoll(fds, n, &ts, NULL);
	pthread_mutex_lock(&nic.lock);
}

static void *nic_thread(void *arg)
{
	unsigned int idle = 0, sleep_us = 1, kicks = 0;

	(void)arg;
	/* the back-off relies on short sleeps being short */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_mutex_lock(&nic.lock);
	for (;;) {
		if (!(nic.passes & 4095))
			stat_refresh();
		if (nic_pass() || kicks != nic.kicks) {
			kicks = nic.kicks;
			idle = 0;
			sleep_us = 1;
			continue;
		}
		if (emu_list_empty(&nic.qps) && emu_list_empty(&nic.cqs)) {
			/* nothing to watch: wait for the control path */
			pthread_cond_wait(&nic.wake, &nic.lock);
			continue;
		}
		if (nic.spin || ++idle < NIC_SPIN_PASSES) {
			pthread_mutex_unlock(&nic.lock);
			if (!(idle & 63))
				sched_yield();
			pthread_mutex_lock(&nic.lock);
			continue;
		}
		stat_refresh();
		nic_sleep(sleep_us);
		if (sleep_us < nic.idle_max_us)
			sleep_us *= 2;
	}
	return NULL;
}

/*
 * fork(): the child has no NIC thread and a copy of our lock in whatever
 * state the thread left it. The parent's contexts are dead in the child,
 * so start from nothing; a context it opens gets a NIC and a fabric slot
 * of its own.
 */
/* the NIC thread takes dev->lock only inside nic.lock: hold that */
static void nic_atfork_prepare(void)
{
	pthread_mutex_lock(&nic.lock);
}

static void nic_atfork_parent(void)
{
	pthread_mutex_unlock(&nic.lock);
}

static void nic_atfork_child(void)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

	nic.lock = lock;
	nic.wake = wake;
	nic.started = false;
	emu_list_init(&nic.qps);
	emu_list_init(&nic.cqs);
	nic.nrings = 0;
	fabric_atfork_child();
}

/* called with nic.lock held */
static int nic_start(void)
{
	const char *mode = getenv("MLX5EMU_NIC");
	const char *idle = getenv("MLX5EMU_NIC_IDLE_US");
	const char *budget = getenv("MLX5EMU_NIC_BUDGET");
	pthread_attr_t attr;
	pthread_t t;
	unsigned int i;
	int ret;

	if (nic.started)
		return 0;
	nic.spin = mode && !strcmp(mode, "spin");
	/* 1 makes QPs advance one WQE at a time, round robin: for tests */
	nic.budget = budget ? strtoul(budget, NULL, 0) : NIC_BUDGET;
	if (!nic.budget)
		nic.budget = NIC_BUDGET;
	nic.idle_max_us = idle ? strtoul(idle, NULL, 0) : 200;
	if (!nic.idle_max_us)
		nic.idle_max_us = 1;
	for (i = 0; i < EMU_MAX_DEVICES; i++) {
		nic.dev[i].ops = &glue_ops;
		nic.dev[i].priv = &emu_devices[i];
		nic.dev[i].lid = emu_devices[i].port[0].lid;
	}
	ret = fabric_init();
	if (ret)
		return ret;
	if (!nic.atfork) {
		pthread_atfork(nic_atfork_prepare, nic_atfork_parent,
			       nic_atfork_child);
		nic.atfork = true;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&t, &attr, nic_thread, NULL);
	pthread_attr_destroy(&attr);
	if (ret)
		return -ret;
	nic.started = true;
	return 0;
}

static void kick(void)
{
	nic.kicks++;
	pthread_cond_signal(&nic.wake);
}

/* ---- control path ---- */

static struct nic_dev *dev_of(struct emu_context *ctx)
{
	return &nic.dev[ctx->dev - emu_devices];
}

int emu_nic_cq_create(struct emu_cq *cq)
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
	c->nc.priv = c;
	pthread_mutex_lock(&nic.lock);
	ret = nic_start();
	if (!ret) {
		nic_cq_init(&c->nc);
		emu_list_add_tail(&nic.cqs, &c->node);
		cq->nic = c;
		kick();
	}
	pthread_mutex_unlock(&nic.lock);
	if (ret)
		free(c);
	return ret;
}

int emu_nic_cq_resize(struct emu_cq *cq, uint64_t buf_addr, uint32_t ncqe,
		      uint32_t cqe_size)
{
	struct emu_nic_cq *c = cq->nic;
	int ret;

	if (!c)
		return 0;
	pthread_mutex_lock(&nic.lock);
	ret = nic_cq_resize(&c->nc, (uint8_t *)(uintptr_t)buf_addr, ncqe,
			    cqe_size);
	/* CQEs held back for room may fit now */
	if (!ret)
		kick();
	pthread_mutex_unlock(&nic.lock);
	return ret;
}

void emu_nic_cq_destroy(struct emu_cq *cq)
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

int emu_nic_qp_create(struct emu_qp *qp)
{
	struct emu_nic_qp *q = calloc(1, sizeof(*q));
	struct nic_qp *nq;
	int ret;

	if (!q)
		return -ENOMEM;
	nq = &q->nq;
	q->qp = qp;
	nq->priv = q;
	nq->dev = dev_of(qp->uobj.ctx);
	nq->qpn = qp->qpn;
	nq->type = qp->qp_type;
	/* CQE version 0 puts the SRQN where version 1 has the user index */
	if (qp->uobj.ctx->cqe_version)
		nq->uidx = qp->uidx;
	else
		nq->uidx = qp->srq ? qp->srq->srqn : 0;
	if (qp->srq)
		nq->srq = &((struct emu_nic_srq *)qp->srq->nic)->ns;
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
	nq->scq = &((struct emu_nic_cq *)qp->send_cq->nic)->nc;
	nq->rcq = &((struct emu_nic_cq *)qp->recv_cq->nic)->nc;
	if (qp->uar && qp->uar->alias) {
		uint8_t *uar = (uint8_t *)qp->uar->alias +
			       (size_t)(qp->uar_id - qp->uar->page_id) *
				       EMU_ADAPTER_PAGE;
		unsigned int s;

		for (s = 0; s < NIC_SLOTS; s++)
			q->slot[s] = (uint64_t *)(uar + 0x800 + s * 0x100);
	}
	pthread_mutex_lock(&nic.lock);
	ret = nic_start();
	if (!ret) {
		emu_list_add_tail(&nic.qps, &q->node);
		qp->nic = q;
		kick();
	}
	pthread_mutex_unlock(&nic.lock);
	if (ret)
		free(q);
	return ret;
}

void emu_nic_qp_modify(struct emu_qp *qp)
{
	struct emu_nic_qp *q = qp->nic;
	struct nic_qp *nq;

	if (!q)
		return;
	nq = &q->nq;
	pthread_mutex_lock(&nic.lock);
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
	kick();
	pthread_mutex_unlock(&nic.lock);
}

int emu_nic_srq_create(struct emu_srq *srq)
{
	struct emu_nic_srq *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->srq = srq;
	q->ns.priv = q;
	q->ns.dev = dev_of(srq->uobj.ctx);
	q->ns.buf = (uint8_t *)(uintptr_t)srq->buf_addr;
	q->ns.nwqe = srq->nwqe;
	q->ns.shift = srq->wqe_shift;
	q->ns.dbrec = (uint32_t *)(uintptr_t)srq->db_addr;
	q->ns.srqn = srq->srqn;
	nic_srq_init(&q->ns);
	srq->nic = q;
	return 0;
}

void emu_nic_srq_modify(struct emu_srq *srq)
{
	struct emu_nic_srq *q = srq->nic;

	pthread_mutex_lock(&nic.lock);
	q->ns.limit = srq->limit;
	pthread_mutex_unlock(&nic.lock);
}

void emu_nic_srq_destroy(struct emu_srq *srq)
{
	/* its QPs are gone, so once we hold the lock nothing takes from it */
	pthread_mutex_lock(&nic.lock);
	pthread_mutex_unlock(&nic.lock);
	free(srq->nic);
	srq->nic = NULL;
}

void emu_nic_mr_destroy(struct emu_mr *mr)
{
	/* a WQE using it is finished once we hold the lock */
	pthread_mutex_lock(&nic.lock);
	nic.dev[mr->uobj.ctx->dev - emu_devices].mr_gen++;
	pthread_mutex_unlock(&nic.lock);
}

void emu_nic_qp_destroy(struct emu_qp *qp)
{
	struct emu_nic_qp *q = qp->nic;

	if (!q)
		return;
	pthread_mutex_lock(&nic.lock);
	watch_rings(q);
	emu_list_del(&q->node);
	fabric_forget();
	pthread_mutex_unlock(&nic.lock);
	qp->nic = NULL;
	free(q);
}
