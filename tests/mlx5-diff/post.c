// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Building the WRs of a shape, posting them through either API, receives. */
#include <endian.h>
#include <string.h>

#include "mlx5_diff.h"

/* the WRs of shape number n: lengths, offsets and immediates vary with n */
void build_wrs(struct diff *d, const struct shape *s, unsigned long n)
{
	struct ep_pair *p = d->p;
	unsigned int k, i;

	for (k = 0; k < s->list; k++) {
		struct ibv_send_wr *wr = &d->wr[k];
		size_t src = (n * 256 + k * 128) % (EP_DST_OFF - 4096);
		size_t dst = (n * 512 + k * 256) % (EP_DST_OFF - 4096);
		unsigned int nsge = is_atomic(s->op) ? 1 : s->nsge;

		memset(wr, 0, sizeof(*wr));
		wr->wr_id = (n << 8) | k;
		wr->next = k + 1 < s->list ? &d->wr[k + 1] : NULL;
		wr->opcode = s->op;
		wr->send_flags = s->flags | (s->inl ? IBV_SEND_INLINE : 0);
		wr->sg_list = d->sge[k];
		wr->num_sge = nsge;
		wr->imm_data = htobe32(0x1000 + n);
		if (s->op == IBV_WR_SEND_WITH_INV)
			wr->invalidate_rkey = 0x7700 + n;
		for (i = 0; i < nsge; i++) {
			struct ibv_sge *sge = &d->sge[k][i];

			sge->lkey = d->dev.mr->lkey;
			sge->length = 1 + (n * 7 + k * 5 + i * 13) % 31;
			/* of three SGEs the middle one is empty: no segment */
			if (nsge == 3 && i == 1)
				sge->length = 0;
			sge->addr = (uintptr_t)at(d, EP_SRC_OFF + src + i * 32);
			if (s->op == IBV_WR_RDMA_READ || is_atomic(s->op))
				sge->addr = (uintptr_t)at(
					d, EP_LOCAL_OFF + src + i * 32);
		}
		if (s->inl_len) {
			d->sge[k][0].length = s->inl_len;
			wr->num_sge = 1;
		}
		if (is_atomic(s->op)) {
			d->sge[k][0].length = 8;
			wr->wr.atomic.remote_addr =
				(uintptr_t)at(d, EP_DST_OFF + dst);
			wr->wr.atomic.rkey = d->dev.mr->rkey;
			wr->wr.atomic.compare_add = 0x0102030405060708ULL * n;
			wr->wr.atomic.swap = ~(uint64_t)n;
		} else if (has_raddr(s->op)) {
			wr->wr.rdma.remote_addr =
				(uintptr_t)at(d, EP_DST_OFF + dst);
			wr->wr.rdma.rkey = d->dev.mr->rkey;
		} else if (p->cfg.type == IBV_QPT_UD) {
			wr->wr.ud.ah = p->ah;
			wr->wr.ud.remote_qpn = p->resp.qp->qp_num;
			wr->wr.ud.remote_qkey = EP_QKEY;
		}
		if ((int)k == s->bad_at)
			wr->num_sge = p->cap.max_send_sge + 1;
	}
}

