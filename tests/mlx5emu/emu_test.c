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

#include "emu_stat.h"
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
		if (emu_stat_is(line, "context")) {
			uint32_t id = emu_stat_num(line, "ctx", 0);

			if (id < st->last_ctx)
				continue;
			st->last_ctx = id;
			st->refused = emu_stat_num(line, "refused", 0);
			emu_stat_text(line, "last_refused", st->last_refused,
				      sizeof(st->last_refused));
		} else if (emu_stat_is(line, "page") &&
			   st->npages <
				   sizeof(st->pages) / sizeof(st->pages[0])) {
			struct emu_test_page *pg = &st->pages[st->npages++];

			pg->ctx = emu_stat_num(line, "ctx", 0);
			pg->page_id = emu_stat_num(line, "page_id", 0);
			pg->qps = emu_stat_num(line, "qps", 0);
			pg->mapped = emu_stat_num(line, "mapped", 0);
			emu_stat_text(line, "kind", pg->kind, sizeof(pg->kind));
		} else if (emu_stat_is(line, "qp") &&
			   st->nqps < sizeof(st->qps) / sizeof(st->qps[0])) {
			struct emu_test_qp *qp = &st->qps[st->nqps++];

			qp->ctx = emu_stat_num(line, "ctx", 0);
			qp->qpn = emu_stat_num(line, "qpn", 0);
			qp->page_id = emu_stat_num(line, "page_id", 0);
			qp->uar = emu_stat_num(line, "uar", 0);
			qp->bfreg = emu_stat_num(line, "bfreg", 0);
		}
	}
	assert_int_equal(pclose(f), 0);
}

unsigned long long emu_test_datagrams(const char *fate)
{
	unsigned long long n = 0;
	char cmd[512], line[1024];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s stat --machine --pid=%d", MLX5EMU_BIN,
		 getpid());
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (emu_stat_is(line, "datagrams"))
			n += emu_stat_num(line, fate, 0);
	assert_int_equal(pclose(f), 0);
	return n;
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
