// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RC QPs: creation (rings in the application's buffer, doorbell UAR from
 * uar.c), the RESET->INIT->RTR->RTS state machine with the attribute-mask
 * rules of ib_modify_qp_is_ok(), query and destroy. The NIC finds a QP by
 * emu_qp_lookup().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_verbs.h>

#include "mlx5emu.h"

enum {
	QP_STATE = 1 << 0,
	QP_CUR_STATE = 1 << 1,
	QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	QP_ACCESS_FLAGS = 1 << 3,
	QP_PKEY_INDEX = 1 << 4,
	QP_PORT = 1 << 5,
	QP_QKEY = 1 << 6,
	QP_AV = 1 << 7,
	QP_PATH_MTU = 1 << 8,
	QP_TIMEOUT = 1 << 9,
	QP_RETRY_CNT = 1 << 10,
	QP_RNR_RETRY = 1 << 11,
	QP_RQ_PSN = 1 << 12,
	QP_MAX_QP_RD_ATOMIC = 1 << 13,
	QP_ALT_PATH = 1 << 14,
	QP_MIN_RNR_TIMER = 1 << 15,
	QP_SQ_PSN = 1 << 16,
	QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	QP_PATH_MIG_STATE = 1 << 18,
	QP_CAP = 1 << 19,
	QP_DEST_QPN = 1 << 20,
	QP_RATE_LIMIT = 1 << 25,
	QP_ATTR_ALL = (QP_RATE_LIMIT << 1) - 1,
};

#define EMU_DEFAULT_UIDX 0xffffff

/* the transports we carry, as columns of the transition table */
enum qp_transport {
	QPT_RC,
	QPT_UC,
	QPT_UD,
	QPT_NUM,
};

/* IBTA transition table (ib_modify_qp_is_ok), per transport */
struct qp_transition {
	bool valid;
	uint32_t req[QPT_NUM];
	uint32_t opt[QPT_NUM];
};

#define UC_PATH (QP_ALT_PATH | QP_ACCESS_FLAGS | QP_PATH_MIG_STATE)
/* what RESET->INIT needs and INIT->INIT may change */
#define INIT_ATTRS                                                             \
	{                                                                      \
		[QPT_RC] = QP_PKEY_INDEX | QP_PORT | QP_ACCESS_FLAGS,          \
		[QPT_UC] = QP_PKEY_INDEX | QP_PORT | QP_ACCESS_FLAGS,          \
		[QPT_UD] = QP_PKEY_INDEX | QP_PORT | QP_QKEY,                  \
	}
/* what a move to RTS (from RTR, RTS or SQD) may change */
#define TO_RTS_OPT                                                             \
	{                                                                      \
		[QPT_RC] = QP_CUR_STATE | UC_PATH | QP_MIN_RNR_TIMER,          \
		[QPT_UC] = QP_CUR_STATE | UC_PATH,                             \
		[QPT_UD] = QP_CUR_STATE | QP_QKEY,                             \
	}

