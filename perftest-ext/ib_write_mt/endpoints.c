// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Building and tearing down the initiator's endpoints of one category. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "endpoints.h"
#include "mono_clock.h"
#include "target.h"

struct builder {
	struct wmt_endpoints *e;
	const struct wmt_options *o;
	char *err;
	size_t errlen;
	double start, shown; /* a progress line after a second, on a tty */
	bool progress;
};

/* on a terminal, a setup longer than a second says how far it is */
static void progress(struct builder *b, unsigned int done)
{
	double now;

	if (!b->progress)
		return;
	now = mono_now();
	if (now - b->start < 1 || now - b->shown < 0.25)
		return;
	b->shown = now;
	fprintf(stderr, "\r ib_write_mt: setting up %s: %u of %u endpoints",
		wmt_category_name(b->e->l.cat), done, b->e->l.nvirt);
}

static int fail(struct builder *b, int code, const char *what, int err)
{
	snprintf(b->err, b->errlen, "%s: %s", what, strerror(err ? err : EIO));
	return code;
}

/* the library's TD sharing levels */
static int probe_context(struct builder *b, unsigned int c)
{
	struct mlx5dv_context dv = {};
	struct ibv_device_attr_ex attr = {};
	unsigned int level = b->e->l.td_level;

	if (mlx5dv_query_device(b->e->ctx[c], &dv)) {
		if (level)
			return fail(
				b, PERFTEST_EXIT_UNAVAILABLE,
				"not an mlx5 device: thread-domain levels unknown",
				EOPNOTSUPP);
		return 0;
	}
	if (!level)
		return 0;
	if (ibv_query_device_ex(b->e->ctx[c], NULL, &attr))
		return fail(b, PERFTEST_EXIT_UNAVAILABLE, "ibv_query_device_ex",
			    errno);
	/* an unpatched library leaves the field 0, "not reported" */
	if (!attr.td_sharing_caps) {
		snprintf(
			b->err, b->errlen,
			"libmlx5 has no thread-domain sharing levels (td_sharing_caps 0)");
		return PERFTEST_EXIT_UNAVAILABLE;
	}
	/* --td-fallback: a level the device does not give is passed over */
	if (b->o->td_fallback &&
	    attr.td_sharing_caps & ~((2u << level) - 1) & 0xe)
		return 0;
	if (!(attr.td_sharing_caps & (1u << level))) {
		snprintf(
			b->err, b->errlen,
			"the device cannot give level-%u thread domains (td_sharing_caps 0x%x)%s",
			level, attr.td_sharing_caps,
			b->o->blueflame ? "" : "; BlueFlame is off");
		return PERFTEST_EXIT_UNAVAILABLE;
	}
	return 0;
}

/* where virtual endpoint v's slots are in the arena */
static uint64_t slot_offset(const struct wmt_endpoints *e, unsigned int v)
{
	const struct wmt_layout *l = &e->l;
	uint64_t per_ep = (uint64_t)e->slots * e->size;
	uint64_t buf_stride =
		wmt_align(l->vdeg[RES_BUF] * per_ep, WMT_CACHE_LINE);

	return v / l->vdeg[RES_BUF] * buf_stride +
	       v % l->vdeg[RES_BUF] * per_ep;
}

/* MR m registers the slots of its endpoints, wherever their buffers are */
static int build_mr(struct builder *b, unsigned int m)
{
	struct wmt_endpoints *e = b->e;
	const struct wmt_layout *l = &e->l;
	unsigned int first = m * l->vdeg[RES_MR];
	uint64_t start = slot_offset(e, first);
	uint64_t end = slot_offset(e, first + l->vdeg[RES_MR] - 1) +
		       (uint64_t)e->slots * e->size;

	e->mr[m] = ibv_reg_mr(e->pd[first / l->vdeg[RES_PD]], e->arena + start,
			      end - start, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr[m])
		return fail(b, PERFTEST_EXIT_DEVICE, "ibv_reg_mr", errno);
	return 0;
}

