// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Attribution for `mlx5emu stat`: which UAR pages each context holds and
 * which page each QP rings. Records are linked here under one lock (so the
 * writer never takes a context lock) and the whole process is rewritten to
 * $MLX5EMU_STAT_DIR/<pid> on every change and at exit, one record per line:
 *
 *   process pid=.. comm=.. state=running|exited nic=none|fifo|slice|other
 *           (nic: the NIC thread's scheduling class; other is slow)
 *   context pid=.. ctx=.. dev=mlx5_0 uar=static|dynamic tot_bfregs=..
 *           static_pages=.. num_dyn_bfregs=.. uars_per_page=.. uars=..
 *           refused=N [last_refused=<request>:<ERRNO>]
 *   page pid=.. ctx=.. page_id=0x.. nuars=.. kind=static|alloc_wc|bf|nc
 *        how=get_context|mmap_alloc_wc|uar_obj_alloc index=.. mapped=..
 *        destroyed=0|1 qps=.. cqs=..
 *   qp pid=.. ctx=.. qpn=0x.. page_id=0x.. uar=0x.. type=rc|uc|ud
 *      tid=<thread that created it: tells a program's threads apart>
 *      how=static_bfreg|bfreg_index|uar_page_index bfreg=..
 *   ring ..       (nic/engine/doorbell.c)
 *   traffic ..    (nic/engine/doorbell.c): per QP, and qpn=all per process
 *   datagrams ..  (nic/engine/datagram.c)
 *   end pid=..
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_verbs.h>

#include "mlx5emu.h"

/*
 * Small processes see every change at once; once a process holds many
 * records, rewriting all of them per change would be quadratic, so a
 * helper thread writes at most every STAT_COALESCE_MS (it sleeps on a
 * condition variable while nothing changes).
 */
#define STAT_SYNC_RECORDS 512
#define STAT_COALESCE_MS 100

static pthread_mutex_t stat_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stat_cond = PTHREAD_COND_INITIALIZER;
static unsigned int nrecords;
static bool dirty, flusher;
static struct emu_list contexts = { &contexts, &contexts };
static bool exited;
static bool active; /* only processes that opened a device leave a file */

static const char *const kind_names[] = {
	[EMU_UAR_KIND_STATIC] = "static",
	[EMU_UAR_KIND_ALLOC_WC] = "alloc_wc",
	[EMU_UAR_KIND_OBJ_BF] = "bf",
	[EMU_UAR_KIND_OBJ_NC] = "nc",
};

static const char *const how_names[] = {
	[EMU_UAR_KIND_STATIC] = "get_context",
	[EMU_UAR_KIND_ALLOC_WC] = "mmap_alloc_wc",
	[EMU_UAR_KIND_OBJ_BF] = "uar_obj_alloc",
	[EMU_UAR_KIND_OBJ_NC] = "uar_obj_alloc",
};

static const char *const qp_how_names[] = {
	[EMU_QP_UAR_STATIC_BFREG] = "static_bfreg",
	[EMU_QP_UAR_BFREG_INDEX] = "bfreg_index",
	[EMU_QP_UAR_PAGE_INDEX] = "uar_page_index",
};

static const char *qp_type_name(uint8_t type)
{
	switch (type) {
	case IB_UVERBS_QPT_RC:
		return "rc";
	case IB_UVERBS_QPT_UC:
		return "uc";
	case IB_UVERBS_QPT_UD:
		return "ud";
	default:
		return "other";
	}
}

static void write_ctx(FILE *f, int pid, struct emu_context *ctx)
{
	struct emu_list *pos, *tmp;

	fprintf(f,
		"context pid=%d ctx=%u dev=%s uar=%s tot_bfregs=%u static_pages=%u num_dyn_bfregs=%u uars_per_page=%u uars=%u refused=%u",
		pid, ctx->id, ctx->dev->name,
		ctx->uar_mode == EMU_UAR_STATIC ? "static" : "dynamic",
		ctx->tot_bfregs, ctx->num_static_pages, ctx->num_dyn_bfregs,
		ctx->nupp, ctx->nr_uars, ctx->uar_refused);
	if (ctx->uar_refused)
		fprintf(f, " last_refused=%s:%s", ctx->uar_refused_what,
			strerrorname_np(ctx->uar_refused_errno));
	fputc('\n', f);
	emu_list_for_each_safe(pos, tmp, &ctx->stat_pages)
	{
		struct emu_uar_page *pg =
			container_of(pos, struct emu_uar_page, stat_node);

		fprintf(f,
			"page pid=%d ctx=%u page_id=0x%x nuars=%u kind=%s how=%s index=%u mapped=%u destroyed=%d qps=%u cqs=%u\n",
			pid, ctx->id, pg->page_id, pg->nuars,
			kind_names[pg->kind], how_names[pg->kind], pg->index,
			pg->app_maps, pg->destroyed, pg->nqps, pg->ncqs);
	}
	emu_list_for_each_safe(pos, tmp, &ctx->stat_qps)
	{
		struct emu_qp *qp = container_of(pos, struct emu_qp, stat_node);

		fprintf(f,
			"qp pid=%d ctx=%u qpn=0x%x page_id=0x%x uar=0x%x how=%s bfreg=%d type=%s tid=%d\n",
			pid, ctx->id, qp->qpn, qp->uar->page_id, qp->uar_id,
			qp_how_names[qp->uar_how], qp->bfregn,
			qp_type_name(qp->qp_type), (int)qp->tid);
	}
	nic_stat_write(f, pid, ctx);
}

/*
 * Called with stat_lock held. A small process's file is rewritten in place
 * (no new inode per change: that made QP-heavy programs 40x slower);
 * readers stop at the "end" record, so a shorter rewrite never shows stale
 * lines. Once the flusher thread writes behind the changes, a reader may
 * read while it writes: then a new file replaces the old, so that a reader
 * sees one whole snapshot, never the head of one and the tail of another.
 */
static void write_file(void)
{
	static char comm[64];
	static int comm_pid;
	char path[PATH_MAX + 32], tmp[PATH_MAX + 40];
	struct emu_list *pos, *n;
	int pid = getpid(), fd;
	size_t len = 0;
	char *buf = NULL;
	FILE *f;

	if (!emu_cfg.stat_dir[0] || !active)
		return;
	if (comm_pid != pid) {
		f = emu_libc.fopen("/proc/self/comm", "re");
		strcpy(comm, "?");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n ")] = 0;
			fclose(f);
		}
		comm_pid = pid;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	/* not exited=0|1: that read as an exit status */
	fprintf(f, "process pid=%d comm=%s state=%s nic=%s doorbells=%s\n", pid,
		comm, exited ? "exited" : "running", nic_pace_class(),
		nic_trap_mode());
	emu_list_for_each_safe(pos, n, &contexts) write_ctx(
		f, pid, container_of(pos, struct emu_context, stat_node));
	nic_stat_write_traffic(f, pid);
	nic_stat_write_datagrams(f, pid);
	nic_stat_write_faults(f, pid);
	fprintf(f, "end pid=%d\n", pid);
	if (fclose(f))
		goto out;
	snprintf(path, sizeof(path), "%s/%d", emu_cfg.stat_dir, pid);
	/* `mlx5emu stat` lists no dot file */
	snprintf(tmp, sizeof(tmp), "%s/.%d.new", emu_cfg.stat_dir, pid);
	fd = emu_libc.openat(AT_FDCWD, flusher ? tmp : path,
			     O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	/* a snapshot that failed to shrink still ends at its "end" line */
	if (pwrite(fd, buf, len, 0) == (ssize_t)len && ftruncate(fd, len))
		emu_trace("stat: %s keeps an older tail: %s", path,
			  strerror(errno));
	emu_libc.close(fd);
	if (flusher && rename(tmp, path))
		emu_trace("stat: %s not replaced: %s", path, strerror(errno));
out:
	free(buf);
}

static void *flush_thread(void *arg)
{
	const struct timespec settle = { .tv_nsec =
						 STAT_COALESCE_MS * 1000000L };

	(void)arg;
	pthread_setname_np(pthread_self(), "mlx5emu-stat");
	pthread_mutex_lock(&stat_lock);
	for (;;) {
		while (!dirty)
			pthread_cond_wait(&stat_cond, &stat_lock);
		/* let a burst of changes settle */
		pthread_mutex_unlock(&stat_lock);
		nanosleep(&settle, NULL);
		pthread_mutex_lock(&stat_lock);
		dirty = false;
		write_file();
	}
	return NULL;
}

/* called with stat_lock held */
static void changed(void)
{
	if (nrecords < STAT_SYNC_RECORDS || !emu_cfg.stat_dir[0]) {
		write_file();
		return;
	}
	dirty = true;
	if (!flusher) {
		flusher = !emu_thread_start(flush_thread, NULL);
		if (!flusher) {
			write_file();
			return;
		}
	}
	pthread_cond_signal(&stat_cond);
}

void emu_stat_changed(void)
{
	pthread_mutex_lock(&stat_lock);
	changed();
	pthread_mutex_unlock(&stat_lock);
}

void emu_stat_exit(void)
{
	pthread_mutex_lock(&stat_lock);
	exited = true;
	write_file();
	pthread_mutex_unlock(&stat_lock);
}

/*
 * In a fork() child: the parent's contexts stay the parent's; the child
 * starts with no attribution of its own.
 */
static void stat_forked(void)
{
	pthread_mutex_init(&stat_lock, NULL);
	pthread_cond_init(&stat_cond, NULL);
	emu_list_init(&contexts);
	active = false;
	exited = false;
	dirty = false;
	flusher = false;
	nrecords = 0;
}

/* a fork() child keeps records of its own, from nothing */
static const struct emu_fork_hook stat_fork = { .child = stat_forked };

__attribute__((constructor)) static void stat_init(void)
{
	emu_fork_register(&stat_fork);
}

void emu_stat_add_ctx(struct emu_context *ctx)
{
	pthread_mutex_lock(&stat_lock);
	nrecords += 1;
	active = true;
	emu_list_add_tail(&contexts, &ctx->stat_node);
	changed();
	pthread_mutex_unlock(&stat_lock);
}

void emu_stat_del_ctx(struct emu_context *ctx)
{
	pthread_mutex_lock(&stat_lock);
	nrecords -= 1;
	emu_list_del(&ctx->stat_node);
	changed();
	pthread_mutex_unlock(&stat_lock);
}

void emu_stat_add_page(struct emu_uar_page *pg)
{
	pthread_mutex_lock(&stat_lock);
	nrecords += 1;
	emu_list_add_tail(&pg->uobj.ctx->stat_pages, &pg->stat_node);
	pthread_mutex_unlock(&stat_lock);
}

void emu_stat_del_page(struct emu_uar_page *pg)
{
	pthread_mutex_lock(&stat_lock);
	nrecords -= 1;
	emu_list_del(&pg->stat_node);
	pthread_mutex_unlock(&stat_lock);
}

void emu_stat_add_qp(struct emu_qp *qp)
{
	pthread_mutex_lock(&stat_lock);
	nrecords += 1;
	emu_list_add_tail(&qp->uobj.ctx->stat_qps, &qp->stat_node);
	changed();
	pthread_mutex_unlock(&stat_lock);
}

void emu_stat_del_qp(struct emu_qp *qp)
{
	pthread_mutex_lock(&stat_lock);
	nrecords -= 1;
	emu_list_del(&qp->stat_node);
	changed();
	pthread_mutex_unlock(&stat_lock);
}
