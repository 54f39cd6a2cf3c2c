// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The facts a plan starts from, read off an open device (device_query.h):
 * no allocation beyond what opening a context maps, unless --probe asks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "device_query.h"

static void set_err(char *err, unsigned int len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, unsigned int len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

long long plan_bar_uars(long long bytes)
{
	if (bytes == PLAN_UNKNOWN || bytes < 8192)
		return PLAN_UNKNOWN;
	return bytes / 4096 - 1;
}

/* BAR0 from the PCI function's resource file: "start end flags" a line */
static void read_bar(struct plan_facts *f)
{
	unsigned long long start, end, flags;
	char path[256];
	FILE *res;

	f->bar_bytes = PLAN_UNKNOWN;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/resource",
		 f->name);
	res = fopen(path, "re");
	if (!res) {
		snprintf(f->bar_why, sizeof(f->bar_why), "%s: %s", path,
			 strerror(errno));
		return;
	}
	if (fscanf(res, "%llx %llx %llx", &start, &end, &flags) != 3 ||
	    end <= start) {
		snprintf(f->bar_why, sizeof(f->bar_why),
			 "%s: no BAR0 in its first line", path);
	} else {
		f->bar_bytes = end - start + 1;
	}
	fclose(res);
}

struct open_maps {
	unsigned int pages; /* distinct 4 KB pages mapped writable */
	unsigned int mappings;
	bool static_page0; /* file offset 0: static UAR page 0 */
	unsigned long first_len; /* bytes of the first doorbell mapping */
};

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The writable mappings of the context's command file. Offsets are counted
 * once: mlx5emu maps each UAR a second time for its NIC.
 */
static int read_maps(int cmd_fd, struct open_maps *om)
{
	unsigned long offs[1024];
	unsigned int n = 0, i;
	char link[64], path[256], line[512];
	struct stat st;
	ssize_t len;
	FILE *f;

	memset(om, 0, sizeof(*om));
	snprintf(link, sizeof(link), "/proc/self/fd/%d", cmd_fd);
	len = readlink(link, path, sizeof(path) - 1);
	/* the kernel's inode, as in maps (mlx5emu's fstat shows a cdev) */
	if (len <= 0 || syscall(SYS_fstat, cmd_fd, &st))
		return -1;
	path[len] = 0;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, off, ino, a;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %lu %n", &start, &end,
			   perms, &off, &ino, &pos) < 5 ||
		    !pos)
			continue;
		if (ino != st.st_ino || strncmp(line + pos, path, len) ||
		    perms[1] != 'w')
			continue;
		if (!om->mappings++)
			om->first_len = end - start;
		om->static_page0 |= off == 0;
		for (a = start; a < end && n < 1024; a += 4096)
			offs[n++] = off + (a - start);
	}
	fclose(f);
	qsort(offs, n, sizeof(*offs), cmp_ul);
	for (i = 0; i < n; i++)
		om->pages += !i || offs[i] != offs[i - 1];
	return 0;
}

static struct ibv_device *find_device(struct ibv_device **list,
				      const char *name)
{
	int i;

	for (i = 0; list[i]; i++) {
		if (name && !strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
		if (!name && mlx5dv_is_supported(list[i]))
			return list[i];
	}
	return NULL;
}

static void query_context(struct ibv_context *ctx, struct plan_facts *f)
{
	struct ibv_device_attr_ex attr = {};
	struct mlx5dv_context dv = {};

	f->max_dynamic_bfregs = PLAN_UNKNOWN;
	dv.comp_mask = MLX5DV_CONTEXT_MASK_DYN_BFREGS;
	if (!mlx5dv_query_device(ctx, &dv)) {
		f->dev.blueflame = dv.flags & MLX5DV_CONTEXT_FLAGS_BLUEFLAME;
		if (dv.comp_mask & MLX5DV_CONTEXT_MASK_DYN_BFREGS)
			f->max_dynamic_bfregs = dv.max_dynamic_bfregs;
	}
	/* an unpatched libibverbs leaves td_sharing_caps at 0 */
	if (!ibv_query_device_ex(ctx, NULL, &attr))
		f->dev.sharing_caps = attr.td_sharing_caps;
	f->sharing_reported = f->dev.sharing_caps != 0;
}

/* mode, mapping size and open cost from what the open mapped */
static void read_uar_layout(const struct open_maps *om, struct plan_facts *f)
{
	long page = sysconf(_SC_PAGESIZE);

	f->open_mappings = om->mappings;
	f->dev.open_uars = om->pages;
	/* static pages are at offsets 0.. (command 0); UAR objects are not */
	if (om->static_page0 || f->max_dynamic_bfregs > 0) {
		f->dev.mode = PLAN_UAR_STATIC;
		f->dev.uars_per_page = page > 4096 ? page / 4096 : 1;
	} else {
		f->dev.mode = PLAN_UAR_DYNAMIC;
		/* the doorbell UAR object is one mapping of num_uars_per_page */
		f->dev.uars_per_page =
			om->first_len >= 4096 ? om->first_len / 4096 : 1;
	}
	f->dev.legacy_pages = PLAN_UNKNOWN;
	if (f->dev.mode == PLAN_UAR_STATIC && f->max_dynamic_bfregs >= 0)
		f->dev.legacy_pages =
			f->max_dynamic_bfregs / (2 * f->dev.uars_per_page);
}

int plan_device_query(const char *name, struct plan_facts *f, char *err,
		      unsigned int errlen)
{
	struct ibv_device **list, *device;
	struct ibv_context *ctx;
	struct open_maps om;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	f->dev.context_uars = PLAN_UNKNOWN;
	f->dev.device_uars = PLAN_UNKNOWN;
	f->probe_level1 = PLAN_UNKNOWN;
	list = ibv_get_device_list(NULL);
	if (!list) {
		set_err(err, errlen, "no RDMA devices: %s", strerror(errno));
		return -1;
	}
	device = find_device(list, name);
	if (!device) {
		set_err(err, errlen, name ? "no device %s" : "no mlx5 device",
			name);
		goto out;
	}
	if (!mlx5dv_is_supported(device)) {
		set_err(err, errlen, "%s is not an mlx5 device",
			ibv_get_device_name(device));
		goto out;
	}
	snprintf(f->name, sizeof(f->name), "%s", ibv_get_device_name(device));
	ctx = ibv_open_device(device);
	if (!ctx) {
		set_err(err, errlen, "cannot open %s: %s", f->name,
			strerror(errno));
		goto out;
	}
	query_context(ctx, f);
	if (read_maps(ctx->cmd_fd, &om)) {
		set_err(err, errlen, "cannot read the mappings of %s: %s",
			f->name, strerror(errno));
		ibv_close_device(ctx);
		goto out;
	}
	read_uar_layout(&om, f);
	ibv_close_device(ctx);
	read_bar(f);
	f->dev.device_uars = plan_bar_uars(f->bar_bytes);
	ret = 0;
out:
	ibv_free_device_list(list);
	return ret;
}
