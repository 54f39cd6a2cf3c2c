// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion channels and the async event file (ib_uverbs_event_file).
 * Events sit in our own queue; an eventfd in semaphore mode carries the
 * count so poll()/epoll on the fd work, and read() is ours, so destroy can
 * report exactly the events the application has read and drop the rest.
 *
 * A blocking read() sleeps on a futex, which the kernel treats as it does
 * ib_uverbs_event_read()'s interruptible wait: a signal handler with
 * SA_RESTART restarts it, one without makes it fail with EINTR.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mlx5emu.h"

struct emu_event {
	struct emu_list node;
	struct emu_uobj *uobj; /* CQ, QP or SRQ the event is about */
	union {
		struct ib_uverbs_comp_event_desc comp;
		struct ib_uverbs_async_event_desc async;
	} desc;
};

struct emu_event_file {
	pthread_mutex_t lock;
	int fd; /* -1 once the application closed it */
	unsigned int refcnt;
	bool async;
	struct emu_list events;
	uint32_t pushes; /* futex word of blocked readers */
	unsigned int sleepers;
};

struct emu_event_file *emu_event_file_create(bool async, int *fd)
{
	struct emu_event_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (f->fd < 0 || f->fd >= EMU_MAX_FDS) {
		if (f->fd >= 0)
			emu_libc.close(f->fd);
		free(f);
		return NULL;
	}
	pthread_mutex_init(&f->lock, NULL);
	f->refcnt = 1; /* the fd's */
	f->async = async;
	emu_list_init(&f->events);
	emu_fd_set(f->fd, EMU_FD_EVENT, f);
	*fd = f->fd;
	return f;
}

void emu_event_file_get(struct emu_event_file *f)
{
	__atomic_add_fetch(&f->refcnt, 1, __ATOMIC_RELAXED);
}

void emu_event_file_put(struct emu_event_file *f)
{
	struct emu_list *pos, *tmp;

	if (__atomic_sub_fetch(&f->refcnt, 1, __ATOMIC_ACQ_REL))
		return;
	emu_list_for_each_safe(pos, tmp, &f->events)
		free(container_of(pos, struct emu_event, node));
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* close() on the fd; CQs may still point at the channel */
void emu_event_file_closed(struct emu_event_file *f)
{
	pthread_mutex_lock(&f->lock);
	emu_libc.close(f->fd);
	f->fd = -1;
	pthread_mutex_unlock(&f->lock);
	emu_event_file_put(f);
}

static void count_read(struct emu_event_file *f, struct emu_event *ev)
{
	if (!ev->uobj)
		return;
	if (!f->async) {
		container_of(ev->uobj, struct emu_cq, uobj)
			->comp_events_reported++;
	} else if (ev->uobj->type == EMU_OBJ_CQ) {
		container_of(ev->uobj, struct emu_cq, uobj)
			->async_events_reported++;
	} else if (ev->uobj->type == EMU_OBJ_QP) {
		container_of(ev->uobj, struct emu_qp, uobj)->events_reported++;
	} else if (ev->uobj->type == EMU_OBJ_SRQ) {
		container_of(ev->uobj, struct emu_srq, uobj)->events_reported++;
	}
}

/*
 * Sleep until an event is pushed after the reader saw "pushes" at seen;
 * -1 with errno EINTR when a handler without SA_RESTART ran meanwhile.
 */
static int wait_push(struct emu_event_file *f, uint32_t seen)
{
	long r = syscall(SYS_futex, &f->pushes, FUTEX_WAIT_PRIVATE, seen, NULL,
			 NULL, 0);

	return r < 0 && errno == EINTR ? -1 : 0;
}

/* the first event, with f->lock held, or NULL and errno */
static struct emu_event *wait_event(struct emu_event_file *f, bool nonblock)
{
	uint32_t seen;
	int ret;

	for (;;) {
		pthread_mutex_lock(&f->lock);
		if (!emu_list_empty(&f->events))
			return container_of(f->events.next, struct emu_event,
					    node);
		if (nonblock) {
			pthread_mutex_unlock(&f->lock);
			errno = EAGAIN;
			return NULL;
		}
		seen = f->pushes;
		f->sleepers++;
		pthread_mutex_unlock(&f->lock);
		ret = wait_push(f, seen);
		pthread_mutex_lock(&f->lock);
		f->sleepers--;
		pthread_mutex_unlock(&f->lock);
		if (ret) {
			errno = EINTR;
			return NULL;
		}
	}
}

ssize_t emu_event_read(struct emu_event_file *f, int fd, void *buf,
		       size_t count)
{
	size_t size = f->async ? sizeof(struct ib_uverbs_async_event_desc) :
				 sizeof(struct ib_uverbs_comp_event_desc);
	bool nonblock = emu_libc.fcntl(fd, F_GETFL) & O_NONBLOCK;
	struct emu_event *ev;
	uint64_t one;

	if (count < size) {
		errno = EINVAL;
		return -1;
	}
	/* a close() on another thread must not free f under our sleep */
	emu_event_file_get(f);
	ev = wait_event(f, nonblock);
	if (!ev) {
		emu_event_file_put(f);
		return -1;
	}
	emu_list_del(&ev->node);
	emu_libc.read(f->fd, &one, sizeof(one));
	memcpy(buf, &ev->desc, size);
	count_read(f, ev);
	pthread_mutex_unlock(&f->lock);
	emu_event_file_put(f);
	free(ev);
	return size;
}

static int push(struct emu_event_file *f, struct emu_event *ev)
{
	static const uint64_t one = 1;
	unsigned int wake;

	pthread_mutex_lock(&f->lock);
	if (f->fd < 0) {
		pthread_mutex_unlock(&f->lock);
		free(ev);
		return 0; /* nobody can read it any more */
	}
	emu_list_add_tail(&f->events, &ev->node);
	emu_libc.write(f->fd, &one, sizeof(one));
	f->pushes++;
	wake = f->sleepers;
	pthread_mutex_unlock(&f->lock);
	if (wake)
		syscall(SYS_futex, &f->pushes, FUTEX_WAKE_PRIVATE, INT_MAX,
			NULL, NULL, 0);
	return 0;
}

int emu_event_push_comp(struct emu_event_file *f, struct emu_cq *cq)
{
	struct emu_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	ev->uobj = &cq->uobj;
	ev->desc.comp.cq_handle = cq->uobj.user_handle;
	return push(f, ev);
}

int emu_event_push_async(struct emu_event_file *f, struct emu_uobj *uobj,
			 uint64_t element, uint32_t type)
{
	struct emu_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	ev->uobj = uobj;
	ev->desc.async.element = element;
	ev->desc.async.event_type = type;
	return push(f, ev);
}

/* the object is being destroyed: unread events about it are discarded */
void emu_event_drop(struct emu_event_file *f, struct emu_uobj *uobj)
{
	struct emu_list *pos, *tmp;
	uint64_t one;

	pthread_mutex_lock(&f->lock);
	emu_list_for_each_safe(pos, tmp, &f->events)
	{
		struct emu_event *ev =
			container_of(pos, struct emu_event, node);

		if (ev->uobj != uobj)
			continue;
		emu_list_del(&ev->node);
		if (f->fd >= 0)
			emu_libc.read(f->fd, &one, sizeof(one));
		free(ev);
	}
	pthread_mutex_unlock(&f->lock);
}
