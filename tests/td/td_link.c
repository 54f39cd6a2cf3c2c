// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "rc_loop.h"
#include "td_link.h"

#define DEPTH 8

int td_link_open(struct td_link *l, struct ibv_pd *pd, struct ibv_td *td)
{
	struct ibv_parent_domain_init_attr pattr = { .pd = pd, .td = td };
	struct ibv_cq_init_attr_ex cattr = {
		.cqe = DEPTH,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_cq_ex *cq;
	int err;

	memset(l, 0, sizeof(*l));
	l->parent = ibv_alloc_parent_domain(pd->context, &pattr);
	if (!l->parent)
		return errno;
	cattr.parent_domain = l->parent;
	cq = ibv_create_cq_ex(pd->context, &cattr);
	if (!cq)
		goto err;
	l->cq = ibv_cq_ex_to_cq(cq);
	l->qp = rc_loop_create_qp(l->parent, l->cq, DEPTH);
	if (!l->qp)
		goto err;
	l->mr = ibv_reg_mr(pd, l->buf, sizeof(l->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!l->mr)
		goto err;
	l->td = td;
	return 0;

err:
	err = errno;
	if (l->qp)
		ibv_destroy_qp(l->qp);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	ibv_dealloc_pd(l->parent);
	memset(l, 0, sizeof(*l));
	return err ?: EIO;
}

void td_link_connect(struct td_link *a, struct td_link *b)
{
	rc_loop_connect(a->qp, b->qp);
}

const char *td_link_write(struct td_link *from, struct td_link *to,
			  unsigned int seed)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)from->buf[0],
		.length = TD_LINK_BUF,
		.lkey = from->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = seed,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)to->buf[1],
			     .rkey = to->mr->rkey },
	};
	struct timespec start, now;
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	unsigned int i;
	int n;

	for (i = 0; i < TD_LINK_BUF; i++)
		from->buf[0][i] = (unsigned char)(seed * 31 + i);
	memset(to->buf[1], 0, TD_LINK_BUF);
	if (ibv_post_send(from->qp, &wr, &bad))
		return "ibv_post_send failed";
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!(n = ibv_poll_cq(from->cq, 1, &wc))) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 30)
			return "no completion within 30 s";
	}
	if (n < 0)
		return "ibv_poll_cq failed";
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != seed)
		return "bad completion";
	if (memcmp(from->buf[0], to->buf[1], TD_LINK_BUF))
		return "data mismatch";
	return NULL;
}

void td_link_close(struct td_link *l)
{
	if (l->mr)
		ibv_dereg_mr(l->mr);
	if (l->qp)
		ibv_destroy_qp(l->qp);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	if (l->parent)
		ibv_dealloc_pd(l->parent);
	if (l->td)
		ibv_dealloc_td(l->td);
	memset(l, 0, sizeof(*l));
}
