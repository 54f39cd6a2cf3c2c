// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * An open /dev/infiniband/rdma_cm (ucma_open/ucma_write/ucma_close) and
 * its event queue. The fd is an eventfd in semaphore mode whose count is
 * the number of queued events, so poll()/epoll on it work as on the
 * kernel's file; GET_EVENT takes one event and one count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ucma.h"

bool ucma_is_cdev(const char *path)
{
	return path && !strcmp(path, UCMA_PATH);
}

void ucma_fake_stat(struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(0, 6);
	st->st_ino = 999;
	st->st_mode = S_IFCHR | 0666;
	st->st_nlink = 1;
	st->st_rdev = makedev(UCMA_CDEV_MAJOR, UCMA_CDEV_MINOR);
	st->st_blksize = 4096;
}

/* what RDMA_NLDEV_CMD_GET_CHARDEV answers for "rdma_cm" */
int ucma_netlink_chardev(uint64_t *cdev, uint64_t *abi, const char **name)
{
	/* huge_encode_dev() */
	*cdev = (UCMA_CDEV_MAJOR & 0xfff) << 8 | (UCMA_CDEV_MINOR & 0xff) |
		(uint64_t)(UCMA_CDEV_MINOR & ~0xffU) << 12;
	*abi = RDMA_USER_CM_ABI_VERSION;
	*name = "rdma_cm";
	return 0;
}

int ucma_open(int flags)
{
	struct ucma_file *f = calloc(1, sizeof(*f));
	int ret;

	emu_libc_init();
	emu_init();
	if (!f)
		goto nomem;
	f->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE |
				   ((flags & O_NONBLOCK) ? EFD_NONBLOCK : 0));
	if (f->fd < 0 || f->fd >= EMU_MAX_FDS) {
		if (f->fd >= 0)
			emu_libc.close(f->fd);
		free(f);
		goto nomem;
	}
	f->pid = getpid();
	emu_list_init(&f->events);
	emu_list_init(&f->ids);
	pthread_cond_init(&f->cond, NULL);
	pthread_mutex_lock(&ucma_lock);
	ret = ucma_service_start();
	pthread_mutex_unlock(&ucma_lock);
	if (ret) {
		emu_libc.close(f->fd);
		free(f);
		errno = -ret;
		return -1;
	}
	emu_fd_set(f->fd, EMU_FD_UCMA, f);
	return f->fd;
nomem:
	errno = ENOMEM;
	return -1;
}

/* ucma_write(): the header checks, then the command */
ssize_t ucma_write(struct ucma_file *f, int fd, const void *buf, size_t count)
{
	struct rdma_ucm_cmd_hdr hdr;
	int ret;

	if (f->pid != getpid()) {
		/* the ids live in the parent: refused, as uverbs fds are */
		errno = EIO;
		return -1;
	}
	if (count < sizeof(hdr)) {
		errno = EINVAL;
		return -1;
	}
	ret = emu_copy_from_user(&hdr, buf, sizeof(hdr));
	if (!ret && hdr.in + sizeof(hdr) > count)
		ret = -EINVAL;
	if (!ret)
		ret = ucma_dispatch(f, fd, hdr.cmd,
				    (const char *)buf + sizeof(hdr), hdr.in,
				    hdr.out);
	if (ret) {
		errno = -ret;
		return -1;
	}
	return count;
}

void ucma_close(struct ucma_file *f)
{
	if (f->pid != getpid()) {
		/* a fork() child drops its copy; the parent's ids stay */
		emu_fd_clear(f->fd);
		emu_libc.close(f->fd);
		return;
	}
	pthread_mutex_lock(&ucma_lock);
	/* one at a time: a listener takes its pending ids along */
	while (!emu_list_empty(&f->ids)) {
		struct ucma_id *id =
			container_of(f->ids.next, struct ucma_id, node);

		ucma_id_leaving(id);
		ucma_drop_events(id);
		ucma_id_free(id);
	}
	f->closed = true;
	emu_fd_clear(f->fd);
	emu_libc.close(f->fd);
	pthread_mutex_unlock(&ucma_lock);
	/* a reader still asleep keeps f; it is a few bytes */
	if (!f->waiters) {
		pthread_cond_destroy(&f->cond);
		free(f);
	}
}

/* ------------------------------------------------------------------ */
/* the queue                                                           */

static uint8_t pdata_size(uint32_t type)
{
	switch (type) {
	case CM_MSG_REQ:
		return CM_REQ_PDATA;
	case CM_MSG_REP:
		return CM_REP_PDATA;
	case CM_MSG_REJ:
		return CM_REJ_PDATA;
	case CM_MSG_SIDR_REQ:
		return CM_SIDR_REQ_PDATA;
	case CM_MSG_SIDR_REP:
		return CM_SIDR_REP_PDATA;
	default:
		return 0;
	}
}

