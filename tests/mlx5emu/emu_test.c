// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"

struct ibv_context *emu_test_open(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n;

	list = ibv_get_device_list(&n);
	assert_non_null(list);
	assert_true(n >= 1);
	assert_string_equal(ibv_get_device_name(list[0]), "mlx5_0");
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	assert_non_null(ctx);
	return ctx;
}

bool emu_test_static_mode(void)
{
	const char *v = getenv("MLX5EMU_UAR");

	return v && !strcmp(v, "static");
}

unsigned int emu_test_env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

unsigned long emu_test_field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? strtoul(p + strlen(pat), NULL, 0) : 0;
}

void emu_test_read_stat(struct emu_test_stat *st)
{
	char cmd[512], line[1024];
	FILE *f;

	memset(st, 0, sizeof(*st));
	snprintf(cmd, sizeof(cmd), "%s stat --machine --pid=%d", MLX5EMU_BIN,
		 getpid());
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "context ", 8)) {
			uint32_t id = emu_test_field(line, "ctx");
			const char *r = strstr(line, " last_refused=");

			if (id < st->last_ctx)
				continue;
			st->last_ctx = id;
			st->refused = emu_test_field(line, "refused");
			st->last_refused[0] = 0;
			if (r)
				sscanf(r + 14, "%63s", st->last_refused);
		} else if (!strncmp(line, "page ", 5) &&
			   st->npages <
				   sizeof(st->pages) / sizeof(st->pages[0])) {
			struct emu_test_page *pg = &st->pages[st->npages++];
			const char *k = strstr(line, " kind=");

			pg->ctx = emu_test_field(line, "ctx");
			pg->page_id = emu_test_field(line, "page_id");
			pg->qps = emu_test_field(line, "qps");
			pg->mapped = emu_test_field(line, "mapped");
			if (k)
				sscanf(k + 6, "%15s", pg->kind);
		} else if (!strncmp(line, "qp ", 3) &&
			   st->nqps < sizeof(st->qps) / sizeof(st->qps[0])) {
			struct emu_test_qp *qp = &st->qps[st->nqps++];

			qp->ctx = emu_test_field(line, "ctx");
			qp->qpn = emu_test_field(line, "qpn");
			qp->page_id = emu_test_field(line, "page_id");
			qp->uar = emu_test_field(line, "uar");
			qp->bfreg = strstr(line, " bfreg=-1") ?
					    -1 :
					    (int)emu_test_field(line, "bfreg");
		}
	}
	assert_int_equal(pclose(f), 0);
}

unsigned int emu_test_count_pages(const struct emu_test_stat *st, uint32_t ctx,
				  const char *kind)
{
	unsigned int i, n = 0;

	for (i = 0; i < st->npages; i++)
		if (st->pages[i].ctx == ctx &&
		    (!kind || !strcmp(st->pages[i].kind, kind)))
			n++;
	return n;
}

const struct emu_test_qp *emu_test_find_qp(const struct emu_test_stat *st,
					   uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < st->nqps; i++)
		if (st->qps[i].qpn == qpn)
			return &st->qps[i];
	return NULL;
}

unsigned int emu_test_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own fd */
}

long emu_test_rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &pages, &rss), 2);
	fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}