static const struct qp_transition qp_table[EMU_QPS_ERR + 1][EMU_QPS_ERR + 1] = {
	[EMU_QPS_RESET] = {
		[EMU_QPS_RESET] = { .valid = true },
		[EMU_QPS_INIT] = {
			.valid = true,
			.req = INIT_ATTRS,
		},
	},
	[EMU_QPS_INIT] = {
		[EMU_QPS_INIT] = {
			.valid = true,
			.opt = INIT_ATTRS,
		},
		[EMU_QPS_RTR] = {
			.valid = true,
			.req = {
				[QPT_RC] = QP_AV | QP_PATH_MTU | QP_DEST_QPN |
					   QP_RQ_PSN | QP_MAX_DEST_RD_ATOMIC |
					   QP_MIN_RNR_TIMER,
				[QPT_UC] = QP_AV | QP_PATH_MTU | QP_DEST_QPN |
					   QP_RQ_PSN,
			},
			.opt = {
				[QPT_RC] = QP_ALT_PATH | QP_ACCESS_FLAGS |
					   QP_PKEY_INDEX,
				[QPT_UC] = QP_ALT_PATH | QP_ACCESS_FLAGS |
					   QP_PKEY_INDEX,
				[QPT_UD] = QP_PKEY_INDEX | QP_QKEY,
			},
		},
	},
	[EMU_QPS_RTR] = {
		[EMU_QPS_RTS] = {
			.valid = true,
			.req = {
				[QPT_RC] = QP_TIMEOUT | QP_RETRY_CNT |
					   QP_RNR_RETRY | QP_SQ_PSN |
					   QP_MAX_QP_RD_ATOMIC,
				[QPT_UC] = QP_SQ_PSN,
				[QPT_UD] = QP_SQ_PSN,
			},
			.opt = TO_RTS_OPT,
		},
	},
	[EMU_QPS_RTS] = {
		[EMU_QPS_RTS] = {
			.valid = true,
			.opt = TO_RTS_OPT,
		},
		[EMU_QPS_SQD] = {
			.valid = true,
			.opt = {
				[QPT_RC] = QP_EN_SQD_ASYNC_NOTIFY,
				[QPT_UC] = QP_EN_SQD_ASYNC_NOTIFY,
				[QPT_UD] = QP_EN_SQD_ASYNC_NOTIFY,
			},
		},
	},
	[EMU_QPS_SQD] = {
		[EMU_QPS_RTS] = {
			.valid = true,
			.opt = TO_RTS_OPT,
		},
		[EMU_QPS_SQD] = {
			.valid = true,
			.opt = {
				[QPT_RC] = QP_PORT | QP_AV | QP_TIMEOUT |
					   QP_RETRY_CNT | QP_RNR_RETRY |
					   QP_MAX_QP_RD_ATOMIC |
					   QP_MAX_DEST_RD_ATOMIC | UC_PATH |
					   QP_PKEY_INDEX | QP_MIN_RNR_TIMER,
				[QPT_UC] = QP_AV | UC_PATH | QP_PKEY_INDEX,
				[QPT_UD] = QP_PKEY_INDEX | QP_QKEY,
			},
		},
	},
	[EMU_QPS_SQE] = {
		[EMU_QPS_RTS] = {
			.valid = true,
			.opt = {
				[QPT_UC] = QP_CUR_STATE | QP_ACCESS_FLAGS,
				[QPT_UD] = QP_CUR_STATE | QP_QKEY,
			},
		},
	},
};

/* the column of a QP type, QPT_NUM for a type we do not carry */
static enum qp_transport qp_transport(uint8_t qp_type)
{
	switch (qp_type) {
	case IB_UVERBS_QPT_RC:
		return QPT_RC;
	case IB_UVERBS_QPT_UC:
		return QPT_UC;
	case IB_UVERBS_QPT_UD:
		return QPT_UD;
	default:
		return QPT_NUM;
	}
}

static const char *const state_names[] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

static const char *state_name(unsigned int state)
{
	return state <= EMU_QPS_ERR ? state_names[state] : "?";
}

/*
 * NULL if the transition is allowed with these attributes, else why not;
 * *missing and *extra get the offending attribute bits for --trace.
 */
static const char *transition_error(enum qp_transport t, enum emu_qp_state cur,
				    enum emu_qp_state next, uint32_t mask,
				    uint32_t *missing, uint32_t *extra)
{
	const struct qp_transition *tr;
	uint32_t allowed = QP_STATE;

	*missing = *extra = 0;
	if (cur > EMU_QPS_ERR || next > EMU_QPS_ERR)
		return "no such state";
	if ((mask & QP_CUR_STATE) && cur != EMU_QPS_RTR && cur != EMU_QPS_RTS &&
	    cur != EMU_QPS_SQD && cur != EMU_QPS_SQE)
		return "CUR_STATE is only for RTR, RTS, SQD and SQE";
	/* any state may go to RESET or ERR with nothing but the state */
	if (next != EMU_QPS_RESET && next != EMU_QPS_ERR) {
		tr = &qp_table[cur][next];
		if (!tr->valid)
			return "not a transition";
		*missing = tr->req[t] & ~mask;
		allowed |= tr->req[t] | tr->opt[t];
	}
	*extra = mask & ~allowed;
	if (*missing)
		return "required attributes missing";
	if (*extra)
		return "attributes not allowed in this transition";
	return NULL;
}