static int build_td(struct builder *b, unsigned int q, unsigned int c)
{
	struct wmt_endpoints *e = b->e;
	struct wmt_qp_ep *qp = &e->qp[q];
	struct ibv_td_init_attr ta = {
		.comp_mask = IBV_TD_INIT_ATTR_SHARING,
		.sharing = e->l.td_level,
	};

	/* the ladder: level 1, else 2, else 3; the level granted comes back */
	if (b->o->td_fallback) {
		ta.comp_mask |= IBV_TD_INIT_ATTR_MAX_SHARING;
		ta.max_sharing = IBV_TD_SHARING_REGISTER;
	}
	struct ibv_parent_domain_init_attr pa = {};
	unsigned int v = q * e->l.vdeg[RES_QP];

	qp->td = ibv_alloc_td(e->ctx[c], &ta);
	if (!qp->td) {
		int err = errno;

		snprintf(b->err, b->errlen,
			 "ibv_alloc_td(sharing=%u%s) for endpoint %u: %s",
			 e->l.td_level,
			 b->o->td_fallback ? ", max_sharing=3" : "", q,
			 strerror(err));
		/* what the device or library cannot give, not a failure */
		return err == EOPNOTSUPP || err == EINVAL || err == ENOMEM ?
			       PERFTEST_EXIT_UNAVAILABLE :
			       PERFTEST_EXIT_DEVICE;
	}
	if (b->o->td_fallback && ta.sharing >= 1 && ta.sharing <= 3) {
		e->usage.td_granted[ta.sharing]++;
		e->usage.td_degraded |= ta.sharing != e->l.td_level;
	}
	pa.pd = e->pd[wmt_layout_index(&e->l, RES_PD, v)];
	pa.td = qp->td;
	qp->parent = ibv_alloc_parent_domain(e->ctx[c], &pa);
	if (!qp->parent)
		return fail(b, PERFTEST_EXIT_DEVICE, "ibv_alloc_parent_domain",
			    errno);
	return 0;
}

static int build_cq(struct builder *b, unsigned int n, unsigned int c)
{
	struct wmt_endpoints *e = b->e;
	const struct wmt_layout *l = &e->l;
	unsigned int v = n * l->vdeg[RES_CQ];
	/* the paper's d/q per endpoint, and room for the last signal */
	struct ibv_cq_init_attr_ex ca = {
		.cqe = l->vdeg[RES_CQ] * (b->o->tx_depth / b->o->cq_mod + 2),
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct mlx5dv_obj obj = {};
	struct mlx5dv_cq dvcq = {};
	struct ibv_cq_ex *cq;

	if (l->vdeg[RES_CQ] == 1) {
		/* one thread polls it: no lock (the parent domain's TD, or
		 * the single-threaded flag) */
		struct ibv_pd *parent = e->qp[v / l->vdeg[RES_QP]].parent;

		if (parent) {
			ca.comp_mask |= IBV_CQ_INIT_ATTR_MASK_PD;
			ca.parent_domain = parent;
		} else {
			ca.comp_mask |= IBV_CQ_INIT_ATTR_MASK_FLAGS;
			ca.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
		}
	}
	cq = ibv_create_cq_ex(e->ctx[c], &ca);
	if (!cq)
		return fail(b, PERFTEST_EXIT_DEVICE, "ibv_create_cq_ex", errno);
	e->cq[n] = ibv_cq_ex_to_cq(cq);
	obj.cq.in = e->cq[n];
	obj.cq.out = &dvcq;
	if (!mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ))
		e->usage.cq_bytes += (uint64_t)dvcq.cqe_cnt * dvcq.cqe_size;
	return 0;
}

