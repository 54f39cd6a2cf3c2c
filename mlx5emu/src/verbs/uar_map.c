// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The application's mappings of UAR pages: mmap()/munmap() on the cmd fd
 * as mlx5_ib answers them, and, for mappings that reach the kernel without
 * us (UCX's bistro hooks), the bookkeeping that follows /proc/self/maps.
 * The pages themselves are uar.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mlx5emu.h"

/* ------------------------------------------------------------------ */
/* mmap / munmap                                                       */

struct emu_map {
	struct emu_list node;
	uintptr_t addr;
	size_t len;
	struct emu_uar_page *pg;
};

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_list maps = { &maps, &maps };
static unsigned int nr_maps;

static struct emu_uar_page *mmap_target(struct emu_context *ctx, size_t len,
					off_t off, int *err)
{
	uint64_t pgoff = (uint64_t)off / emu_page_size();
	uint32_t cmd = (pgoff >> EMU_MMAP_CMD_SHIFT) & 0xff;
	uint32_t idx = pgoff & 0xff;
	struct emu_list *pos, *tmp;
	struct emu_uar_page *pg;

	*err = -EINVAL;
	if ((uint64_t)off % emu_page_size() || !ctx->ucontext)
		return NULL;
	switch (cmd) {
	case MLX5_IB_MMAP_REGULAR_PAGE:
	case MLX5_IB_MMAP_WC_PAGE:
	case MLX5_IB_MMAP_NC_PAGE:
		if (ctx->uar_mode == EMU_UAR_DYNAMIC ||
		    len != emu_page_size() || idx >= ctx->num_static_pages)
			return NULL;
		return ctx->static_pages[idx];
	case MLX5_IB_MMAP_ALLOC_WC:
		idx |= ((pgoff >> 16) & 0xff) << 8;
		if (ctx->uar_mode == EMU_UAR_DYNAMIC ||
		    len != emu_page_size() || idx >= ctx->num_dyn_pages ||
		    ctx->wc_pages[idx]) {
			emu_uar_refused(ctx, "mmap_alloc_wc", *err);
			return NULL;
		}
		*err = emu_uar_page_new(ctx, EMU_UAR_KIND_ALLOC_WC, idx, &pg);
		if (*err) {
			emu_uar_refused(ctx, "mmap_alloc_wc", *err);
			return NULL;
		}
		ctx->wc_pages[idx] = pg;
		return pg;
	case MLX5_IB_MMAP_CORE_CLOCK:
	case MLX5_IB_MMAP_CLOCK_INFO: /* only index V1 (clock.c) */
		/* not advertised in GET_CONTEXT */
		*err = -EOPNOTSUPP;
		return NULL;
	default:
		if (cmd < EMU_MMAP_DYN_CMD)
			return NULL;
		emu_list_for_each_safe(pos, tmp, &ctx->uar_pages)
		{
			pg = container_of(pos, struct emu_uar_page, node);
			if (!pg->destroyed && pg->mmap_offset &&
			    pg->mmap_offset == (uint64_t)off)
				return len == pg->len ? pg : NULL;
		}
		return NULL;
	}
}

void *emu_uar_mmap(struct emu_context *ctx, void *addr, size_t len, int prot,
		   int flags, off_t off)
{
	struct emu_uar_page *pg;
	struct emu_map *map;
	void *p = MAP_FAILED;
	int err;

	if (emu_clock_info_offset(off))
		return emu_clock_info_mmap(ctx, addr, len, prot, flags);
	map = calloc(1, sizeof(*map));
	if (!map) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	pthread_mutex_lock(&ctx->lock);
	/* rdma_user_mmap_io(): device memory is only ever shared */
	if (!(flags & MAP_SHARED)) {
		pg = NULL;
		err = -EINVAL;
	} else {
		pg = mmap_target(ctx, len, off, &err);
	}
	if (pg) {
		p = emu_libc.mmap(addr, len, prot, flags, ctx->fd,
				  pg->file_off);
		err = p == MAP_FAILED ? -errno : 0;
	}
	if (p != MAP_FAILED) {
		pg->app_maps++;
		map->addr = (uintptr_t)p;
		map->len = len;
		map->pg = pg;
		pthread_mutex_lock(&map_lock);
		emu_list_add_tail(&maps, &map->node);
		nr_maps++;
		pthread_mutex_unlock(&map_lock);
		map = NULL;
	}
	pthread_mutex_unlock(&ctx->lock);
	free(map);
	if (p != MAP_FAILED)
		nic_trap_add(p, len, emu_device_writes_into((uintptr_t)p, len));
	emu_trace("ctx%u mmap off=0x%llx len=0x%zx -> %s page_id=0x%x", ctx->id,
		  (unsigned long long)off, len,
		  err ? strerrorname_np(-err) : "ok", pg ? pg->page_id : 0);
	emu_stat_changed();
	if (err) {
		errno = -err;
		return MAP_FAILED;
	}
	return p;
}

bool emu_uar_mapped(uint64_t a, uint64_t len)
{
	struct emu_list *pos, *tmp;
	bool hit = false;

	if (!__atomic_load_n(&nr_maps, __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&map_lock);
	emu_list_for_each_safe(pos, tmp, &maps)
	{
		struct emu_map *m = container_of(pos, struct emu_map, node);

		if (m->addr < a + len && a < m->addr + m->len) {
			hit = true;
			break;
		}
	}
	pthread_mutex_unlock(&map_lock);
	return hit;
}

static struct emu_map *take_map(uintptr_t a, size_t len)
{
	struct emu_list *pos, *tmp;
	struct emu_map *map = NULL;

	pthread_mutex_lock(&map_lock);
	emu_list_for_each_safe(pos, tmp, &maps)
	{
		struct emu_map *m = container_of(pos, struct emu_map, node);

		if (m->addr < a + len && a < m->addr + m->len) {
			emu_list_del(&m->node);
			nr_maps--;
			map = m;
			break;
		}
	}
	pthread_mutex_unlock(&map_lock);
	return map;
}

/* munmap() already succeeded; a partial unmap counts as the whole page. */
bool emu_uar_munmap(void *addr, size_t len)
{
	bool found = false;
	struct emu_map *map;

	if (!__atomic_load_n(&nr_maps, __ATOMIC_RELAXED))
		return false;
	while ((map = take_map((uintptr_t)addr, len))) {
		struct emu_uar_page *pg = map->pg;
		struct emu_context *ctx = pg->uobj.ctx;

		nic_trap_remove((void *)map->addr, map->len);
		pthread_mutex_lock(&ctx->lock);
		emu_trace("ctx%u munmap page_id=0x%x", ctx->id, pg->page_id);
		if (pg->app_maps) /* a scan may have counted it gone */
			pg->app_maps--;
		emu_uar_page_put(pg);
		pthread_mutex_unlock(&ctx->lock);
		free(map);
		found = true;
	}
	if (found)
		emu_stat_changed();
	return found;
}

/* fork() child: the mappings it inherited are the parent's business */
static void uar_map_forked(void)
{
	pthread_mutex_init(&map_lock, NULL);
	emu_list_init(&maps);
	nr_maps = 0;
}

/* a fork() child starts with no mapping: the parent's are not its */
static const struct emu_fork_hook uar_map_fork = { .child = uar_map_forked };

/* pointer checks refuse the UAR mappings, as get_user_pages() VM_IO */
__attribute__((constructor)) static void uar_map_init(void)
{
	emu_access_set_io_check(emu_uar_mapped);
	emu_fork_register(&uar_map_fork);
}

/* the mappings we saw of one page (or of all the context's pages) */
void emu_uar_forget_page_maps(struct emu_context *ctx, struct emu_uar_page *pg)
{
	struct emu_list *pos, *tmp;

	if (!__atomic_load_n(&nr_maps, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&map_lock);
	emu_list_for_each_safe(pos, tmp, &maps)
	{
		struct emu_map *m = container_of(pos, struct emu_map, node);

		if (m->pg->uobj.ctx == ctx && (!pg || m->pg == pg)) {
			nic_trap_remove((void *)m->addr, m->len);
			emu_list_del(&m->node);
			nr_maps--;
			free(m);
		}
	}
	pthread_mutex_unlock(&map_lock);
}

/* context close: forget the app's mappings of this context */
void emu_uar_forget_maps(struct emu_context *ctx)
{
	emu_uar_forget_page_maps(ctx, NULL);
}

/* ------------------------------------------------------------------ */
/* mappings that bypassed us                                           */

struct vma {
	uintptr_t start, end;
	uint64_t off;
};

/* the mappings of the context's memfd, from /proc/self/maps */
static size_t read_vmas(struct emu_context *ctx, struct vma **out)
{
	size_t n = 0, cap = 0, linecap = 0;
	char *line = NULL;
	struct stat st;
	struct vma *v = NULL, *nv;
	FILE *f;

	*out = NULL;
	/* the real fstat: ours shows the cdev */
	if (syscall(SYS_fstat, ctx->fd, &st))
		return 0;
	f = emu_libc.fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	while (getline(&line, &linecap, f) > 0) {
		unsigned long start, end, off, ino;
		unsigned int maj, min;

		if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu", &start, &end,
			   &off, &maj, &min, &ino) != 6 ||
		    ino != st.st_ino || makedev(maj, min) != st.st_dev)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n++] = (struct vma){ start, end, off };
	}
	free(line);
	fclose(f);
	*out = v;
	return n;
}

