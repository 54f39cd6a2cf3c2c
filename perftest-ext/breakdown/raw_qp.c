// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Setting up the mlx5dv post path of our own on a QP and its CQ (raw_qp.h). */
#include <errno.h>

#include "raw_qp.h"

int bd_raw_cq_init(struct bd_raw_cq *r, struct ibv_cq *cq)
{
	struct mlx5dv_cq dv = {};
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &dv } };
	int ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ);

	if (ret)
		return ret;
	if (dv.cqe_size != 64 && dv.cqe_size != 128)
		return EINVAL;
	r->buf = dv.buf;
	r->dbrec = dv.dbrec;
	r->cqe_cnt = dv.cqe_cnt;
	r->cqe_size = dv.cqe_size;
	/* a fresh CQ: nobody has consumed anything yet */
	r->ci = 0;
	return 0;
}

int bd_raw_qp_init(struct bd_raw_qp *r, struct ibv_qp *qp, struct ibv_cq *cq,
		   uint64_t raddr, uint32_t rkey)
{
	struct mlx5dv_qp dv = {};
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dv } };
	int ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP);

	if (ret)
		return ret;
	/* one 64-byte WQE per write, copied whole into one BlueFlame half */
	if (dv.sq.stride != MLX5_SEND_WQE_BB || !dv.bf.reg ||
	    dv.bf.size < MLX5_SEND_WQE_BB || dv.sq.wqe_cnt < 2)
		return EINVAL;
	r->sq_buf = dv.sq.buf;
	r->sq_wqe_cnt = dv.sq.wqe_cnt;
	r->dbrec = dv.dbrec;
	r->bf_reg = dv.bf.reg;
	r->bf_size = dv.bf.size;
	r->bf_offset = 0;
	r->qpn = qp->qp_num;
	r->pi = 0;
	r->acked = 0;
	r->raddr = raddr;
	r->rkey = rkey;
	return bd_raw_cq_init(&r->cq, cq);
}