static int build_qp(struct builder *b, unsigned int q, unsigned int c)
{
	struct wmt_endpoints *e = b->e;
	const struct wmt_layout *l = &e->l;
	struct wmt_qp_ep *qp = &e->qp[q];
	unsigned int v = q * l->vdeg[RES_QP];
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
		.cap = {
			/* each thread of a shared QP keeps the depth d */
			.max_send_wr = b->o->tx_depth * l->vdeg[RES_QP],
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = b->o->inline_size,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	struct mlx5dv_obj obj = {};
	struct mlx5dv_qp dvqp = {};
	struct ibv_device_attr da;

	/* a shared QP deeper than the device allows: unavailable */
	if (l->vdeg[RES_QP] > 1 && !ibv_query_device(e->ctx[c], &da) &&
	    qa.cap.max_send_wr > (unsigned int)da.max_qp_wr) {
		snprintf(
			b->err, b->errlen,
			"a QP of %u threads x %u WQEs is deeper than the device's max_qp_wr %d: fewer --threads or a smaller -t",
			l->vdeg[RES_QP], b->o->tx_depth, da.max_qp_wr);
		return PERFTEST_EXIT_UNAVAILABLE;
	}
	qp->ctx = c;
	qp->cq = wmt_layout_index(l, RES_CQ, v);
	qa.send_cq = qa.recv_cq = e->cq[qp->cq];
	qa.pd = qp->parent ? qp->parent : e->pd[wmt_layout_index(l, RES_PD, v)];
	qp->qp = ibv_create_qp_ex(e->ctx[c], &qa);
	if (!qp->qp)
		return fail(b, PERFTEST_EXIT_DEVICE, "ibv_create_qp_ex", errno);
	obj.qp.in = qp->qp;
	obj.qp.out = &dvqp;
	if (!mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP)) {
		qp->bf_reg = (uintptr_t)dvqp.bf.reg;
		qp->bytes = (uint64_t)dvqp.sq.wqe_cnt * dvqp.sq.stride +
			    (uint64_t)dvqp.rq.wqe_cnt * dvqp.rq.stride;
		e->usage.qp_bytes += qp->bytes;
	}
	return 0;
}

/* everything of context c, in the order each object needs the others */
static int build_context(struct builder *b, struct ibv_device *dev,
			 unsigned int c)
{
	struct wmt_endpoints *e = b->e;
	const struct wmt_layout *l = &e->l;
	unsigned int v, first = c * l->vdeg[RES_CTX];
	int ret;

	e->ctx[c] = ibv_open_device(dev);
	if (!e->ctx[c])
		return fail(b, PERFTEST_EXIT_DEVICE, "ibv_open_device", errno);
	ret = probe_context(b, c);
	for (v = first; !ret && v < first + l->vdeg[RES_CTX]; v++) {
		progress(b, v);
		if (v % l->vdeg[RES_PD] == 0) {
			e->pd[v / l->vdeg[RES_PD]] = ibv_alloc_pd(e->ctx[c]);
			if (!e->pd[v / l->vdeg[RES_PD]])
				ret = fail(b, PERFTEST_EXIT_DEVICE,
					   "ibv_alloc_pd", errno);
		}
		if (!ret && v % l->vdeg[RES_MR] == 0)
			ret = build_mr(b, v / l->vdeg[RES_MR]);
		if (!ret && l->td_level && v % l->vdeg[RES_QP] == 0)
			ret = build_td(b, v / l->vdeg[RES_QP], c);
		if (!ret && v % l->vdeg[RES_CQ] == 0)
			ret = build_cq(b, v / l->vdeg[RES_CQ], c);
		if (!ret && v % l->vdeg[RES_QP] == 0)
			ret = build_qp(b, v / l->vdeg[RES_QP], c);
	}
	return ret;
}

/* the UAR pages the contexts mapped since before: two reads in all */
static void count_mapped_pages(struct wmt_endpoints *e,
			       const struct wmt_maps *before)
{
	unsigned int c, n = e->l.count[RES_CTX];
	int *fds = calloc(n ? n : 1, sizeof(*fds));
	struct wmt_maps after;

	if (!fds || wmt_maps_snapshot(&after)) {
		free(fds);
		return;
	}
	for (c = 0; c < n; c++)
		fds[c] = e->ctx[c]->cmd_fd;
	e->usage.uar_pages = wmt_maps_device_pages(before, &after, fds, n,
						   &e->usage.uar_mappings);
	wmt_maps_free(&after);
	free(fds);
}