/* the same WRs through ibv_wr_*: returns what ibv_wr_complete returns */
static int post_wr_api(struct diff *d, unsigned int count)
{
	struct ibv_qp_ex *qpx = d->p->req.qpx;
	unsigned int k;

	ibv_wr_start(qpx);
	for (k = 0; k < count; k++) {
		struct ibv_send_wr *wr = &d->wr[k];

		qpx->wr_id = wr->wr_id;
		qpx->wr_flags = wr->send_flags & ~IBV_SEND_INLINE;
		switch (wr->opcode) {
		case IBV_WR_SEND:
			ibv_wr_send(qpx);
			break;
		case IBV_WR_SEND_WITH_IMM:
			ibv_wr_send_imm(qpx, wr->imm_data);
			break;
		case IBV_WR_SEND_WITH_INV:
			ibv_wr_send_inv(qpx, wr->invalidate_rkey);
			break;
		case IBV_WR_RDMA_WRITE:
			ibv_wr_rdma_write(qpx, wr->wr.rdma.rkey,
					  wr->wr.rdma.remote_addr);
			break;
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			ibv_wr_rdma_write_imm(qpx, wr->wr.rdma.rkey,
					      wr->wr.rdma.remote_addr,
					      wr->imm_data);
			break;
		case IBV_WR_RDMA_READ:
			ibv_wr_rdma_read(qpx, wr->wr.rdma.rkey,
					 wr->wr.rdma.remote_addr);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
			ibv_wr_atomic_cmp_swp(qpx, wr->wr.atomic.rkey,
					      wr->wr.atomic.remote_addr,
					      wr->wr.atomic.compare_add,
					      wr->wr.atomic.swap);
			break;
		default:
			ibv_wr_atomic_fetch_add(qpx, wr->wr.atomic.rkey,
						wr->wr.atomic.remote_addr,
						wr->wr.atomic.compare_add);
		}
		if (d->p->cfg.type == IBV_QPT_UD)
			ibv_wr_set_ud_addr(qpx, wr->wr.ud.ah,
					   wr->wr.ud.remote_qpn,
					   wr->wr.ud.remote_qkey);
		if (wr->send_flags & IBV_SEND_INLINE) {
			struct ibv_data_buf buf[MAX_WR_SGE];
			int i;

			for (i = 0; i < wr->num_sge; i++) {
				buf[i].addr =
					(void *)(uintptr_t)wr->sg_list[i].addr;
				buf[i].length = wr->sg_list[i].length;
			}
			if (wr->num_sge == 1)
				ibv_wr_set_inline_data(qpx, buf[0].addr,
						       buf[0].length);
			else
				ibv_wr_set_inline_data_list(qpx, wr->num_sge,
							    buf);
		} else if (wr->num_sge == 1) {
			ibv_wr_set_sge(qpx, wr->sg_list[0].lkey,
				       wr->sg_list[0].addr,
				       wr->sg_list[0].length);
		} else {
			ibv_wr_set_sge_list(qpx, wr->num_sge, wr->sg_list);
		}
	}
	return ibv_wr_complete(qpx);
}

/* posts the WRs built, prints what the NIC reads; how many were taken */
unsigned int post(struct diff *d, unsigned int count)
{
	struct ep_side *req = &d->p->req;
	struct ibv_send_wr *bad = NULL;
	unsigned int taken = count;
	int ret;

	/* count 0: an empty list, NULL for ibv_post_send */
	if (count)
		d->wr[count - 1].next = NULL;
	capture_sq_begin(&req->cap);
	if (req->qpx && !d->via_post_send) {
		ret = post_wr_api(d, count);
		if (ret)
			taken = 0;
		fprintf(d->out, " ret %d\n", ret);
	} else {
		ret = ibv_post_send(req->qp, count ? d->wr : NULL, &bad);
		if (ret)
			taken = bad ? (unsigned int)(bad - d->wr) : 0;
		fprintf(d->out, " ret %d bad %d\n", ret,
			ret && bad ? (int)(bad - d->wr) : -1);
	}
	capture_sq(d->out, &req->cap);
	d->posts++;
	return taken;
}

void post_recvs(struct diff *d)
{
	struct ibv_recv_wr wr[EP_RQ_DEPTH], *bad;
	struct ibv_sge sge[EP_RQ_DEPTH][EP_RECV_SGE];
	unsigned int n = EP_RQ_DEPTH - d->recv_posted, k;

	if (!n)
		return;
	for (k = 0; k < n; k++) {
		size_t off = EP_RECV_OFF + (d->recv_seq++ % 128) * 4096;

		sge[k][0] = (struct ibv_sge){ (uintptr_t)at(d, off), 64,
					      d->dev.mr->lkey };
		sge[k][1] = (struct ibv_sge){ (uintptr_t)at(d, off + 64), 2048,
					      d->dev.mr->lkey };
		wr[k] = (struct ibv_recv_wr){ .wr_id = d->recv_seq,
					      .next = k + 1 < n ? &wr[k + 1] :
								  NULL,
					      .sg_list = sge[k],
					      .num_sge = EP_RECV_SGE };
	}
	if (d->p->srq) {
		fprintf(d->out, "post_srq_recv %u ret %d\n", n,
			ibv_post_srq_recv(d->p->srq, wr, &bad));
		capture_srq(d->out, &d->p->csrq);
	} else {
		fprintf(d->out, "post_recv %u ret %d\n", n,
			ibv_post_recv(d->p->resp.qp, wr, &bad));
		capture_rq(d->out, &d->p->resp.cap);
	}
	d->recv_posted = EP_RQ_DEPTH;
}