static bool port_valid(uint8_t port)
{
	return port >= 1 && port <= emu_cfg.nports;
}

/* the port and state checks of uverbs modify_qp(); may add QP_PORT */
static const char *uverbs_check(const struct emu_qp *qp,
				struct ib_uverbs_modify_qp *cmd, uint32_t *mask)
{
	if (((*mask & QP_CUR_STATE) && cmd->cur_qp_state > EMU_QPS_ERR) ||
	    ((*mask & QP_STATE) && cmd->qp_state > EMU_QPS_ERR))
		return "no such state";
	if ((*mask & QP_PORT) && !port_valid(cmd->port_num))
		return "no such port";
	if ((*mask & QP_ALT_PATH) &&
	    (!port_valid(cmd->alt_port_num) ||
	     !port_valid(cmd->alt_dest.port_num) ||
	     cmd->alt_port_num != cmd->alt_dest.port_num))
		return "bad alternate path port";
	if (!(*mask & QP_AV))
		return NULL;
	if (!port_valid(cmd->dest.port_num))
		return "no such port in the address vector";
	if ((*mask & QP_STATE) && cmd->qp_state == EMU_QPS_RTR) {
		/* INIT->RTR: the AV's port is the one set at INIT */
		if (cmd->dest.port_num != qp->port)
			return "address vector port differs from the QP's port";
		return NULL;
	}
	/* SQD->SQD: the AV moves the primary port */
	if ((*mask & QP_PORT) && cmd->port_num != cmd->dest.port_num)
		return "PORT and address vector port differ";
	*mask |= QP_PORT;
	cmd->port_num = cmd->dest.port_num;
	return NULL;
}

/* ------------------------------------------------------------------ */

/* the request in the ex layout: both share everything after the response */
static int qp_init_read(const struct emu_cmd *c,
			struct ib_uverbs_ex_create_qp *r)
{
	const struct ib_uverbs_create_qp *req = c->req;

	if (!c->ex) {
		memset(r, 0, sizeof(*r));
		memcpy(r, &req->user_handle,
		       sizeof(*req) - offsetof(typeof(*req), user_handle));
		return 0;
	}
	memcpy(r, c->req, sizeof(*r));
	if (r->comp_mask)
		return -EOPNOTSUPP; /* RSS indirection tables */
	/* mlx5_ib takes multicast loopback blocking on any type */
	if (r->create_flags & ~IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK)
		return -EOPNOTSUPP;
	return 0;
}

/* rxe_qp_chk_init(): the core request against the device's caps */
static int qp_chk_init(struct emu_context *ctx,
		       const struct ib_uverbs_ex_create_qp *r)
{
	const struct emu_model *m = emu_cfg.model;

	if (qp_transport(r->qp_type) == QPT_NUM) {
		/* XRC, raw packet, DC (driver type): not carried */
		emu_trace("ctx%u CREATE_QP: QP type %u is not supported",
			  ctx->id, r->qp_type);
		return -EOPNOTSUPP;
	}
	if (r->max_send_wr > (1U << m->log_max_qp_sz) ||
	    r->max_recv_wr > (1U << m->log_max_qp_sz) ||
	    r->max_send_sge > m->max_sge || r->max_recv_sge > m->max_sge) {
		emu_trace("ctx%u CREATE_QP: caps beyond the device's", ctx->id);
		return -EINVAL;
	}
	return 0;
}

/* the driver request: flags, ring sizes (set_user_buf_size()), uidx */
static int qp_chk_udata(struct emu_context *ctx, const struct emu_cmd *c,
			struct mlx5_ib_create_qp *ucmd)
{
	const struct emu_model *m = emu_cfg.model;
	uint32_t allowed = MLX5_QP_FLAG_SIGNATURE | MLX5_QP_FLAG_SCATTER_CQE |
			   MLX5_QP_FLAG_ALLOW_SCATTER_CQE |
			   MLX5_QP_FLAG_BFREG_INDEX |
			   MLX5_QP_FLAG_UAR_PAGE_INDEX;