/* the application's mappings of a page: every cover but our alias */
static unsigned int count_maps(const struct vma *v, size_t n,
			       const struct emu_uar_page *pg)
{
	uintptr_t alias = (uintptr_t)pg->alias;
	unsigned int cnt = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (pg->file_off < v[i].off ||
		    pg->file_off >= v[i].off + (v[i].end - v[i].start))
			continue;
		if (alias >= v[i].start && alias < v[i].end &&
		    v[i].off + (alias - v[i].start) == pg->file_off)
			continue;
		cnt++;
	}
	return cnt;
}

/* static mode: an ALLOC_WC mmap we did not see allocated its page */
static void adopt_alloc_wc(struct emu_context *ctx, const struct vma *v,
			   size_t n)
{
	uint64_t pgoff, last;
	struct emu_uar_page *pg;
	uint32_t idx;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		last = (v[i].off + (v[i].end - v[i].start)) / emu_page_size();
		for (pgoff = v[i].off / emu_page_size(); pgoff < last;
		     pgoff++) {
			if (((pgoff >> EMU_MMAP_CMD_SHIFT) & 0xff) !=
			    MLX5_IB_MMAP_ALLOC_WC)
				continue;
			idx = (pgoff & 0xff) | ((pgoff >> 16) & 0xff) << 8;
			if (idx >= ctx->num_dyn_pages || ctx->wc_pages[idx] ||
			    idx + 1 == ctx->wc_refused)
				continue;
			err = emu_uar_page_new(ctx, EMU_UAR_KIND_ALLOC_WC, idx,
					       &pg);
			if (err) {
				/* counted once, not at every look */
				ctx->wc_refused = idx + 1;
				emu_uar_refused(ctx, "mmap_alloc_wc", err);
				continue;
			}
			ctx->wc_pages[idx] = pg;
		}
	}
}

