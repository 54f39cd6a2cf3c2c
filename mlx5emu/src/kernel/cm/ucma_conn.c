// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The CM exchanges of an id: REQ/REP/RTU, REJ, DREQ/DREP and SIDR, each
 * on its own channel of the transport. The commands start them; the
 * service thread feeds what the peer sends to ucma_channel_ready().
 * A channel that closes stands for a peer that no longer answers: the
 * events are those of the kernel's CM when its retries run out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ucma.h"

static bool is_ud(const struct ucma_id *id)
{
	return id->qp_type == 4; /* IB_QPT_UD */
}

static int send_msg(struct ucma_id *id, uint32_t type, uint32_t status,
		    const uint8_t *pdata, uint8_t len, uint8_t max)
{
	struct cm_msg m;

	if (len > max)
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.status = status;
	m.end = id->local;
	m.src = id->src;
	m.dst = id->dst;
	m.pdata_len = len;
	if (len)
		memcpy(m.pdata, pdata, len);
	nic_settle();
	return cm_tr_send(id->conn_fd, &m);
}

static void finish(struct ucma_id *id)
{
	nic_settle(); /* the peer sees the close as a message */
	id->state = CM_DONE;
	cm_tr_close(id->conn_fd);
	id->conn_fd = -1;
	ucma_wake_service();
}