	if (c->drv_req_len < offsetof(struct mlx5_ib_create_qp, sq_buf_addr))
		return -EINVAL;
	memcpy(ucmd, c->drv_req,
	       c->drv_req_len < sizeof(*ucmd) ? c->drv_req_len : sizeof(*ucmd));
	if (ucmd->flags & ~allowed)
		return -EOPNOTSUPP;
	if ((ucmd->flags & MLX5_QP_FLAG_BFREG_INDEX) &&
	    (ucmd->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX))
		return -EINVAL;
	if ((ucmd->sq_wqe_count & (ucmd->sq_wqe_count - 1)) ||
	    (ucmd->rq_wqe_count & (ucmd->rq_wqe_count - 1)))
		return -EINVAL;
	if (ucmd->sq_wqe_count > (1U << m->log_max_qp_sz) ||
	    ucmd->rq_wqe_count > (1U << m->log_max_qp_sz) ||
	    ucmd->rq_wqe_shift > 31)
		return -EINVAL;
	/* get_qp_user_index(): uidx iff cqe_version 1 */
	if (!!ctx->cqe_version ^ (ucmd->uidx != EMU_DEFAULT_UIDX)) {
		emu_trace("ctx%u CREATE_QP: uidx 0x%x with cqe_version %u",
			  ctx->id, ucmd->uidx, ctx->cqe_version);
		return -EINVAL;
	}
	if (ucmd->ece_options)
		return -EOPNOTSUPP; /* ECE is not advertised */
	return 0;
}

/*
 * The umem and doorbell pinning of mlx5_ib: the rings the sizes describe
 * (the RQ, unless an SRQ serves it, then the SQ) and the doorbell record
 * must be there now, since the NIC reads them from here on.
 */
static int qp_chk_rings(const struct emu_qp *qp)
{
	uint64_t len = ((uint64_t)qp->rq_wqe_cnt << qp->rq_wqe_shift) +
		       (uint64_t)qp->sq_wqe_cnt * EMU_SEND_WQE_BB;

	if (!emu_access_ok(qp->buf_addr, len, PROT_READ) ||
	    !emu_access_ok(qp->db_addr, 2 * sizeof(uint32_t), PROT_READ))
		return -EFAULT;
	return 0;
}

/* rxe_qp_from_init(): the objects it names and its rings */
static int qp_from_init(struct emu_context *ctx, struct emu_qp *qp,
			const struct ib_uverbs_ex_create_qp *r,
			const struct mlx5_ib_create_qp *ucmd)
{
	qp->pd = emu_pd_get(ctx, r->pd_handle);
	qp->send_cq = emu_cq_get(ctx, r->send_cq_handle);
	qp->recv_cq = emu_cq_get(ctx, r->recv_cq_handle);
	if (r->is_srq)
		qp->srq = emu_srq_get(ctx, r->srq_handle);
	if (!qp->pd || !qp->send_cq || !qp->recv_cq || (r->is_srq && !qp->srq))
		return -EINVAL;
	qp->qp_type = r->qp_type;
	qp->create_flags = r->create_flags;
	qp->tid = gettid();
	qp->sq_sig_all = r->sq_sig_all;
	qp->max_send_wr = r->max_send_wr;
	qp->max_recv_wr = r->max_recv_wr;
	qp->max_send_sge = r->max_send_sge;
	qp->max_recv_sge = r->max_recv_sge;
	qp->max_inline_data = r->max_inline_data;
	qp->buf_addr = ucmd->buf_addr;
	qp->db_addr = ucmd->db_addr;
	qp->sq_wqe_cnt = ucmd->sq_wqe_count;
	/* with an SRQ there is no receive queue of its own */
	qp->rq_wqe_cnt = qp->srq ? 0 : ucmd->rq_wqe_count;
	qp->rq_wqe_shift = ucmd->rq_wqe_shift;
	qp->uidx = ucmd->uidx;
	qp->mlx5_flags = ucmd->flags;
	qp->bfreg_index = ucmd->bfreg_index;
	qp->uobj.user_handle = r->user_handle;
	qp->state = EMU_QPS_RESET;
	return 0;
}