/* the event's parameters as cma.c reports what a message carried */
static void fill_param(struct rdma_ucm_event_resp *r, const struct ucma_id *id,
		       const struct cm_msg *m)
{
	uint8_t len = pdata_size(m->type);

	if (id->qp_type == 4 /* IB_QPT_UD */) {
		struct rdma_ucm_ud_param *ud = &r->param.ud;

		ud->qp_num = m->end.qpn;
		ud->qkey = m->end.qkey;
		ud->ah_attr.dlid = m->end.lid;
		ud->ah_attr.port_num = 1;
		memcpy(ud->ah_attr.grh.dgid, m->end.gid, 16);
		ud->private_data_len = len;
		memcpy(ud->private_data, m->pdata, len);
		return;
	}
	r->param.conn.qp_num = m->end.qpn;
	r->param.conn.responder_resources = m->end.resp_res;
	r->param.conn.initiator_depth = m->end.init_depth;
	r->param.conn.flow_control = m->end.flow_control;
	r->param.conn.retry_count = m->end.retry;
	r->param.conn.rnr_retry_count = m->end.rnr_retry;
	r->param.conn.srq = m->end.srq;
	r->param.conn.private_data_len = len;
	memcpy(r->param.conn.private_data, m->pdata, len);
}

static void push(struct ucma_file *f, struct ucma_event *e)
{
	uint64_t one = 1;

	emu_list_add_tail(&f->events, &e->node);
	if (emu_libc.write(f->fd, &one, sizeof(one)) < 0)
		emu_trace("ucma: event count not raised: %d", errno);
	pthread_cond_broadcast(&f->cond);
}

static struct ucma_event *new_event(struct ucma_id *id, uint32_t event,
				    int32_t status, const struct cm_msg *m)
{
	struct ucma_event *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->id = id;
	e->resp.uid = id->uid;
	e->resp.id = id->handle;
	e->resp.event = event;
	e->resp.status = status;
	if (m)
		fill_param(&e->resp, id, m);
	return e;
}

void ucma_queue(struct ucma_id *id, uint32_t event, int32_t status,
		const struct cm_msg *m)
{
	struct ucma_event *e = new_event(id, event, status, m);

	emu_trace("ucma: id %u event %u status %d", id->handle, event, status);
	if (e)
		push(id->file, e);
}

/* the new id is named; the listener's uid says whose request it is */
void ucma_queue_req(struct ucma_id *listener, struct ucma_id *child,
		    const struct cm_msg *m)
{
	struct ucma_event *e = new_event(child, UCMA_EV_CONNECT_REQUEST, 0, m);

	if (!e)
		return;
	e->id = listener;
	e->child = child;
	e->resp.uid = listener->uid;
	push(listener->file, e);
}

/* id is going: its unread events go too (and the ids they announce) */
uint32_t ucma_drop_events(struct ucma_id *id)
{
	struct emu_list *pos, *tmp;
	uint64_t count;

	emu_list_for_each_safe(pos, tmp, &id->file->events)
	{
		struct ucma_event *e =
			container_of(pos, struct ucma_event, node);

		if (e->id != id && e->child != id)
			continue;
		if (e->child && e->child != id) {
			ucma_id_leaving(e->child);
			ucma_id_free(e->child);
		}
		emu_list_del(&e->node);
		free(e);
		if (emu_libc.read(id->file->fd, &count, sizeof(count)) < 0)
			emu_trace("ucma: event count not lowered: %d", errno);
	}
	return id->events_reported;
}

void ucma_requeue(struct ucma_file *from, struct ucma_file *to,
		  struct ucma_event *e)
{
	uint64_t count;

	if (emu_libc.read(from->fd, &count, sizeof(count)) < 0)
		emu_trace("ucma: event count not lowered: %d", errno);
	push(to, e);
}

/* a reader cancelled in its wait (rping cancels its CM thread) */
static void wait_cancelled(void *arg)
{
	struct ucma_file *f = arg;

	f->waiters--;
	pthread_mutex_unlock(&ucma_lock);
}

static int wait_event(struct ucma_file *f, int fd)
{
	/*
	 * A reader keeps the kernel's file open: closing the fd under it
	 * leaves it asleep (rping's CM thread), it never fails
	 */
	while (emu_list_empty(&f->events) || f->closed) {
		if (!f->closed && emu_libc.fcntl(fd, F_GETFL) & O_NONBLOCK)
			return -EAGAIN;
		f->waiters++;
		pthread_cleanup_push(wait_cancelled, f);
		pthread_cond_wait(&f->cond, &ucma_lock);
		pthread_cleanup_pop(0);
		f->waiters--;
	}
	return 0;
}

int ucma_get_event(struct ucma_file *f, int fd, const void *in, size_t in_len,
		   size_t out_len)
{
	struct rdma_ucm_get_event cmd;
	struct ucma_event *e;
	uint64_t count;
	int ret;

	(void)in_len;
	if (out_len < offsetof(struct rdma_ucm_event_resp, ece))
		return -ENOSPC;
	ret = emu_copy_from_user(&cmd, in, sizeof(cmd));
	if (ret)
		return ret;
	ret = wait_event(f, fd);
	if (ret)
		return ret;
	e = container_of(f->events.next, struct ucma_event, node);
	if (out_len > sizeof(e->resp))
		out_len = sizeof(e->resp);
	if (!emu_access_ok(cmd.response, out_len, PROT_WRITE))
		return -EFAULT;
	memcpy((void *)(uintptr_t)cmd.response, &e->resp, out_len);
	emu_list_del(&e->node);
	if (emu_libc.read(f->fd, &count, sizeof(count)) < 0)
		emu_trace("ucma: event count not lowered: %d", errno);
	e->id->events_reported++;
	if (e->child)
		e->child->listener = NULL; /* the application owns it now */
	free(e);
	return 0;
}