static void place_threads(struct wmt_endpoints *e)
{
	const struct wmt_layout *l = &e->l;
	unsigned int t;

	for (t = 0; t < l->threads; t++) {
		struct wmt_thread_ep *th = &e->th[t];
		unsigned int v = t * l->factor;

		th->qp = wmt_layout_index(l, RES_QP, v);
		th->cq = wmt_layout_index(l, RES_CQ, v);
		th->src = e->arena + slot_offset(e, v);
		th->lkey = e->mr[wmt_layout_index(l, RES_MR, v)]->lkey;
		e->qp[th->qp].users++;
	}
}

static void count_usage(struct wmt_endpoints *e)
{
	const struct wmt_layout *l = &e->l;
	unsigned int n = l->count[RES_QP], q, t;
	uintptr_t *regs = calloc(n, sizeof(*regs));
	unsigned int *users = calloc(n, sizeof(*users));
	enum wmt_level *level = calloc(n, sizeof(*level));

	memcpy(e->usage.count, l->count, sizeof(e->usage.count));
	e->usage.tds = l->td_level ? l->count[RES_QP] : 0;
	e->usage.buf_bytes = e->arena_len;
	e->usage.emu_uars = -1;
	if (regs && users && level) {
		for (q = 0; q < n; q++) {
			regs[q] = e->qp[q].bf_reg;
			users[q] = e->qp[q].users;
		}
		wmt_bf_usage(regs, users, n, &e->usage.pages_used,
			     &e->usage.uuars_used, level);
		for (q = 0; q < n; q++)
			e->qp[q].level = level[q];
		for (t = 0; t < l->threads; t++)
			e->usage.levels[e->qp[e->th[t].qp].level]++;
	}
	free(regs);
	free(users);
	free(level);
}

int wmt_endpoints_build(struct wmt_endpoints *e, const struct wmt_options *o,
			const struct wmt_layout *l, struct ibv_device *dev,
			unsigned int slots, char *err, size_t errlen)
{
	struct builder b = { .e = e, .o = o, .err = err, .errlen = errlen };
	struct wmt_maps before;
	unsigned int c;
	int ret = 0;

	memset(e, 0, sizeof(*e));
	e->l = *l;
	e->slots = slots;
	e->size = o->size;
	/* the buffers: cache-line aligned unless threads share one */
	e->arena_len = l->count[RES_BUF] *
		       wmt_align((uint64_t)l->vdeg[RES_BUF] * slots * o->size,
				 WMT_CACHE_LINE);
	ret = posix_memalign((void **)&e->arena, 4096, e->arena_len);
	if (ret) {
		e->arena = NULL;
		ret = fail(&b, PERFTEST_EXIT_DEVICE, "buffers", ret);
		goto err;
	}
	memset(e->arena, 0, e->arena_len);
	e->ctx = calloc(l->count[RES_CTX], sizeof(*e->ctx));
	e->pd = calloc(l->count[RES_PD], sizeof(*e->pd));
	e->mr = calloc(l->count[RES_MR], sizeof(*e->mr));
	e->cq = calloc(l->count[RES_CQ], sizeof(*e->cq));
	e->qp = calloc(l->count[RES_QP], sizeof(*e->qp));
	e->th = calloc(l->threads, sizeof(*e->th));
	if (!e->ctx || !e->pd || !e->mr || !e->cq || !e->qp || !e->th) {
		ret = fail(&b, PERFTEST_EXIT_DEVICE, "endpoint tables", ENOMEM);
		goto err;
	}
	b.start = b.shown = mono_now();
	b.progress = isatty(STDERR_FILENO);
	if (wmt_maps_snapshot(&before)) {
		ret = fail(&b, PERFTEST_EXIT_DEVICE, "/proc/self/maps", errno);
		goto err;
	}
	for (c = 0; !ret && c < l->count[RES_CTX]; c++)
		ret = build_context(&b, dev, c);
	if (!ret)
		count_mapped_pages(e, &before);
	wmt_maps_free(&before);
	if (b.progress && b.shown > b.start)
		fputs("\r\033[K", stderr);
	if (ret)
		goto err;
	place_threads(e);
	count_usage(e);
	return 0;
err:
	wmt_endpoints_destroy(e);
	return ret;
}

