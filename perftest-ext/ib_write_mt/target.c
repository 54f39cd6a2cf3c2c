// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The target of the writes: its context, MR and one RC QP per initiator QP. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

static int fail(char *err, size_t errlen, const char *what, int e)
{
	snprintf(err, errlen, "target: %s: %s", what, strerror(e ? e : EIO));
	return PERFTEST_EXIT_DEVICE;
}

int wmt_target_create(struct wmt_target *t, struct ibv_device *dev,
		      const struct wmt_options *o, const struct wmt_regions *r,
		      unsigned int nqps, struct rc_addr *local, char *err,
		      size_t errlen)
{
	struct rc_addr port;
	unsigned int k;
	void *mem;
	int ret;

	memset(t, 0, sizeof(*t));
	t->regions = *r;
	t->ctx = ibv_open_device(dev);
	if (!t->ctx)
		return fail(err, errlen, "ibv_open_device", errno);
	ret = rc_port_addr(t->ctx, o->ib_port, o->gid_index, &port);
	if (ret) {
		ret = fail(err, errlen, "port", ret);
		goto err;
	}
	t->pd = ibv_alloc_pd(t->ctx);
	if (!t->pd) {
		ret = fail(err, errlen, "ibv_alloc_pd", errno);
		goto err;
	}
	ret = posix_memalign(&mem, 4096, wmt_align(r->total, 4096));
	if (ret) {
		ret = fail(err, errlen, "regions", ret);
		goto err;
	}
	t->mem = mem;
	wmt_regions_prepare(r, t->mem);
	t->mr = ibv_reg_mr(t->pd, t->mem, r->total,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!t->mr) {
		ret = fail(err, errlen, "ibv_reg_mr", errno);
		goto err;
	}
	/* RDMA writes without immediate complete nothing here */
	t->cq = ibv_create_cq(t->ctx, 1, NULL, NULL, 0);
	if (!t->cq) {
		ret = fail(err, errlen, "ibv_create_cq", errno);
		goto err;
	}
	t->qp = calloc(nqps, sizeof(*t->qp));
	if (!t->qp) {
		ret = fail(err, errlen, "QP table", ENOMEM);
		goto err;
	}
	t->nqps = nqps;
	for (k = 0; k < nqps; k++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = t->cq,
			.recv_cq = t->cq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1,
				 .max_recv_wr = 1,
				 .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		t->qp[k] = ibv_create_qp(t->pd, &qa);
		if (!t->qp[k]) {
			ret = fail(err, errlen, "ibv_create_qp", errno);
			goto err;
		}
		ret = rc_qp_init(t->qp[k], o->ib_port, IBV_ACCESS_REMOTE_WRITE);
		if (ret) {
			ret = fail(err, errlen, "QP to INIT", ret);
			goto err;
		}
		local[k] = port;
		local[k].qpn = t->qp[k]->qp_num;
		local[k].psn = wmt_psn(local[k].qpn);
	}
	return 0;
err:
	wmt_target_destroy(t);
	return ret;
}

int wmt_target_connect(struct wmt_target *t, const struct wmt_options *o,
		       const struct rc_addr *local,
		       const struct rc_addr *remote, char *err, size_t errlen)
{
	unsigned int k;
	int ret;

	for (k = 0; k < t->nqps; k++) {
		/* a responder only needs RTR */
		ret = rc_qp_rtr(t->qp[k], o->ib_port, o->gid_index, &local[k],
				&remote[k]);
		if (ret)
			return fail(err, errlen, "QP to RTR", ret);
	}
	return 0;
}

void wmt_target_destroy(struct wmt_target *t)
{
	unsigned int k;

	for (k = 0; t->qp && k < t->nqps; k++)
		if (t->qp[k])
			ibv_destroy_qp(t->qp[k]);
	free(t->qp);
	if (t->cq)
		ibv_destroy_cq(t->cq);
	if (t->mr)
		ibv_dereg_mr(t->mr);
	free(t->mem);
	if (t->pd)
		ibv_dealloc_pd(t->pd);
	if (t->ctx)
		ibv_close_device(t->ctx);
	memset(t, 0, sizeof(*t));
}
