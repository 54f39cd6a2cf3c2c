// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The remote CM's side of an exchange, run by the service thread with the
 * lock held: new channels on a listening port become ids whose REQ is
 * announced as CONNECT_REQUEST, and each message moves its id's state on
 * (cma.c's cma_ib_handler()/cma_req_handler() events).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "ucma.h"

static bool is_ud(const struct ucma_id *id)
{
	return id->qp_type == 4; /* IB_QPT_UD */
}

static void finish(struct ucma_id *id)
{
	id->state = CM_DONE;
	cm_tr_close(id->conn_fd);
	id->conn_fd = -1;
}

static void learn(struct ucma_id *id, const struct cm_msg *m)
{
	id->remote = m->end;
	id->remote_known = true;
}

static void disconnected(struct ucma_id *id)
{
	finish(id);
	ucma_queue(id, UCMA_EV_DISCONNECTED, 0, NULL);
	id->timewait = true;
	id->deadline = ucma_now() + CM_TIMEWAIT_NS;
	ucma_wake_service();
}

static void got_req(struct ucma_id *id, const struct cm_msg *m)
{
	struct ucma_id *listener = id->listener;
	uint16_t port = listener->port;

	learn(id, m);
	memcpy(&id->src, &m->dst, sizeof(id->src));
	memcpy(&id->dst, &m->src, sizeof(id->dst));
	if (id->src.ss_family == AF_INET)
		((struct sockaddr_in *)&id->src)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&id->src)->sin6_port = htons(port);
	id->state = CM_REQ_RCVD;
	ucma_queue_req(listener, id, m);
}

static void got_sidr_rep(struct ucma_id *id, const struct cm_msg *m)
{
	finish(id);
	if (m->status) {
		ucma_queue(id, UCMA_EV_UNREACHABLE, (int32_t)m->status, NULL);
		return;
	}
	learn(id, m);
	ucma_queue(id, UCMA_EV_ESTABLISHED, 0, m);
}

static void got_dreq(struct ucma_id *id)
{
	struct cm_msg m;

	memset(&m, 0, sizeof(m));
	m.type = CM_MSG_DREP;
	nic_settle();
	cm_tr_send(id->conn_fd, &m);
	disconnected(id);
}

static void handle(struct ucma_id *id, const struct cm_msg *m)
{
	enum cm_state s = id->state;

	emu_trace("ucma: id %u state %d got message %u", id->handle, s,
		  m->type);
	if ((m->type == CM_MSG_REQ || m->type == CM_MSG_SIDR_REQ) &&
	    s == CM_REQ_WAIT && id->listener)
		got_req(id, m);
	else if (m->type == CM_MSG_REP && s == CM_REQ_SENT && !is_ud(id)) {
		learn(id, m);
		id->state = CM_REP_RCVD;
		ucma_queue(id, UCMA_EV_CONNECT_RESPONSE, 0, m);
	} else if (m->type == CM_MSG_RTU && s == CM_REP_SENT) {
		id->state = CM_ESTABLISHED;
		ucma_queue(id, UCMA_EV_ESTABLISHED, 0, NULL);
	} else if (m->type == CM_MSG_REJ &&
		   (s == CM_REQ_SENT || s == CM_REP_SENT)) {
		finish(id);
		ucma_queue(id, UCMA_EV_REJECTED, (int32_t)m->status, m);
	} else if (m->type == CM_MSG_SIDR_REP && s == CM_REQ_SENT) {
		got_sidr_rep(id, m);
	} else if (m->type == CM_MSG_DREQ &&
		   (s == CM_ESTABLISHED || s == CM_REP_SENT ||
		    s == CM_REP_RCVD || s == CM_DREQ_SENT)) {
		got_dreq(id);
	} else if (m->type == CM_MSG_DREP && s == CM_DREQ_SENT) {
		disconnected(id);
	}
}

/* the channel closed: what the CM reports when its retries run out */
static bool peer_gone(struct ucma_id *id)
{
	switch (id->state) {
	case CM_REQ_WAIT:
		ucma_id_free(id);
		return true;
	case CM_REQ_RCVD:
		id->peer_gone = true;
		cm_tr_close(id->conn_fd);
		id->conn_fd = -1;
		break;
	case CM_REQ_SENT:
	case CM_REP_SENT:
		finish(id);
		ucma_queue(id, UCMA_EV_UNREACHABLE, -ETIMEDOUT, NULL);
		break;
	case CM_ESTABLISHED:
	case CM_REP_RCVD:
	case CM_DREQ_SENT:
		disconnected(id);
		break;
	default:
		finish(id);
	}
	return false;
}

void ucma_channel_ready(struct ucma_id *id)
{
	struct cm_msg m;
	int ret;

	while (id->conn_fd >= 0) {
		ret = cm_tr_recv(id->conn_fd, &m);
		if (ret == -EAGAIN)
			return;
		if (!ret) {
			if (peer_gone(id))
				return;
			continue;
		}
		handle(id, &m);
	}
}

void ucma_incoming(struct ucma_id *listener)
{
	struct ucma_id *id;
	int fd;

	while ((fd = cm_tr_accept(listener->port_fd)) >= 0) {
		id = ucma_id_new(listener->file);
		if (!id) {
			cm_tr_close(fd);
			continue;
		}
		id->ps = listener->ps;
		id->qp_type = listener->qp_type;
		id->tos = listener->tos;
		id->has_dev = true;
		id->state = CM_REQ_WAIT;
		id->conn_fd = fd;
		id->listener = listener;
		ucma_local_end(&id->local);
		id->port = listener->port;
		ucma_channel_ready(id);
	}
}

/* a listener goes: the channels it accepted and did not announce go too */
void ucma_forget_children(struct ucma_id *listener)
{
	struct emu_list *pos, *tmp;

	emu_list_for_each_safe(pos, tmp, &listener->file->ids)
	{
		struct ucma_id *id = container_of(pos, struct ucma_id, node);

		if (id->listener == listener && id->state == CM_REQ_WAIT)
			ucma_id_free(id);
	}
}
