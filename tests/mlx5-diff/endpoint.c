// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "endpoint.h"

#define EP_PORT 1
#define EP_PSN 0x123

static const unsigned int ep_access =
	IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

int ep_device_open(struct ep_device *d)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr port;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!list || !list[0]) {
		fprintf(stderr, "mlx5_diff: no RDMA device\n");
		ibv_free_device_list(list);
		return -1;
	}
	d->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!d->ctx || ibv_query_port(d->ctx, EP_PORT, &port))
		return -1;
	d->lid = port.lid;
	d->region =
		mmap((void *)EP_REGION_ADDR, EP_REGION_SIZE,
		     PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (d->region != (void *)EP_REGION_ADDR) {
		fprintf(stderr, "mlx5_diff: the fixed region is taken\n");
		d->region = NULL;
		return -1;
	}
	for (i = 0; i < EP_REGION_SIZE; i++)
		d->region[i] = (uint8_t)(i * 7 + (i >> 8));
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		return -1;
	d->mr = ibv_reg_mr(d->pd, d->region, EP_REGION_SIZE, ep_access);
	return d->mr ? 0 : -1;
}

void ep_device_close(struct ep_device *d)
{
	if (d->mr)
		ibv_dereg_mr(d->mr);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->region)
		munmap(d->region, EP_REGION_SIZE);
	if (d->ctx)
		ibv_close_device(d->ctx);
}

uint32_t ep_qpn(const struct ep_device *d, uint32_t qpn)
{
	return qpn - d->qpn_base;
}

static uint64_t send_ops(enum ibv_qp_type type)
{
	uint64_t ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

	if (type == IBV_QPT_UD)
		return ops;
	ops |= IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	if (type == IBV_QPT_UC)
		return ops;
	return ops | IBV_QP_EX_WITH_RDMA_READ |
	       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
	       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
	       IBV_QP_EX_WITH_SEND_WITH_INV;
}

static int create_cq(struct ep_device *d, struct ep_pair *p, struct ep_side *s)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = EP_CQ_DEPTH - 1,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			    IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
			    IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
			    IBV_WC_EX_WITH_DLID_PATH_BITS,
	};

	if (!p->cfg.cq_ex) {
		s->cq = ibv_create_cq(d->ctx, EP_CQ_DEPTH - 1, NULL, NULL, 0);
		return s->cq ? 0 : -1;
	}
	if (p->cfg.td) {
		attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
		attr.parent_domain = p->qp_pd;
	}
	if (p->cfg.cq_single_threaded) {
		attr.comp_mask |= IBV_CQ_INIT_ATTR_MASK_FLAGS;
		attr.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	}
	s->cqx = ibv_create_cq_ex(d->ctx, &attr);
	if (!s->cqx)
		return -1;
	s->cq = ibv_cq_ex_to_cq(s->cqx);
	return 0;
}

static int create_qp(struct ep_device *d, struct ep_pair *p, struct ep_side *s)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = p->cfg.type,
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.cap = { .max_send_wr = EP_SQ_DEPTH,
			 .max_recv_wr = EP_RQ_DEPTH,
			 .max_send_sge = EP_MAX_SGE,
			 .max_recv_sge = EP_RECV_SGE,
			 .max_inline_data = EP_MAX_INLINE },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = p->qp_pd,
		.sq_sig_all = p->cfg.narrow,
	};

	if (p->cfg.narrow) {
		attr.cap.max_send_sge = 1;
		attr.cap.max_inline_data = 0;
	}
	if (s == &p->resp)
		attr.srq = p->srq;
	if (p->cfg.wr_api) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = send_ops(p->cfg.type);
	}
	s->qp = ibv_create_qp_ex(d->ctx, &attr);
	if (!s->qp)
		return -1;
	if (p->cfg.wr_api)
		s->qpx = ibv_qp_to_qp_ex(s->qp);
	if (!d->have_qpn_base) {
		d->qpn_base = s->qp->qp_num;
		d->have_qpn_base = true;
	}
	p->cap = attr.cap;
	if (capture_cq_open(&s->ccq, s->cq))
		return -1;
	return capture_qp_open(&s->cap, s->qp, p->cfg.td);
}