/* a QPN, a handle, the NIC: from here on the QP is visible */
static int qp_publish(struct emu_context *ctx, struct emu_qp *qp)
{
	struct emu_device *dev = ctx->dev;
	uint32_t index;
	int ret;

	pthread_mutex_lock(&dev->lock);
	ret = emu_table_alloc(&dev->qps, qp, &index);
	if (!ret && index + fabric_qpn_base() > 0xffffff) {
		emu_table_remove(&dev->qps, index);
		ret = -ENOMEM;
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		return ret;
	qp->qpn = fabric_qpn_base() + index;
	ret = emu_uobj_add(ctx, &qp->uobj, EMU_OBJ_QP);
	if (ret)
		goto err_qpn;
	ret = nic_attach_qp(qp);
	if (ret) {
		emu_uobj_remove(ctx, &qp->uobj);
		goto err_qpn;
	}
	qp->pd->uobj.usecnt++;
	qp->send_cq->uobj.usecnt++;
	qp->recv_cq->uobj.usecnt++;
	if (qp->srq)
		qp->srq->uobj.usecnt++;
	return 0;

err_qpn:
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->qps, index);
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

/* rxe_qp_to_init(): what the application learns */
static void qp_answer(struct emu_cmd *c, const struct emu_qp *qp,
		      const struct ib_uverbs_ex_create_qp *r)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct mlx5_ib_create_qp_resp dresp = {};

	resp.base.qp_handle = qp->uobj.handle;
	resp.base.qpn = qp->qpn;
	resp.base.max_send_wr = r->max_send_wr;
	resp.base.max_recv_wr = r->max_recv_wr;
	resp.base.max_send_sge = r->max_send_sge;
	resp.base.max_recv_sge = r->max_recv_sge;
	resp.base.max_inline_data = r->max_inline_data;
	resp.response_length = c->resp_len;
	dresp.bfreg_index = qp->bfreg_index;
	emu_cmd_reply(c, &resp, sizeof(resp));
	emu_cmd_reply_drv(c, &dresp, sizeof(dresp));
}

int emu_cmd_create_qp(struct emu_context *ctx, struct emu_cmd *c)
{
	struct mlx5_ib_create_qp ucmd = {};
	struct ib_uverbs_ex_create_qp r;
	struct emu_qp *qp;
	int ret;

	ret = qp_init_read(c, &r);
	if (!ret)
		ret = qp_chk_init(ctx, &r);
	if (!ret)
		ret = qp_chk_udata(ctx, c, &ucmd);
	if (ret)
		return ret;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	ret = qp_from_init(ctx, qp, &r, &ucmd);
	if (!ret)
		ret = qp_chk_rings(qp);
	if (ret)
		goto err_free;
	ret = emu_uar_bind_qp(ctx, qp);
	if (ret) {
		emu_trace(
			"ctx%u CREATE_QP: no UAR for flags 0x%x bfreg_index 0x%x",
			ctx->id, ucmd.flags, ucmd.bfreg_index);
		goto err_free;
	}
	ret = qp_publish(ctx, qp);
	if (ret)
		goto err_uar;
	qp_answer(c, qp, &r);
	emu_stat_add_qp(qp);
	emu_trace(
		"ctx%u CREATE_QP qpn=0x%x uar page_id=0x%x (uar 0x%x) %s bfreg_index=0x%x",
		ctx->id, qp->qpn, qp->uar->page_id, qp->uar_id,
		qp->uar_how == EMU_QP_UAR_STATIC_BFREG ? "static-bfreg" :
		qp->uar_how == EMU_QP_UAR_BFREG_INDEX  ? "bfreg-index" :
							 "uar-page-index",
		ucmd.bfreg_index);
	return 0;

err_uar:
	emu_uar_unbind_qp(ctx, qp);
err_free:
	free(qp);
	return ret;
}