int wmt_endpoints_connect(struct wmt_endpoints *e, const struct wmt_options *o,
			  const struct rc_addr *remote, struct rc_addr *local,
			  char *err, size_t errlen)
{
	unsigned int q, k = 0;
	int ret;

	for (q = 0; q < e->l.count[RES_QP]; q++) {
		struct wmt_qp_ep *qp = &e->qp[q];

		if (!qp->users)
			continue;
		/* our half of the address: the context's port, QPN and PSN */
		ret = rc_port_addr(e->ctx[qp->ctx], o->ib_port, o->gid_index,
				   &local[k]);
		local[k].qpn = qp->qp->qp_num;
		local[k].psn = wmt_psn(local[k].qpn);
		if (!ret)
			ret = rc_qp_init(qp->qp, o->ib_port, 0);
		if (!ret)
			ret = rc_qp_connect(qp->qp, o->ib_port, o->gid_index,
					    &local[k], &remote[k]);
		if (ret) {
			snprintf(err, errlen, "connecting QP 0x%x: %s",
				 qp->qp->qp_num, strerror(ret));
			return PERFTEST_EXIT_DEVICE;
		}
		k++;
	}
	return 0;
}

/* the emulator counts the UARs of every context holding one of our QPs */
void wmt_endpoints_emu_usage(struct wmt_endpoints *e)
{
	unsigned int q, n = 0, uars, ctxs;
	uint32_t *qpns = calloc(e->l.count[RES_QP] + 1, sizeof(*qpns));

	if (!qpns)
		return;
	for (q = 0; q < e->l.count[RES_QP]; q++)
		if (e->qp[q].qp)
			qpns[n++] = e->qp[q].qp->qp_num;
	if (!wmt_emu_uars(qpns, n, &uars, &ctxs) && ctxs == e->l.count[RES_CTX])
		e->usage.emu_uars = uars;
	free(qpns);
}

void wmt_endpoints_destroy(struct wmt_endpoints *e)
{
	const struct wmt_layout *l = &e->l;
	unsigned int i;

	for (i = 0; e->qp && i < l->count[RES_QP]; i++)
		if (e->qp[i].qp)
			ibv_destroy_qp(e->qp[i].qp);
	for (i = 0; e->cq && i < l->count[RES_CQ]; i++)
		if (e->cq[i])
			ibv_destroy_cq(e->cq[i]);
	for (i = 0; e->qp && i < l->count[RES_QP]; i++) {
		if (e->qp[i].parent)
			ibv_dealloc_pd(e->qp[i].parent);
		if (e->qp[i].td)
			ibv_dealloc_td(e->qp[i].td);
	}
	for (i = 0; e->mr && i < l->count[RES_MR]; i++)
		if (e->mr[i])
			ibv_dereg_mr(e->mr[i]);
	free(e->arena);
	for (i = 0; e->pd && i < l->count[RES_PD]; i++)
		if (e->pd[i])
			ibv_dealloc_pd(e->pd[i]);
	for (i = 0; e->ctx && i < l->count[RES_CTX]; i++)
		if (e->ctx[i])
			ibv_close_device(e->ctx[i]);
	free(e->ctx);
	free(e->pd);
	free(e->mr);
	free(e->cq);
	free(e->qp);
	free(e->th);
	memset(e, 0, sizeof(*e));
}