/*
 * Mappings made behind our back (UCX's memory hooks call the mmap system
 * call themselves) get their doorbell traps here; our own aliases do not.
 */
static void trap_vmas(struct emu_context *ctx, const struct vma *v, size_t n)
{
	struct emu_list *pos, *tmp;
	size_t i;

	for (i = 0; i < n; i++) {
		bool alias = false;

		emu_list_for_each_safe(pos, tmp, &ctx->uar_pages)
		{
			uintptr_t a = (uintptr_t)container_of(
					      pos, struct emu_uar_page, node)
					      ->alias;

			alias |= a >= v[i].start && a < v[i].end;
		}
		/* found again at every command: look up MRs only once */
		if (!alias && !nic_trap_has((void *)v[i].start))
			nic_trap_add(
				(void *)v[i].start, v[i].end - v[i].start,
				emu_device_writes_into(v[i].start,
						       v[i].end - v[i].start));
	}
}

/*
 * Bring the pages in line with what the process really maps: mmap and
 * munmap may reach the kernel without passing through us. Called with
 * ctx->lock held.
 */
void emu_uar_sync_locked(struct emu_context *ctx)
{
	struct emu_list *pos, *tmp;
	struct vma *v;
	size_t n = read_vmas(ctx, &v);

	if (ctx->uar_mode == EMU_UAR_STATIC && ctx->wc_pages)
		adopt_alloc_wc(ctx, v, n);
	emu_list_for_each_safe(pos, tmp, &ctx->uar_pages)
	{
		struct emu_uar_page *pg =
			container_of(pos, struct emu_uar_page, node);

		pg->app_maps = count_maps(v, n, pg);
		emu_uar_page_put(pg);
	}
	trap_vmas(ctx, v, n);
	free(v);
	emu_stat_changed();
}

void emu_uar_sync(struct emu_context *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	emu_uar_sync_locked(ctx);
	pthread_mutex_unlock(&ctx->lock);
}

/*
 * A page a QP or CQ names must be mapped by now; if we saw no mmap, the
 * application's hooks bypass us: from now on every command looks first.
 */
void emu_uar_check_mapped(struct emu_context *ctx, struct emu_uar_page *pg)
{
	if (pg->app_maps || ctx->maps_unseen)
		return;
	emu_uar_sync_locked(ctx);
	if (pg->app_maps)
		ctx->maps_unseen = true;
}
