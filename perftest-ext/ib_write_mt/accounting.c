// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* What the endpoints cost: UAR mappings, mlx5emu records and memory. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "accounting.h"
#include "emu_stat.h"

int wmt_maps_snapshot(struct wmt_maps *s)
{
	char line[512];
	size_t cap = 0;
	FILE *f;

	s->m = NULL;
	s->n = 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct wmt_mapping m = {};
		unsigned long start, end, off, ino;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %lu %n", &start, &end,
			   perms, &off, &ino, &pos) < 5)
			continue;
		if (s->n == cap) {
			void *p = realloc(s->m, (cap ? cap * 2 : 256) *
							sizeof(*s->m));

			if (!p) {
				fclose(f);
				wmt_maps_free(s);
				return -1;
			}
			s->m = p;
			cap = cap ? cap * 2 : 256;
		}
		m.start = start;
		m.end = end;
		m.offset = off;
		m.inode = ino;
		m.writable = perms[1] == 'w';
		if (pos)
			snprintf(m.path, sizeof(m.path), "%.*s",
				 (int)strcspn(line + pos, "\n"), line + pos);
		s->m[s->n++] = m;
	}
	fclose(f);
	return 0;
}

void wmt_maps_free(struct wmt_maps *s)
{
	free(s->m);
	s->m = NULL;
	s->n = 0;
}

/* /proc/self/maps lists mappings by address: a binary search finds one */
static int in_snapshot(const struct wmt_maps *s, const struct wmt_mapping *m)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->m[mid].start < m->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->m[lo].start == m->start &&
	       s->m[lo].end == m->end && s->m[lo].inode == m->inode &&
	       s->m[lo].offset == m->offset;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the device files of the contexts, sorted by inode */
struct device_file {
	uint64_t inode;
	char path[sizeof(((struct wmt_mapping *)0)->path)]; /* as maps' */
};

