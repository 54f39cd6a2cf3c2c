// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The rdma_cm write() commands, decoded as the kernel's ucma.c does:
 * each copies its fixed request (EFAULT), checks the response room
 * (ENOSPC) and its fields (EINVAL), finds the id (ENOENT, or EINVAL for
 * another file's id, or for one not yet on a device where a device is
 * needed) and answers through the response pointer (EFAULT).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "ucma.h"

#define offsetofend(t, m) (offsetof(t, m) + sizeof(((t *)0)->m))

struct ucma_req {
	struct ucma_file *f;
	int fd;
	const void *in;
	size_t in_len, out_len;
};

static int copy_to_user(uint64_t dst, const void *src, size_t len)
{
	if (!emu_access_ok(dst, len, PROT_WRITE))
		return -EFAULT;
	memcpy((void *)(uintptr_t)dst, src, len);
	return 0;
}

/* ucma_get_ctx_dev(): the id, which must be on a device */
static struct ucma_id *get_dev(struct ucma_file *f, uint32_t handle, int *err)
{
	struct ucma_id *id = ucma_id_get(f, handle, err);

	if (id && !id->has_dev) {
		*err = -EINVAL;
		return NULL;
	}
	return id;
}

/*
 * Copies the request and finds the id it names (on a device if dev): the
 * commands that check nothing else first
 */
static struct ucma_id *take(struct ucma_req *r, void *cmd, size_t size,
			    size_t id_at, bool dev, int *err)
{
	uint32_t handle;

	*err = emu_copy_from_user(cmd, r->in, size);
	if (*err)
		return NULL;
	memcpy(&handle, (const char *)cmd + id_at, sizeof(handle));
	return dev ? get_dev(r->f, handle, err) :
		     ucma_id_get(r->f, handle, err);
}

#define TAKE(r, cmd, dev, err)                                                 \
	take(r, &(cmd), sizeof(cmd), offsetof(typeof(cmd), id), dev, err)

#define GET_CMD(r, cmd)                                                        \
	do {                                                                   \
		int __e = emu_copy_from_user(&(cmd), (r)->in, sizeof(cmd));    \
		if (__e)                                                       \
			return __e;                                            \
	} while (0)

static int cmd_create_id(struct ucma_req *r)
{
	struct rdma_ucm_create_id cmd;
	struct rdma_ucm_create_id_resp resp = {};
	struct ucma_id *id;
	uint8_t qp_type;
	int ret;

	if (r->out_len < sizeof(resp))
		return -ENOSPC;
	GET_CMD(r, cmd);
	switch (cmd.ps) {
	case RDMA_PS_TCP:
		qp_type = 2; /* IB_QPT_RC */
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		qp_type = 4; /* IB_QPT_UD */
		break;
	case RDMA_PS_IB:
		qp_type = cmd.qp_type;
		break;
	default:
		return -EINVAL;
	}
	id = ucma_id_new(r->f);
	if (!id)
		return -ENOMEM;
	id->uid = cmd.uid;
	id->ps = cmd.ps;
	id->qp_type = qp_type;
	resp.id = id->handle;
	ret = copy_to_user(cmd.response, &resp, sizeof(resp));
	if (ret)
		ucma_id_free(id);
	return ret;
}

static int cmd_destroy_id(struct ucma_req *r)
{
	struct rdma_ucm_destroy_id cmd;
	struct rdma_ucm_destroy_id_resp resp = {};
	struct ucma_id *id;
	int ret;

	if (r->out_len < sizeof(resp))
		return -ENOSPC;
	id = TAKE(r, cmd, false, &ret);
	if (!id)
		return ret;
	ucma_id_leaving(id);
	resp.events_reported = ucma_drop_events(id);
	ucma_id_free(id);
	return copy_to_user(cmd.response, &resp, sizeof(resp));
}

static int cmd_bind_ip(struct ucma_req *r)
{
	struct rdma_ucm_bind_ip cmd;
	struct ucma_id *id;
	int ret;

	GET_CMD(r, cmd);
	if (!ucma_addr_size((struct sockaddr *)&cmd.addr))
		return -EINVAL;
	id = ucma_id_get(r->f, cmd.id, &ret);
	return id ? ucma_bind(id, (struct sockaddr *)&cmd.addr) : ret;
}