int emu_qp_destroy(struct emu_qp *qp, struct ib_uverbs_destroy_qp_resp *resp)
{
	struct emu_context *ctx = qp->uobj.ctx;
	struct emu_device *dev = ctx->dev;

	nic_detach_qp(qp);
	/* unpublish: the fabric can no longer find it */
	pthread_mutex_lock(&dev->lock);
	emu_table_remove(&dev->qps, qp->qpn - fabric_qpn_base());
	pthread_mutex_unlock(&dev->lock);
	emu_uobj_remove(ctx, &qp->uobj);
	if (ctx->async)
		emu_event_drop(ctx->async, &qp->uobj);
	emu_stat_del_qp(qp);
	emu_uar_unbind_qp(ctx, qp);
	qp->pd->uobj.usecnt--;
	qp->send_cq->uobj.usecnt--;
	qp->recv_cq->uobj.usecnt--;
	if (qp->srq)
		qp->srq->uobj.usecnt--;
	if (resp)
		resp->events_reported = qp->events_reported;
	free(qp);
	return 0;
}

int emu_cmd_destroy_qp(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_qp *req = c->req;
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct emu_qp *qp = emu_qp_get(ctx, req->qp_handle);
	int ret;

	if (!qp)
		return -EINVAL;
	ret = emu_qp_destroy(qp, &resp);
	if (!ret)
		emu_cmd_reply(c, &resp, sizeof(resp));
	return ret;
}

/* ------------------------------------------------------------------ */

