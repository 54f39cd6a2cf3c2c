// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ids of all rdma_cm files of the process and the service thread that
 * plays the remote CM's part: it accepts channels on listening ports,
 * reads the messages peers send and fires address-resolution timers, so
 * events arrive while the application sleeps in poll() or get_event.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ucma.h"

pthread_mutex_t ucma_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_table ids; /* by handle, lowest free first like an xarray */
static uint64_t next_serial = 1;
static int wake_fd = -1;

uint64_t ucma_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct ucma_id *ucma_id_new(struct ucma_file *file)
{
	struct ucma_id *id = calloc(1, sizeof(*id));

	if (!id)
		return NULL;
	if (emu_table_alloc(&ids, id, &id->handle)) {
		free(id);
		return NULL;
	}
	id->file = file;
	id->serial = next_serial++;
	id->port_fd = -1;
	id->conn_fd = -1;
	/* the starting PSN is the id's from its birth, as cma.c's seq_num */
	id->local.psn = (uint32_t)((ucma_now() ^ (uint64_t)getpid() << 20 ^
				    id->serial * 2654435761u) &
				   0xffffff);
	emu_list_add_tail(&file->ids, &id->node);
	return id;
}

/* ucma_get_ctx(): ENOENT for no such id, EINVAL for another file's */
struct ucma_id *ucma_id_get(struct ucma_file *file, uint32_t handle, int *err)
{
	struct ucma_id *id = emu_table_get(&ids, handle);

	*err = !id ? -ENOENT : id->file != file ? -EINVAL : 0;
	return *err ? NULL : id;
}

void ucma_id_close_fds(struct ucma_id *id)
{
	cm_tr_close(id->conn_fd);
	id->conn_fd = -1;
	cm_tr_close(id->port_fd);
	id->port_fd = -1;
	ucma_wake_service();
}

void ucma_id_free(struct ucma_id *id)
{
	ucma_id_close_fds(id);
	emu_table_remove(&ids, id->handle);
	emu_list_del(&id->node);
	free(id);
}

void ucma_wake_service(void)
{
	uint64_t one = 1;

	if (wake_fd >= 0 && emu_libc.write(wake_fd, &one, sizeof(one)) < 0)
		return; /* the counter is full: the thread wakes anyway */
}

/* ------------------------------------------------------------------ */
/* the service thread                                                  */

struct watch {
	uint64_t serial;
	uint32_t handle;
	bool listening;
};

/* the fds to wait on and the nearest timer; called with the lock held */
static int collect(struct pollfd *pfd, struct watch *w, int max, int *timeout)
{
	uint64_t now = ucma_now(), next = 0;
	uint32_t h;
	int n = 1;

	pfd[0].fd = wake_fd;
	pfd[0].events = POLLIN;
	for (h = 0; h < ids.nslots && n < max; h++) {
		struct ucma_id *id = ids.slot[h];
		int fd;

		/* a fork() child leaves its parent's ids to the parent */
		if (!id || id->file->pid != getpid())
			continue;
		if (id->deadline && (!next || id->deadline < next))
			next = id->deadline;
		fd = id->state == CM_LISTEN ? id->port_fd : id->conn_fd;
		if (fd < 0)
			continue;
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		w[n].serial = id->serial;
		w[n].handle = h;
		w[n].listening = id->state == CM_LISTEN;
		n++;
	}
	*timeout = -1;
	if (next)
		*timeout = next <= now ? 0 : (int)((next - now) / 1000000 + 1);
	return n;
}

static void fire_timers(void)
{
	uint64_t now = ucma_now();
	uint32_t h;

	for (h = 0; h < ids.nslots; h++) {
		struct ucma_id *id = ids.slot[h];

		if (id && id->deadline && id->deadline <= now &&
		    id->file->pid == getpid()) {
			id->deadline = 0;
			ucma_timer_fired(id);
		}
	}
}

static void serve(struct pollfd *pfd, struct watch *w, int n)
{
	int i;

	for (i = 1; i < n; i++) {
		struct ucma_id *id;

		if (!pfd[i].revents)
			continue;
		id = emu_table_get(&ids, w[i].handle);
		if (!id || id->serial != w[i].serial)
			continue; /* destroyed while we slept */
		if (w[i].listening && id->state == CM_LISTEN)
			ucma_incoming(id);
		else if (!w[i].listening && id->conn_fd == pfd[i].fd)
			ucma_channel_ready(id);
	}
}

static bool peer_spoke(const struct pollfd *pfd, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (pfd[i].revents)
			return true;
	return false;
}

/*
 * One slot per id and the wake-up fd, grown with the id table: a fixed set
 * left the ids past it unwatched, their connections never established.
 * Static: a fork() child, which has no such thread, holds no lost block.
 */
static struct pollfd *service_fds;
static struct watch *service_watch;
static int service_max;

/* room for every id; called with the lock held */
static void service_grow(void)
{
	int want = (int)ids.nslots + 1;
	struct pollfd *fds;
	struct watch *w;

	if (want <= service_max)
		return;
	fds = realloc(service_fds, want * sizeof(*fds));
	if (fds)
		service_fds = fds;
	w = realloc(service_watch, want * sizeof(*w));
	if (w)
		service_watch = w;
	/* out of memory: the ids that fit are watched, as before */
	if (fds && w)
		service_max = want;
}

static void *service(void *arg)
{
	uint64_t count;
	int n, timeout;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&ucma_lock);
		service_grow();
		if (!service_max) { /* not even the wake-up fd: try again */
			pthread_mutex_unlock(&ucma_lock);
			poll(NULL, 0, 10);
			continue;
		}
		n = collect(service_fds, service_watch, service_max, &timeout);
		pthread_mutex_unlock(&ucma_lock);
		if (poll(service_fds, n, timeout) < 0)
			continue;
		if ((service_fds[0].revents & POLLIN) &&
		    emu_libc.read(wake_fd, &count, sizeof(count)) < 0)
			count = 0;
		/* a peer's message comes after its fabric traffic */
		if (peer_spoke(service_fds, n))
			nic_settle();
		pthread_mutex_lock(&ucma_lock);
		serve(service_fds, service_watch, n);
		fire_timers();
		pthread_mutex_unlock(&ucma_lock);
	}
	return NULL;
}

/* started with the first open of the cdev; called with the lock held */
int ucma_service_start(void)
{
	int ret;

	if (wake_fd >= 0)
		return 0;
	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0)
		return -errno;
	ret = emu_thread_start(service, NULL);
	if (ret) {
		emu_libc.close(wake_fd);
		wake_fd = -1;
	}
	return ret;
}

/*
 * fork(): the child has no service thread; it starts its own when it
 * opens the cdev. The lock is taken around fork() so that the child's
 * copy of it is free.
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&ucma_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&ucma_lock);
}

static void fork_child(void)
{
	if (wake_fd >= 0)
		emu_libc.close(wake_fd);
	wake_fd = -1;
	pthread_mutex_unlock(&ucma_lock);
}

static const struct emu_fork_hook ucma_fork = {
	.prepare = fork_prepare,
	.parent = fork_parent,
	.child = fork_child,
};

__attribute__((constructor)) static void ucma_atfork(void)
{
	emu_fork_register(&ucma_fork);
}