static int cmd_bind(struct ucma_req *r)
{
	struct rdma_ucm_bind cmd;
	struct ucma_id *id;
	int ret;

	GET_CMD(r, cmd);
	if (cmd.reserved || !cmd.addr_size ||
	    cmd.addr_size != ucma_addr_size((struct sockaddr *)&cmd.addr))
		return -EINVAL;
	id = ucma_id_get(r->f, cmd.id, &ret);
	return id ? ucma_bind(id, (struct sockaddr *)&cmd.addr) : ret;
}

static int cmd_resolve_ip(struct ucma_req *r)
{
	struct rdma_ucm_resolve_ip cmd;
	struct sockaddr *src = (struct sockaddr *)&cmd.src_addr;
	struct ucma_id *id;
	int ret;

	GET_CMD(r, cmd);
	if ((src->sa_family && !ucma_addr_size(src)) ||
	    !ucma_addr_size((struct sockaddr *)&cmd.dst_addr))
		return -EINVAL;
	id = ucma_id_get(r->f, cmd.id, &ret);
	if (!id)
		return ret;
	return ucma_resolve(id, src->sa_family ? src : NULL,
			    (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

static int cmd_resolve_addr(struct ucma_req *r)
{
	struct rdma_ucm_resolve_addr cmd;
	struct sockaddr *src = (struct sockaddr *)&cmd.src_addr;
	struct sockaddr *dst = (struct sockaddr *)&cmd.dst_addr;
	struct ucma_id *id;
	int ret;

	GET_CMD(r, cmd);
	if (cmd.reserved ||
	    (cmd.src_size && cmd.src_size != ucma_addr_size(src)) ||
	    !cmd.dst_size || cmd.dst_size != ucma_addr_size(dst))
		return -EINVAL;
	id = ucma_id_get(r->f, cmd.id, &ret);
	if (!id)
		return ret;
	return ucma_resolve(id, cmd.src_size ? src : NULL, dst, cmd.timeout_ms);
}

static int cmd_resolve_route(struct ucma_req *r)
{
	struct rdma_ucm_resolve_route cmd;
	struct ucma_id *id;
	int ret;

	id = TAKE(r, cmd, true, &ret);
	return id ? ucma_resolve_route(id) : ret;
}

static int cmd_query_route(struct ucma_req *r)
{
	struct rdma_ucm_query_route_resp resp;
	struct rdma_ucm_query cmd;
	struct ucma_id *id;
	int ret;

	if (r->out_len < sizeof(resp))
		return -ENOSPC;
	id = TAKE(r, cmd, false, &ret);
	if (!id)
		return ret;
	ret = ucma_query_route(id, &resp, sizeof(resp));
	return ret ?: copy_to_user(cmd.response, &resp, sizeof(resp));
}

static int cmd_query(struct ucma_req *r)
{
	struct rdma_ucm_query cmd;
	struct ucma_id *id;
	uint8_t resp[512];
	size_t len;
	int ret;

	id = TAKE(r, cmd, false, &ret);
	if (!id)
		return ret;
	len = r->out_len < sizeof(resp) ? r->out_len : sizeof(resp);
	ret = ucma_query(id, cmd.option, resp, len);
	if (ret < 0)
		return ret;
	return copy_to_user(cmd.response, resp, ret);
}

/* connect and accept take the conn_param without the ECE tail */
static int get_conn_cmd(struct ucma_req *r, void *cmd, size_t size, size_t min)
{
	if (r->in_len < min)
		return -EINVAL;
	memset(cmd, 0, size);
	return emu_copy_from_user(cmd, r->in,
				  r->in_len < size ? r->in_len : size);
}

static int cmd_connect(struct ucma_req *r)
{
	struct rdma_ucm_connect cmd;
	struct ucma_id *id;
	int ret;

	ret = get_conn_cmd(r, &cmd, sizeof(cmd),
			   offsetofend(struct rdma_ucm_connect, reserved));
	if (ret)
		return ret;
	if (!cmd.conn_param.valid)
		return -EINVAL;
	id = get_dev(r->f, cmd.id, &ret);
	return id ? ucma_connect(id, &cmd.conn_param) : ret;
}

static int cmd_listen(struct ucma_req *r)
{
	struct rdma_ucm_listen cmd;
	struct ucma_id *id;
	int ret;

	id = TAKE(r, cmd, false, &ret);
	if (!id)
		return ret;
	if (!cmd.backlog || cmd.backlog > CM_MAX_BACKLOG)
		cmd.backlog = CM_MAX_BACKLOG;
	return ucma_listen(id, cmd.backlog);
}

static int cmd_accept(struct ucma_req *r)
{
	struct rdma_ucm_accept cmd;
	struct ucma_id *id;
	int ret;

	ret = get_conn_cmd(r, &cmd, sizeof(cmd),
			   offsetofend(struct rdma_ucm_accept, reserved));
	if (ret)
		return ret;
	id = get_dev(r->f, cmd.id, &ret);
	if (!id)
		return ret;
	return ucma_accept(id, cmd.uid,
			   cmd.conn_param.valid ? &cmd.conn_param : NULL);
}

static int cmd_reject(struct ucma_req *r)
{
	struct rdma_ucm_reject cmd;
	struct ucma_id *id;
	int ret;

	GET_CMD(r, cmd);
	if (!cmd.reason)
		cmd.reason = CM_REJ_CONSUMER_DEFINED;
	if (cmd.reason != CM_REJ_CONSUMER_DEFINED &&
	    cmd.reason != CM_REJ_VENDOR_OPTION_NOT_SUPPORTED)
		return -EINVAL;
	id = get_dev(r->f, cmd.id, &ret);
	if (!id)
		return ret;
	return ucma_reject(id, cmd.reason, cmd.private_data,
			   cmd.private_data_len);
}

static int cmd_disconnect(struct ucma_req *r)
{
	struct rdma_ucm_disconnect cmd;
	struct ucma_id *id;
	int ret;

	id = TAKE(r, cmd, true, &ret);
	return id ? ucma_disconnect(id) : ret;
}

static int cmd_init_qp_attr(struct ucma_req *r)
{
	struct ib_uverbs_qp_attr resp = {};
	struct rdma_ucm_init_qp_attr cmd;
	struct ucma_id *id;
	int ret;

	if (r->out_len < sizeof(resp))
		return -ENOSPC;
	GET_CMD(r, cmd);
	if (cmd.qp_state > 6 /* IB_QPS_ERR */)
		return -EINVAL;
	id = get_dev(r->f, cmd.id, &ret);
	if (!id)
		return ret;
	ret = ucma_init_qp_attr(id, cmd.qp_state, &resp);
	return ret ?: copy_to_user(cmd.response, &resp, sizeof(resp));
}

static int cmd_get_event(struct ucma_req *r)
{
	return ucma_get_event(r->f, r->fd, r->in, r->in_len, r->out_len);
}

static int set_id_option(struct ucma_id *id, uint32_t name, const void *val,
			 uint32_t len)
{
	switch (name) {
	case RDMA_OPTION_ID_TOS:
		if (len != sizeof(uint8_t))
			return -EINVAL;
		id->tos = *(const uint8_t *)val;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		/* one host, one port space: accepted, nothing to change */
		return len == sizeof(int) ? 0 : -EINVAL;
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (len != sizeof(uint8_t))
			return -EINVAL;
		id->ack_timeout = *(const uint8_t *)val;
		id->timeout_set = true;
		return 0;
	default:
		return -ENOSYS;
	}
}

static int cmd_set_option(struct ucma_req *r)
{
	struct rdma_ucm_set_option cmd;
	struct ucma_id *id;
	uint8_t val[256];
	int ret;

	id = TAKE(r, cmd, false, &ret);
	if (!id)
		return ret;
	if (cmd.optlen > sizeof(val))
		return -EINVAL; /* no option is longer */
	ret = emu_copy_from_user(val, (const void *)(uintptr_t)cmd.optval,
				 cmd.optlen);
	if (ret)
		return ret;
	if (cmd.level == RDMA_OPTION_ID)
		return set_id_option(id, cmd.optname, val, cmd.optlen);
	if (cmd.level == RDMA_OPTION_IB && cmd.optname == RDMA_OPTION_IB_PATH)
		/* path records are ours to make: accepted, not used */
		return cmd.optlen % sizeof(struct ib_path_rec_data) ? -EINVAL :
								      0;
	return -ENOSYS;
}

static int cmd_notify(struct ucma_req *r)
{
	struct rdma_ucm_notify cmd;
	struct ucma_id *id;
	int ret;

	id = TAKE(r, cmd, true, &ret);
	if (!id)
		return ret;
	/* IB_EVENT_COMM_EST: data came before the RTU, as if it had come */
	if (cmd.event == 9 && id->state == CM_REP_SENT) {
		id->state = CM_ESTABLISHED;
		ucma_queue(id, UCMA_EV_ESTABLISHED, 0, NULL);
	}
	return 0;
}

/* written to the new file; cmd.fd is the id's current one */
static int cmd_migrate_id(struct ucma_req *r)
{
	struct rdma_ucm_migrate_resp resp = {};
	struct rdma_ucm_migrate_id cmd;
	struct ucma_file *cur;
	struct ucma_id *id;
	struct emu_list *pos, *tmp;
	int ret;

	GET_CMD(r, cmd);
	cur = emu_fd_get((int)cmd.fd, EMU_FD_UCMA);
	if (!cur)
		return emu_libc.fcntl((int)cmd.fd, F_GETFD) < 0 ? -ENOENT :
								  -EINVAL;
	id = ucma_id_get(cur, cmd.id, &ret);
	if (!id)
		return ret;
	if (cur != r->f) {
		emu_list_del(&id->node);
		emu_list_add_tail(&r->f->ids, &id->node);
		id->file = r->f;
		emu_list_for_each_safe(pos, tmp, &cur->events)
		{
			struct ucma_event *e =
				container_of(pos, struct ucma_event, node);

			if (e->id != id)
				continue;
			emu_list_del(&e->node);
			ucma_requeue(cur, r->f, e);
		}
	}
	resp.events_reported = id->events_reported;
	return copy_to_user(cmd.response, &resp, sizeof(resp));
}

static int (*const handlers[])(struct ucma_req *r) = {
	[RDMA_USER_CM_CMD_CREATE_ID] = cmd_create_id,
	[RDMA_USER_CM_CMD_DESTROY_ID] = cmd_destroy_id,
	[RDMA_USER_CM_CMD_BIND_IP] = cmd_bind_ip,
	[RDMA_USER_CM_CMD_RESOLVE_IP] = cmd_resolve_ip,
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = cmd_resolve_route,
	[RDMA_USER_CM_CMD_QUERY_ROUTE] = cmd_query_route,
	[RDMA_USER_CM_CMD_CONNECT] = cmd_connect,
	[RDMA_USER_CM_CMD_LISTEN] = cmd_listen,
	[RDMA_USER_CM_CMD_ACCEPT] = cmd_accept,
	[RDMA_USER_CM_CMD_REJECT] = cmd_reject,
	[RDMA_USER_CM_CMD_DISCONNECT] = cmd_disconnect,
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = cmd_init_qp_attr,
	[RDMA_USER_CM_CMD_GET_EVENT] = cmd_get_event,
	[RDMA_USER_CM_CMD_SET_OPTION] = cmd_set_option,
	[RDMA_USER_CM_CMD_NOTIFY] = cmd_notify,
	[RDMA_USER_CM_CMD_MIGRATE_ID] = cmd_migrate_id,
	[RDMA_USER_CM_CMD_QUERY] = cmd_query,
	[RDMA_USER_CM_CMD_BIND] = cmd_bind,
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = cmd_resolve_addr,
	/* no multicast, no IB service resolution, no WRITE_CM_EVENT */
	[RDMA_USER_CM_CMD_WRITE_CM_EVENT] = NULL,
};

int ucma_dispatch(struct ucma_file *f, int fd, uint32_t cmd, const void *in,
		  size_t in_len, size_t out_len)
{
	struct ucma_req r = {
		.f = f, .fd = fd, .in = in, .in_len = in_len, .out_len = out_len
	};
	int ret;

	if (cmd >= ARRAY_SIZE(handlers))
		return -EINVAL;
	if (!handlers[cmd])
		return -ENOSYS;
	pthread_mutex_lock(&ucma_lock);
	ret = handlers[cmd](&r);
	pthread_mutex_unlock(&ucma_lock);
	return ret;
}