int emu_cmd_modify_qp(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct emu_model *m = emu_cfg.model;
	struct ib_uverbs_modify_qp cmd;
	uint32_t mask, missing, extra;
	enum emu_qp_state cur, next;
	struct emu_qp *qp;
	const char *why;

	memcpy(&cmd, c->req, sizeof(cmd)); /* ex: base comes first */
	if (c->ex) {
		const struct ib_uverbs_ex_modify_qp *ex = c->req;

		if (ex->reserved)
			return -EINVAL;
	}
	qp = emu_qp_get(ctx, cmd.qp_handle);
	if (!qp)
		return -EINVAL;
	mask = cmd.attr_mask;
	/* uverbs modify_qp() */
	if (mask & ~QP_ATTR_ALL)
		return -EOPNOTSUPP;
	if (mask & QP_RATE_LIMIT)
		return -EOPNOTSUPP; /* no packet pacing */
	why = uverbs_check(qp, &cmd, &mask);
	if (why) {
		emu_trace("ctx%u MODIFY_QP qpn=0x%x mask=0x%x: %s", ctx->id,
			  qp->qpn, mask, why);
		return -EINVAL;
	}

	/* mlx5_ib_modify_qp() */
	cur = (mask & QP_CUR_STATE) ? cmd.cur_qp_state : qp->state;
	next = (mask & QP_STATE) ? cmd.qp_state : cur;
	why = transition_error(qp_transport(qp->qp_type), cur, next, mask,
			       &missing, &extra);
	if (why) {
		emu_trace(
			"ctx%u MODIFY_QP qpn=0x%x %s->%s mask=0x%x: %s (missing 0x%x, not allowed 0x%x)",
			ctx->id, qp->qpn, state_name(cur), state_name(next),
			mask, why, missing, extra);
		return -EINVAL;
	}
	if ((mask & QP_PKEY_INDEX) && cmd.pkey_index >= 1)
		return -EINVAL;
	if ((mask & QP_MAX_QP_RD_ATOMIC) &&
	    cmd.max_rd_atomic > (1U << m->log_max_ra_res_qp))
		return -EINVAL;
	if ((mask & QP_MAX_DEST_RD_ATOMIC) &&
	    cmd.max_dest_rd_atomic > (1U << m->log_max_ra_req_qp))
		return -EINVAL;
	if ((mask & QP_PATH_MTU) && (cmd.path_mtu < 1 || cmd.path_mtu > 5))
		return -EINVAL;

	if (mask & QP_ACCESS_FLAGS)
		qp->access = cmd.qp_access_flags;
	if (mask & QP_PKEY_INDEX)
		qp->pkey_index = cmd.pkey_index;
	if (mask & QP_PORT)
		qp->port = cmd.port_num;
	if (mask & QP_QKEY)
		qp->qkey = cmd.qkey;
	if (mask & QP_AV)
		qp->ah = cmd.dest;
	if (mask & QP_ALT_PATH)
		qp->alt_ah = cmd.alt_dest;
	if (mask & QP_PATH_MTU)
		qp->path_mtu = cmd.path_mtu;
	if (mask & QP_TIMEOUT)
		qp->timeout = cmd.timeout;
	if (mask & QP_RETRY_CNT)
		qp->retry_cnt = cmd.retry_cnt;
	if (mask & QP_RNR_RETRY)
		qp->rnr_retry = cmd.rnr_retry;
	if (mask & QP_RQ_PSN)
		qp->rq_psn = cmd.rq_psn & 0xffffff;
	if (mask & QP_SQ_PSN)
		qp->sq_psn = cmd.sq_psn & 0xffffff;
	if (mask & QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = cmd.max_rd_atomic;
	if (mask & QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = cmd.max_dest_rd_atomic;
	if (mask & QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = cmd.min_rnr_timer;
	if (mask & QP_PATH_MIG_STATE)
		qp->path_mig_state = cmd.path_mig_state;
	if (mask & QP_DEST_QPN)
		qp->dest_qp_num = cmd.dest_qp_num & 0xffffff;
	/*
	 * To RESET the NIC must stop producing CQEs for this QP before we
	 * return: libmlx5 cleans the CQ right after.
	 */
	emu_trace("ctx%u MODIFY_QP qpn=0x%x %s->%s mask=0x%x", ctx->id, qp->qpn,
		  state_name(qp->state), state_name(next), mask);
	qp->state = next;
	nic_modify_qp(qp);
	if (c->ex && c->resp) {
		struct ib_uverbs_ex_modify_qp_resp resp = {
			.response_length = c->resp_len,
		};

		emu_cmd_reply(c, &resp, sizeof(resp));
	}
	return 0;
}

/* data segments of a receive WQE, less the signature one */
static uint32_t recv_sge(const struct emu_qp *qp)
{
	uint32_t n = (1U << qp->rq_wqe_shift) / 16;
	uint32_t sig = !!(qp->mlx5_flags & MLX5_QP_FLAG_SIGNATURE);

	return n > sig ? n - sig : 0;
}

int emu_cmd_query_qp(struct emu_context *ctx, struct emu_cmd *c)
{
	const struct ib_uverbs_query_qp *req = c->req;
	struct ib_uverbs_query_qp_resp resp = {};
	struct emu_qp *qp = emu_qp_get(ctx, req->qp_handle);

	if (!qp)
		return -EINVAL;
	resp.dest = qp->ah;
	resp.alt_dest = qp->alt_ah;
	resp.max_send_wr = qp->max_send_wr;
	resp.max_send_sge = qp->max_send_sge;
	/* mlx5_ib answers what the RQ holds, not what was asked for */
	resp.max_recv_wr = qp->rq_wqe_cnt;
	resp.max_recv_sge = qp->rq_wqe_cnt ? recv_sge(qp) : 0;
	resp.max_inline_data = qp->max_inline_data;
	resp.qkey = qp->qkey;
	resp.rq_psn = qp->rq_psn;
	resp.sq_psn = qp->sq_psn;
	resp.dest_qp_num = qp->dest_qp_num;
	resp.qp_access_flags = qp->access;
	resp.pkey_index = qp->pkey_index;
	resp.qp_state = qp->state;
	resp.cur_qp_state = qp->state;
	resp.path_mtu = qp->path_mtu;
	resp.path_mig_state = qp->path_mig_state;
	resp.max_rd_atomic = qp->max_rd_atomic;
	resp.max_dest_rd_atomic = qp->max_dest_rd_atomic;
	resp.min_rnr_timer = qp->min_rnr_timer;
	resp.port_num = qp->port;
	resp.timeout = qp->timeout;
	resp.retry_cnt = qp->retry_cnt;
	resp.rnr_retry = qp->rnr_retry;
	resp.sq_sig_all = qp->sq_sig_all;
	emu_cmd_reply(c, &resp, sizeof(resp));
	return 0;
}

struct emu_qp *emu_qp_lookup(struct emu_device *dev, uint32_t qpn)
{
	uint32_t base = fabric_qpn_base();

	return qpn < base ? NULL : emu_table_get(&dev->qps, qpn - base);
}