static int cmp_file(const void *a, const void *b)
{
	const struct device_file *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

static struct device_file *device_files(const int *cmd_fds, unsigned int nfds,
					bool *shared)
{
	struct device_file *files = calloc(nfds ? nfds : 1, sizeof(*files));
	unsigned int i;

	if (!files)
		return NULL;
	for (i = 0; i < nfds; i++) {
		char link[64];
		struct stat st;
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", cmd_fds[i]);
		len = readlink(link, files[i].path, sizeof(files[i].path) - 1);
		/* the kernel's inode, as in maps (mlx5emu's fstat shows a cdev) */
		if (len <= 0 || syscall(SYS_fstat, cmd_fds[i], &st)) {
			free(files);
			return NULL;
		}
		files[i].path[len] = 0;
		files[i].inode = st.st_ino;
	}
	qsort(files, nfds, sizeof(*files), cmp_file);
	*shared = false;
	for (i = 1; i < nfds; i++)
		*shared |= files[i].inode == files[i - 1].inode;
	return files;
}

/* is m a mapping of one of the device files */
static bool of_device(const struct wmt_mapping *m,
		      const struct device_file *files, unsigned int nfiles)
{
	struct device_file key = { .inode = m->inode };
	const struct device_file *f =
		bsearch(&key, files, nfiles, sizeof(*files), cmp_file);

	return f && !strncmp(m->path, f->path, strlen(f->path));
}

static int push_key(uint64_t **keys, size_t *n, size_t *cap, uint64_t key)
{
	if (*n == *cap) {
		size_t want = *cap ? *cap * 2 : 64;
		void *p = realloc(*keys, want * sizeof(**keys));

		if (!p)
			return -1;
		*keys = p;
		*cap = want;
	}
	(*keys)[(*n)++] = key;
	return 0;
}

unsigned int wmt_maps_device_pages(const struct wmt_maps *before,
				   const struct wmt_maps *after,
				   const int *cmd_fds, unsigned int nfds,
				   unsigned int *mappings)
{
	struct device_file *files;
	uint64_t *keys = NULL;
	size_t nkeys = 0, i, cap = 0;
	unsigned int pages = 0;
	bool shared;

	*mappings = 0;
	files = device_files(cmd_fds, nfds, &shared);
	if (!files)
		return 0;
	for (i = 0; i < after->n; i++) {
		const struct wmt_mapping *m = &after->m[i];
		uintptr_t a;

		if (!of_device(m, files, nfds) || in_snapshot(before, m))
			continue;
		/*
		 * Doorbell pages are mapped writable; the read-only ones are
		 * the clock pages (core clock, clock info), not UARs.
		 */
		if (!m->writable)
			continue;
		(*mappings)++;
		/*
		 * Contexts sharing the device file (a real uverbs device, no
		 * aliases) use the same offsets for different pages: each
		 * page counts. Otherwise one key per 4 KB page of a context's
		 * file, so that mlx5emu's aliases fold (a memfd per context).
		 */
		if (shared) {
			pages += (m->end - m->start) / 4096;
			continue;
		}
		for (a = m->start; a < m->end; a += 4096)
			if (push_key(&keys, &nkeys, &cap,
				     (m->inode << 40) ^
					     (m->offset + (a - m->start))))
				goto out;
	}
	qsort(keys, nkeys, sizeof(*keys), cmp_u64);
	for (i = 0; i < nkeys; i++)
		pages += !i || keys[i] != keys[i - 1];
out:
	free(keys);
	free(files);
	return pages;
}

static unsigned int count_distinct(uint64_t *v, unsigned int n)
{
	unsigned int i, d = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		d += !i || v[i] != v[i - 1];
	return d;
}

void wmt_bf_usage(const uintptr_t *regs, const unsigned int *users,
		  unsigned int nqps, unsigned int *pages, unsigned int *uuars,
		  enum wmt_level *level)
{
	uint64_t *v = calloc(nqps ? nqps : 1, sizeof(*v));
	unsigned int q, o, n = 0;

	for (q = 0; q < nqps; q++) {
		if (!users[q])
			continue;
		level[q] = LEVEL_OWN_UAR;
		if (users[q] > 1) {
			level[q] = LEVEL_SHARED_QP;
			continue;
		}
		for (o = 0; o < nqps; o++) {
			if (o == q || !users[o])
				continue;
			if (wmt_uuar(regs[o]) == wmt_uuar(regs[q])) {
				level[q] = LEVEL_SHARED_UUAR;
				break;
			}
			if (wmt_uar_page(regs[o]) == wmt_uar_page(regs[q]))
				level[q] = LEVEL_SHARED_UAR;
		}
	}
	*pages = *uuars = 0;
	if (!v)
		return;
	for (q = 0; q < nqps; q++)
		if (users[q])
			v[n++] = wmt_uar_page(regs[q]);
	*pages = count_distinct(v, n);
	for (q = n = 0; q < nqps; q++)
		if (users[q])
			v[n++] = wmt_uuar(regs[q]);
	*uuars = count_distinct(v, n);
	free(v);
}

#define EMU_MAX_CTX 4096

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * 0: a complete snapshot holding every one of our QPs (sorted qpns), 1: a
 * snapshot from before they all existed (a big process's file is written
 * behind its changes), -1: no record.
 */
static int read_emu(const uint32_t *qpns, unsigned int nqpns,
		    unsigned int *uars, unsigned int *contexts)
{
	static unsigned char mine[EMU_MAX_CTX];
	unsigned int found = 0;
	char line[512];
	int ended = 0;
	FILE *f;

	f = emu_stat_open(getpid());
	if (!f)
		return -1;
	memset(mine, 0, sizeof(mine));
	/* first pass: which contexts hold our QPs */
	while (fgets(line, sizeof(line), f)) {
		long long ctx = emu_stat_num(line, "ctx", -1);
		uint32_t qpn = emu_stat_num(line, "qpn", -1);

		if (emu_stat_is(line, "end"))
			ended = 1;
		if (!emu_stat_is(line, "qp") || ctx < 0 || ctx >= EMU_MAX_CTX)
			continue;
		if (bsearch(&qpn, qpns, nqpns, sizeof(*qpns), cmp_u32)) {
			mine[ctx] = 1;
			found++;
		}
	}
	rewind(f);
	*uars = *contexts = 0;
	while (fgets(line, sizeof(line), f)) {
		long long ctx = emu_stat_num(line, "ctx", -1),
			  n = emu_stat_num(line, "uars", -1);

		if (emu_stat_is(line, "end"))
			break;
		if (!emu_stat_is(line, "context") || ctx < 0 ||
		    ctx >= EMU_MAX_CTX || !mine[ctx] || n < 0)
			continue;
		*uars += n;
		(*contexts)++;
	}
	fclose(f);
	return ended && found == nqpns ? 0 : 1;
}

int wmt_emu_uars(const uint32_t *qpns, unsigned int nqpns, unsigned int *uars,
		 unsigned int *contexts)
{
	uint32_t *sorted = malloc((nqpns + 1) * sizeof(*sorted));
	int tries, ret = -1;

	if (!sorted)
		return -1;
	memcpy(sorted, qpns, nqpns * sizeof(*sorted));
	qsort(sorted, nqpns, sizeof(*sorted), cmp_u32);
	/* a big process's file is rewritten at most every 100 ms */
	for (tries = 0; tries < 40; tries++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		ret = read_emu(sorted, nqpns, uars, contexts);
		if (ret <= 0)
			break;
		nanosleep(&ts, NULL);
	}
	free(sorted);
	return ret ? -1 : 0;
}