static int to_init(struct ep_pair *p, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
				 .port_num = EP_PORT,
				 .qp_access_flags = ep_access,
				 .qkey = EP_QKEY };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (p->cfg.type == IBV_QPT_UD)
		mask |= IBV_QP_QKEY;
	else
		mask |= IBV_QP_ACCESS_FLAGS;
	if (p->cfg.type == IBV_QPT_UC)
		a.qp_access_flags =
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	return ibv_modify_qp(qp, &a, mask);
}

static int to_rtr(struct ep_device *d, struct ep_pair *p, struct ibv_qp *qp,
		  uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dest_qpn,
		.rq_psn = EP_PSN,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .dlid = d->lid, .port_num = EP_PORT },
	};
	int mask = IBV_QP_STATE;

	if (p->cfg.type != IBV_QPT_UD)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	if (p->cfg.type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return ibv_modify_qp(qp, &a, mask);
}

static int to_rts(struct ep_pair *p, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS,
				 .sq_psn = EP_PSN,
				 .timeout = 14,
				 .retry_cnt = 7,
				 .rnr_retry = 7,
				 .max_rd_atomic = 1 };
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (p->cfg.type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(qp, &a, mask);
}

int ep_pair_reconnect(struct ep_device *d, struct ep_pair *p)
{
	struct ibv_qp *a = p->req.qp, *b = p->resp.qp;

	if (to_init(p, a) || to_init(p, b) || to_rtr(d, p, a, b->qp_num) ||
	    to_rtr(d, p, b, a->qp_num) || to_rts(p, a) || to_rts(p, b))
		return -1;
	return 0;
}

static int connect_pair(struct ep_device *d, struct ep_pair *p)
{
	if (ep_pair_reconnect(d, p))
		return -1;
	if (p->cfg.type == IBV_QPT_UD) {
		struct ibv_ah_attr ah = { .dlid = d->lid, .port_num = EP_PORT };

		p->ah = ibv_create_ah(d->pd, &ah);
		if (!p->ah)
			return -1;
	}
	return 0;
}

int ep_pair_open(struct ep_device *d, struct ep_pair *p,
		 const struct ep_config *cfg)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->qp_pd = d->pd;
	if (cfg->td) {
		struct ibv_td_init_attr td_attr = {};
		struct ibv_parent_domain_init_attr pd_attr = { .pd = d->pd };

		/* comp_mask 0 unless asked: all that 65.0 accepts */
		if (d->td_sharing) {
			td_attr.comp_mask = IBV_TD_INIT_ATTR_SHARING;
			td_attr.sharing = d->td_sharing;
		}
		p->td = ibv_alloc_td(d->ctx, &td_attr);
		if (!p->td)
			return -1;
		pd_attr.td = p->td;
		p->qp_pd = ibv_alloc_parent_domain(d->ctx, &pd_attr);
		if (!p->qp_pd)
			return -1;
	}
	if (cfg->srq) {
		struct ibv_srq_init_attr attr = {
			.attr = { .max_wr = EP_RQ_DEPTH,
				  .max_sge = EP_RECV_SGE },
		};

		p->srq = ibv_create_srq(d->pd, &attr);
		if (!p->srq || capture_srq_open(&p->csrq, p->srq))
			return -1;
	}
	if (create_cq(d, p, &p->req) || create_cq(d, p, &p->resp) ||
	    create_qp(d, p, &p->req) || create_qp(d, p, &p->resp))
		return -1;
	return connect_pair(d, p);
}

static void side_close(struct ep_side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->cq)
		ibv_destroy_cq(s->cq);
}

void ep_pair_close(struct ep_pair *p)
{
	if (p->ah)
		ibv_destroy_ah(p->ah);
	side_close(&p->req);
	side_close(&p->resp);
	if (p->srq)
		ibv_destroy_srq(p->srq);
	if (p->qp_pd && p->td)
		ibv_dealloc_pd(p->qp_pd);
	if (p->td)
		ibv_dealloc_td(p->td);
}
