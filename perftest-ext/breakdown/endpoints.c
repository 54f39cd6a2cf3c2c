// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Opening and closing the loopback QPs one run measures on (endpoints.h). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoints.h"
#include "rc_connect.h"

#define BUF_SIZE 4096

static int fail(const char *what, int err)
{
	fprintf(stderr, "ib_write_breakdown: %s: %s\n", what, strerror(err));
	return -err;
}

static struct ibv_qp *target_open(struct bd_endpoints *e)
{
	struct ibv_qp_init_attr a = {
		.send_cq = e->target_cq,
		.recv_cq = e->target_cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1,
			 .max_recv_wr = 1,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(e->pd, &a);
}

static int sender_open(struct bd_endpoints *e, struct bd_sender *s,
		       bool with_td)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = BD_SQ_DEPTH,
			 .max_recv_wr = 1,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = 8 },
		.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct ibv_pd *pd = e->pd;
	int err;

	if (with_td) {
		struct ibv_td_init_attr ta = {};
		struct ibv_parent_domain_init_attr pa = { .pd = e->pd };
		struct ibv_cq_init_attr_ex ca = {
			.cqe = BD_SQ_DEPTH,
			.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		};

		s->td = ibv_alloc_td(e->ctx, &ta);
		if (!s->td)
			return fail("ibv_alloc_td", errno);
		pa.td = s->td;
		s->parent = ibv_alloc_parent_domain(e->ctx, &pa);
		if (!s->parent)
			return fail("ibv_alloc_parent_domain", errno);
		pd = s->parent;
		ca.parent_domain = s->parent;
		s->cqx = ibv_create_cq_ex(e->ctx, &ca);
		s->cq = s->cqx ? ibv_cq_ex_to_cq(s->cqx) : NULL;
	} else {
		s->cq = ibv_create_cq(e->ctx, BD_SQ_DEPTH, NULL, NULL, 0);
	}
	if (!s->cq)
		return fail("create CQ", errno);
	qa.send_cq = qa.recv_cq = s->cq;
	qa.pd = pd;
	s->qp = ibv_create_qp_ex(e->ctx, &qa);
	if (!s->qp)
		return fail("ibv_create_qp_ex", errno);
	s->qpx = ibv_qp_to_qp_ex(s->qp);
	s->target = target_open(e);
	if (!s->target)
		return fail("create target QP", errno);
	err = rc_connect_pair(s->qp, s->target, 1, IBV_ACCESS_REMOTE_WRITE);
	if (err)
		return fail("connect", err);
	err = bd_raw_cq_init(&s->peek, s->cq);
	if (err)
		return fail("mlx5dv_init_obj(CQ)", err);
	return 0;
}

int bd_endpoints_open(struct bd_endpoints *e, const char *device)
{
	struct ibv_device **list = ibv_get_device_list(NULL), **d;
	int i, err;

	memset(e, 0, sizeof(*e));
	if (!list)
		return fail(
			"no RDMA devices (on a machine without, try mlx5emu run)",
			errno);
	for (d = list; *d; d++)
		if (!device || !strcmp(ibv_get_device_name(*d), device))
			break;
	if (!*d) {
		ibv_free_device_list(list);
		fprintf(stderr, "ib_write_breakdown: no RDMA device%s%s%s\n",
			device ? " named " : "", device ? device : "",
			device ? "" :
				 " (on a machine without, try mlx5emu run)");
		return -ENODEV;
	}
	e->ctx = ibv_open_device(*d);
	ibv_free_device_list(list);
	if (!e->ctx)
		return fail("ibv_open_device", errno);
	e->pd = ibv_alloc_pd(e->ctx);
	e->target_cq = ibv_create_cq(e->ctx, 4, NULL, NULL, 0);
	e->buf = calloc(1, BUF_SIZE);
	if (!e->pd || !e->target_cq || !e->buf)
		return fail("PD/CQ/buffer", errno ? errno : ENOMEM);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!e->mr)
		return fail("ibv_reg_mr", errno);
	for (i = 0; i < BD_NSENDERS; i++) {
		err = sender_open(e, &e->src[i], i != BD_SENDER_PLAIN);
		if (err)
			return err;
	}
	err = bd_raw_qp_init(&e->raw, e->src[BD_SENDER_RAW].qp,
			     e->src[BD_SENDER_RAW].cq, (uintptr_t)e->buf,
			     e->mr->rkey);
	if (err)
		return fail("mlx5dv_init_obj(QP)", err);
	return 0;
}

void bd_endpoints_close(struct bd_endpoints *e)
{
	int i;

	for (i = 0; i < BD_NSENDERS; i++) {
		struct bd_sender *s = &e->src[i];

		if (s->qp)
			ibv_destroy_qp(s->qp);
		if (s->target)
			ibv_destroy_qp(s->target);
		if (s->cq)
			ibv_destroy_cq(s->cq);
		if (s->parent)
			ibv_dealloc_pd(s->parent);
		if (s->td)
			ibv_dealloc_td(s->td);
	}
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->target_cq)
		ibv_destroy_cq(e->target_cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

/* the NIC may share our core: give it the CPU while nothing is there */
static void idle(void)
{
	sched_yield();
}

int bd_sender_make_room(struct bd_sender *s, unsigned int signal_every,
			unsigned int n)
{
	struct ibv_wc wc;

	/* completions free signal_every WQEs at a time */
	while (s->posted - s->completed + n + signal_every > BD_SQ_DEPTH) {
		int n = ibv_poll_cq(s->cq, 1, &wc);

		if (n < 0 || (n && wc.status != IBV_WC_SUCCESS)) {
			fprintf(stderr, "ib_write_breakdown: completion: %s\n",
				n < 0 ? "poll failed" :
					ibv_wc_status_str(wc.status));
			return -EIO;
		}
		if (!n)
			idle();
		else
			s->completed += signal_every;
		s->peek.ci += n;
	}
	return 0;
}

int bd_raw_make_room(struct bd_raw_qp *r, uint32_t n)
{
	while (bd_raw_room(r) < n) {
		int got = bd_raw_reap(r);

		if (got < 0) {
			fprintf(stderr,
				"ib_write_breakdown: error CQE on the raw QP\n");
			return -EIO;
		}
		if (!got)
			idle();
	}
	return 0;
}