int ucma_listen(struct ucma_id *id, uint32_t backlog)
{
	struct sockaddr_storage any = { .ss_family = AF_INET };
	int ret;

	if (id->state == CM_LISTEN) {
		id->backlog = (int)backlog;
		return 0;
	}
	if (id->state == CM_IDLE) {
		ret = ucma_bind(id, (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	if (id->state != CM_ADDR_BOUND)
		return -EINVAL;
	ret = cm_tr_listen(id->port_fd, (int)backlog);
	if (ret)
		return ret;
	id->backlog = (int)backlog;
	id->state = CM_LISTEN;
	ucma_wake_service();
	return 0;
}

static void take_param(struct cm_end *e, const struct rdma_ucm_conn_param *p)
{
	e->qpn = p->qp_num & 0xffffff;
	e->resp_res = p->responder_resources;
	e->init_depth = p->initiator_depth;
	e->flow_control = p->flow_control;
	e->retry = p->retry_count;
	e->rnr_retry = p->rnr_retry_count;
	e->srq = p->srq;
}

/*
 * The REQ on a new channel to the listening port. A port nobody holds is
 * the remote CM's REJ "invalid service ID" (UNREACHABLE for SIDR); a
 * listener whose queue is full drops it, and it goes again later.
 */
static int req_send(struct ucma_id *id)
{
	uint16_t port = ucma_addr_port((struct sockaddr *)&id->dst);
	bool ud = is_ud(id);
	int fd, ret;

	fd = cm_tr_connect(id->ps, port);
	if (fd == -EAGAIN && ucma_now() < id->req_give_up) {
		id->deadline = ucma_now() + id->req_wait;
		if (id->req_wait < CM_REQ_RESEND_CAP_NS)
			id->req_wait *= 2;
		ucma_wake_service();
		return 0;
	}
	if (fd < 0) {
		emu_trace("ucma: id %u connect to port %u: %d", id->handle,
			  port, fd);
		id->state = CM_DONE;
		if (fd == -EAGAIN)
			ucma_queue(id, UCMA_EV_UNREACHABLE, -ETIMEDOUT, NULL);
		else if (ud)
			ucma_queue(id, UCMA_EV_UNREACHABLE, CM_SIDR_UNSUPPORTED,
				   NULL);
		else
			ucma_queue(id, UCMA_EV_REJECTED,
				   CM_REJ_INVALID_SERVICE_ID, NULL);
		return 0;
	}
	id->conn_fd = fd;
	ret = send_msg(id, ud ? CM_MSG_SIDR_REQ : CM_MSG_REQ, 0, id->req_pdata,
		       id->req_pdata_len, 255);
	if (ret) {
		finish(id);
		return ret;
	}
	ucma_wake_service();
	return 0;
}

int ucma_connect(struct ucma_id *id, const struct rdma_ucm_conn_param *p)
{
	bool ud = is_ud(id);

	if (id->state != CM_ROUTE_RESOLVED)
		return -EINVAL;
	if (p->private_data_len > (ud ? CM_SIDR_REQ_PDATA : CM_REQ_PDATA))
		return -EINVAL;
	take_param(&id->local, p);
	id->local.qkey = ud ? p->qkey : 0;
	id->state = CM_REQ_SENT;
	memcpy(id->req_pdata, p->private_data, p->private_data_len);
	id->req_pdata_len = p->private_data_len;
	id->req_wait = CM_REQ_RESEND_FIRST_NS;
	id->req_give_up = ucma_now() + CM_REQ_GIVE_UP_NS;
	return req_send(id);
}

/* the timer of a dropped REQ (service thread, lock held) */
void ucma_req_resend(struct ucma_id *id)
{
	if (id->state == CM_REQ_SENT && id->conn_fd < 0)
		req_send(id);
}

/* the passive side answers a REQ, or the active side a REP (its RTU) */
int ucma_accept(struct ucma_id *id, uint64_t uid,
		const struct rdma_ucm_conn_param *p)
{
	static const struct rdma_ucm_conn_param none;
	bool ud = is_ud(id);
	int ret;

	if (id->state == CM_REP_RCVD) {
		id->state = CM_ESTABLISHED;
		return send_msg(id, CM_MSG_RTU, 0, NULL, 0, 0);
	}
	if (id->state != CM_REQ_RCVD)
		return -EINVAL;
	if (!p)
		p = &none;
	if (p->private_data_len > (ud ? CM_SIDR_REP_PDATA : CM_REP_PDATA))
		return -EINVAL;
	id->uid = uid;
	id->listener = NULL;
	if (id->peer_gone) {
		id->state = CM_DONE;
		ucma_queue(id, UCMA_EV_UNREACHABLE, -ETIMEDOUT, NULL);
		return 0;
	}
	take_param(&id->local, p);
	id->local.qkey = ud ? (p->qkey ? p->qkey : CM_UDP_QKEY) : 0;
	id->local.retry = id->remote.retry; /* the REQ's count, both ways */
	ret = send_msg(id, ud ? CM_MSG_SIDR_REP : CM_MSG_REP, 0,
		       p->private_data, p->private_data_len, 255);
	if (ud || ret) {
		finish(id);
		return ret;
	}
	id->state = CM_REP_SENT;
	return 0;
}

int ucma_reject(struct ucma_id *id, uint8_t reason, const uint8_t *pdata,
		uint8_t len)
{
	bool ud = is_ud(id);
	int ret;

	if (id->state != CM_REQ_RCVD)
		return -EINVAL;
	if (len > (ud ? CM_SIDR_REP_PDATA : CM_REJ_PDATA))
		return -EINVAL;
	ret = id->peer_gone ? 0 :
	      ud ? send_msg(id, CM_MSG_SIDR_REP, CM_SIDR_REJECT, pdata, len,
			    255) :
		   send_msg(id, CM_MSG_REJ, reason, pdata, len, 255);
	finish(id);
	return ret;
}

int ucma_disconnect(struct ucma_id *id)
{
	switch (id->state) {
	case CM_ESTABLISHED:
	case CM_REP_SENT:
	case CM_REP_RCVD:
		id->state = CM_DREQ_SENT;
		if (send_msg(id, CM_MSG_DREQ, 0, NULL, 0, 0))
			ucma_channel_ready(id); /* the peer is gone already */
		return 0;
	case CM_REQ_SENT:
	case CM_REQ_RCVD:
	case CM_DREQ_SENT:
	case CM_DONE:
		return 0;
	default:
		return -EINVAL; /* no CM exchange yet */
	}
}

/* rdma_destroy_id(): a peer in the middle of an exchange is told */
void ucma_id_leaving(struct ucma_id *id)
{
	if (id->state == CM_LISTEN)
		ucma_forget_children(id);
	if (id->conn_fd < 0)
		return;
	if (id->state == CM_REQ_RCVD && !id->peer_gone)
		send_msg(id, is_ud(id) ? CM_MSG_SIDR_REP : CM_MSG_REJ,
			 is_ud(id) ? CM_SIDR_REJECT : CM_REJ_CONSUMER_DEFINED,
			 NULL, 0, 0);
	else if (id->state == CM_ESTABLISHED || id->state == CM_REP_SENT ||
		 id->state == CM_REP_RCVD)
		send_msg(id, CM_MSG_DREQ, 0, NULL, 0, 0);
	finish(id);
}
