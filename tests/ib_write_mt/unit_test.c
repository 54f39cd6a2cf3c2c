// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_write_mt's pure parts, without a device: the sharing rules, the
 * payloads and their verification, the wire format checks, the roles
 * a launcher's environment gives and the UAR pages counted from the maps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "accounting.h"
#include "layout.h"
#include "oob.h"
#include "options.h"
#include "spread.h"
#include "verify.h"

/* the last resolve's error message */
static char err_text[256];

static int resolve(struct wmt_options *o, enum wmt_category cat,
		   struct wmt_layout *l)
{
	err_text[0] = 0;
	return wmt_layout_resolve(o, cat, 16, l, err_text, sizeof(err_text));
}

static void test_categories(void **state)
{
	struct wmt_options o = {};
	struct wmt_layout l;

	(void)state;
	assert_int_equal(resolve(&o, CAT_MPI_EVERYWHERE, &l), 0);
	assert_int_equal(l.count[RES_CTX], 16);
	assert_int_equal(l.count[RES_QP], 16);
	assert_int_equal(resolve(&o, CAT_2XDYNAMIC, &l), 0);
	assert_int_equal(l.count[RES_CTX], 1);
	assert_int_equal(l.count[RES_QP], 32);
	assert_int_equal(l.count[RES_CQ], 32);
	assert_int_equal(l.td_level, 1);
	assert_int_equal(resolve(&o, CAT_SHARED_DYNAMIC, &l), 0);
	assert_int_equal(l.td_level, 2);
	assert_int_equal(resolve(&o, CAT_SHARED_UUAR, &l), 0);
	assert_int_equal(l.td_level, 3);
	assert_int_equal(resolve(&o, CAT_MPI_THREADS, &l), 0);
	assert_int_equal(l.count[RES_QP], 1);
	assert_int_equal(l.count[RES_CQ], 1);
	assert_int_equal(resolve(&o, CAT_STATIC, &l), 0);
	assert_int_equal(l.count[RES_QP], 16);
	assert_int_equal(l.td_level, 0);
}

static void test_sharing_rules(void **state)
{
	struct wmt_options o = {};
	struct wmt_layout l;

	(void)state;
	/* a defaulted parent is raised to its child */
	o.share[RES_QP] = 4;
	assert_int_equal(resolve(&o, CAT_XWAY, &l), 0);
	assert_int_equal(l.deg[RES_CQ], 4);
	assert_int_equal(l.deg[RES_PD], 4);
	assert_int_equal(l.deg[RES_CTX], 4);
	assert_int_equal(l.deg[RES_MR], 1);
	assert_int_equal(l.count[RES_QP], 4);
	/* an explicit parent narrower than its child is an error */
	o.share[RES_CQ] = 2;
	assert_int_equal(resolve(&o, CAT_XWAY, &l), PERFTEST_EXIT_USAGE);
	/* not a divisor of the threads */
	memset(&o, 0, sizeof(o));
	o.share[RES_QP] = 3;
	assert_int_equal(resolve(&o, CAT_XWAY, &l), PERFTEST_EXIT_USAGE);
	/* a defaulted child is lowered to its explicit parent */
	memset(&o, 0, sizeof(o));
	o.share[RES_PD] = 4;
	assert_int_equal(resolve(&o, CAT_DYNAMIC, &l), 0);
	assert_int_equal(l.deg[RES_MR], 4);
	assert_int_equal(l.count[RES_PD], 4);
	/* what the category fixes */
	memset(&o, 0, sizeof(o));
	o.share[RES_CQ] = 2;
	assert_int_equal(resolve(&o, CAT_MPI_EVERYWHERE, &l),
			 PERFTEST_EXIT_USAGE);
	memset(&o, 0, sizeof(o));
	o.share[RES_QP] = 2;
	assert_int_equal(resolve(&o, CAT_DYNAMIC, &l), PERFTEST_EXIT_USAGE);
	/* -q N is perftest's: N QPs in one context */
	memset(&o, 0, sizeof(o));
	o.num_qps = 4;
	assert_int_equal(resolve(&o, CAT_XWAY, &l), 0);
	assert_int_equal(l.count[RES_QP], 4);
	assert_int_equal(l.count[RES_CTX], 1);
	assert_int_equal(l.count[RES_CQ], 1);
	/* an error names -q, the option typed, not --share-qp */
	memset(&o, 0, sizeof(o));
	o.num_qps = 16;
	assert_int_equal(resolve(&o, CAT_MPI_THREADS, &l), PERFTEST_EXIT_USAGE);
	assert_non_null(strstr(err_text, "-q 16 contradicts"));
	assert_null(strstr(err_text, "--share"));
	/* buffers are not tied to MRs */
	memset(&o, 0, sizeof(o));
	o.share[RES_BUF] = 16;
	assert_int_equal(resolve(&o, CAT_XWAY, &l), 0);
	assert_int_equal(l.count[RES_BUF], 1);
	assert_int_equal(l.count[RES_CTX], 16);
}

static void test_sharing_level(void **state)
{
	struct wmt_options o = { .sharing = 2 };
	struct wmt_layout l;

	(void)state;
	assert_int_equal(resolve(&o, CAT_SHARED_DYNAMIC, &l), 0);
	assert_int_equal(resolve(&o, CAT_DYNAMIC, &l), PERFTEST_EXIT_USAGE);
	assert_int_equal(resolve(&o, CAT_STATIC, &l), PERFTEST_EXIT_USAGE);
}

/* what the NIC would leave in the regions after n writes per thread */
static void write_all(const struct wmt_regions *r, uint8_t *mem,
		      const uint64_t *iters)
{
	unsigned int t, shift = __builtin_ctz(r->slots);
	uint64_t i;

	for (t = 0; t < r->threads; t++)
		for (i = 0; i < iters[t]; i++)
			wmt_payload(mem + wmt_region_offset(r, t) +
					    (i & (r->slots - 1)) * r->size,
				    r->size, t, i, shift);
}

static void test_verify(void **state)
{
	uint64_t iters[3] = { 1000, 5, 0 };
	struct wmt_regions r;
	char msg[160];
	uint8_t *mem;

	(void)state;
	wmt_regions_init(&r, 3, 16, 3);
	mem = malloc(r.total);
	assert_non_null(mem);
	wmt_regions_prepare(&r, mem);
	write_all(&r, mem, iters);
	assert_int_equal(wmt_regions_verify(&r, mem, iters, msg, sizeof(msg)),
			 0);
	/* the last write into a slot lost: the slot holds the previous lap */
	iters[0] = 1001;
	assert_int_equal(wmt_regions_verify(&r, mem, iters, msg, sizeof(msg)),
			 1);
	assert_non_null(strstr(msg, "thread 0 slot 8"));
	iters[0] = 1000;
	/* one byte of a slot */
	mem[wmt_region_offset(&r, 1) + 4] ^= 1;
	assert_int_equal(wmt_regions_verify(&r, mem, iters, msg, sizeof(msg)),
			 1);
	mem[wmt_region_offset(&r, 1) + 4] ^= 1;
	/* a guard byte */
	mem[wmt_region_offset(&r, 2) - 1] = 0;
	assert_int_equal(wmt_regions_verify(&r, mem, iters, msg, sizeof(msg)),
			 1);
	assert_non_null(strstr(msg, "guard"));
	free(mem);
}

static void test_payload_laps_differ(void **state)
{
	uint8_t a[64], b[64];
	unsigned int k;
	uint64_t i;

	(void)state;
	for (i = 0; i < 4096; i++) {
		wmt_payload(a, sizeof(a), 3, i, 4);
		wmt_payload(b, sizeof(b), 3, i + 16, 4);
		for (k = 0; k < sizeof(a); k++)
			assert_int_not_equal(a[k], b[k]);
	}
}

static void test_wire(void **state)
{
	struct rc_addr a = { .qpn = 0x123456,
			     .psn = 7,
			     .lid = 0x1234,
			     .mtu = IBV_MTU_4096,
			     .use_gid = 1 },
		       back;
	uint8_t p[WMT_ADDR_WIRE], hello[WMT_HELLO_LEN];
	struct wmt_buf b = { p, sizeof(p), 0, 0 };
	struct wmt_oob_msg m = { OOB_HELLO, 0, hello };

	(void)state;
	wmt_put_addr(&b, &a);
	assert_int_equal(b.pos, WMT_ADDR_WIRE);
	b.pos = 0;
	assert_int_equal(wmt_get_addr(&b, &back), 0);
	assert_int_equal(back.qpn, a.qpn);
	assert_int_equal(back.lid, a.lid);
	/* every field is range checked */
	p[0] = 1; /* qpn beyond 24 bits */
	b.pos = 0;
	assert_int_equal(wmt_get_addr(&b, &back), -1);
	p[0] = 0;
	p[10] = 0; /* mtu 0 */
	b.pos = 0;
	assert_int_equal(wmt_get_addr(&b, &back), -1);
	p[10] = IBV_MTU_4096;
	p[11] = 2; /* use_gid */
	b.pos = 0;
	assert_int_equal(wmt_get_addr(&b, &back), -1);
	/* reading past the end is noticed */
	b = (struct wmt_buf){ p, 3, 0, 0 };
	wmt_get32(&b);
	assert_true(b.bad);
	/* HELLO: the tool and the role */
	m.len = wmt_hello_build(hello, sizeof(hello), ROLE_WIRE_CLIENT);
	assert_int_equal(wmt_hello_check(&m, ROLE_WIRE_CLIENT), 0);
	assert_int_not_equal(wmt_hello_check(&m, ROLE_WIRE_SERVER), 0);
	hello[13] = 'x';
	assert_int_not_equal(wmt_hello_check(&m, ROLE_WIRE_CLIENT), 0);
	hello[13] = 0;
	m.len--;
	assert_int_not_equal(wmt_hello_check(&m, ROLE_WIRE_CLIENT), 0);
}

static int parse(struct wmt_options *o, int argc, const char **argv)
{
	return wmt_options_parse(o, argc, (char **)argv);
}

static void clear_launcher_env(void)
{
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	unsetenv("SLURM_PROCID");
	unsetenv("SLURM_NTASKS");
	unsetenv("SLURM_NODELIST");
	unsetenv("SLURM_JOB_NODELIST");
}

static void test_options(void **state)
{
	const char *plain[] = { "ib_write_mt" };
	const char *host[] = { "ib_write_mt", "-s", "8", "peer" };
	const char *bad[] = { "ib_write_mt", "-l", "64", "-Q", "128" };
	struct wmt_options o;

	(void)state;
	clear_launcher_env();
	assert_int_equal(parse(&o, 1, plain), -1);
	assert_int_equal(o.role, ROLE_SERVER);
	assert_int_equal(o.size, 2);
	assert_int_equal(o.post_list, 32);
	assert_int_equal(o.cq_mod, 64);
	assert_int_equal(o.tx_depth, 128);
	assert_int_equal(o.tcp_port, 18515);
	assert_int_equal(parse(&o, 4, host), -1);
	assert_int_equal(o.role, ROLE_CLIENT);
	assert_string_equal(o.server, "peer");
	assert_int_equal(parse(&o, 5, bad), PERFTEST_EXIT_USAGE);
}

static void test_launchers(void **state)
{
	const char *plain[] = { "ib_write_mt" };
	struct wmt_options o;

	(void)state;
	clear_launcher_env();
	setenv("OMPI_COMM_WORLD_RANK", "1", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
	assert_int_equal(parse(&o, 1, plain), -1);
	assert_int_equal(o.role, ROLE_CLIENT);
	assert_string_equal(o.server, "localhost");
	setenv("OMPI_COMM_WORLD_RANK", "0", 1);
	assert_int_equal(parse(&o, 1, plain), -1);
	assert_int_equal(o.role, ROLE_SERVER);
	/* two nodes: Open MPI does not say where rank 0 is */
	setenv("OMPI_COMM_WORLD_RANK", "1", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1", 1);
	assert_int_equal(parse(&o, 1, plain), PERFTEST_EXIT_USAGE);
	clear_launcher_env();
	setenv("SLURM_PROCID", "1", 1);
	setenv("SLURM_NTASKS", "2", 1);
	setenv("SLURM_JOB_NODELIST", "node[07-09,12],login", 1);
	assert_int_equal(parse(&o, 1, plain), -1);
	assert_int_equal(o.role, ROLE_CLIENT);
	assert_string_equal(o.server, "node07");
	setenv("SLURM_JOB_NODELIST", "alpha,beta", 1);
	assert_int_equal(parse(&o, 1, plain), -1);
	assert_string_equal(o.server, "alpha");
	/* three tasks are not a server and a client */
	setenv("SLURM_NTASKS", "3", 1);
	assert_int_equal(parse(&o, 1, plain), -1);
	assert_int_equal(o.role, ROLE_SERVER);
	clear_launcher_env();
}

/* --help lists every category with its description, and the sets */
static void *map_page(int fd, int prot)
{
	void *p = mmap(NULL, 4096, prot, MAP_SHARED, fd, 0);

	assert_ptr_not_equal(p, MAP_FAILED);
	return p;
}

/* the pages a set of contexts mapped, from one snapshot before and after */
static unsigned int mapped_pages(const int *fds, unsigned int nfds,
				 int alias_of, unsigned int *mappings)
{
	struct wmt_maps before, after;
	void *p[8];
	unsigned int i, n = 0, pages;

	assert_int_equal(wmt_maps_snapshot(&before), 0);
	for (i = 0; i < nfds; i++)
		p[n++] = map_page(fds[i], PROT_READ | PROT_WRITE);
	/* mlx5emu's own view of a page: the same page of the same file */
	if (alias_of >= 0)
		p[n++] = map_page(fds[alias_of], PROT_READ | PROT_WRITE);
	/* a clock page: read-only, not a UAR */
	p[n++] = map_page(fds[0], PROT_READ);
	assert_int_equal(wmt_maps_snapshot(&after), 0);
	pages = wmt_maps_device_pages(&before, &after, fds, nfds, mappings);
	for (i = 0; i < n; i++)
		munmap(p[i], 4096);
	wmt_maps_free(&before);
	wmt_maps_free(&after);
	return pages;
}

/* a file of its own per context (mlx5emu's memfds): aliases fold */
static void test_maps_own_files(void **state)
{
	unsigned int mappings;
	int fds[3], i;

	(void)state;
	for (i = 0; i < 3; i++) {
		fds[i] = memfd_create("wmt-unit-uverbs", MFD_CLOEXEC);
		assert_true(fds[i] >= 0);
		assert_int_equal(ftruncate(fds[i], 4096), 0);
	}
	assert_int_equal(mapped_pages(fds, 3, 1, &mappings), 3);
	assert_int_equal(mappings, 4);
	/* pages mapped through another file are not the contexts' */
	assert_int_equal(mapped_pages(fds, 2, 2, &mappings), 2);
	assert_int_equal(mappings, 2);
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/*
 * Contexts sharing the device file (a real uverbs device): the same offset
 * is a different page in each context, so every page counts.
 */
static void test_maps_shared_file(void **state)
{
	char path[] = "/tmp/wmt-unit-XXXXXX";
	unsigned int mappings;
	int fds[3], i;

	(void)state;
	fds[0] = mkstemp(path);
	assert_true(fds[0] >= 0);
	assert_int_equal(ftruncate(fds[0], 4096), 0);
	for (i = 1; i < 3; i++) {
		fds[i] = open(path, O_RDWR | O_CLOEXEC);
		assert_true(fds[i] >= 0);
	}
	unlink(path);
	assert_int_equal(mapped_pages(fds, 3, -1, &mappings), 3);
	assert_int_equal(mappings, 3);
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/* --repeat's figures: min <= median <= max, an even count's middle mean */
static void test_spread(void **state)
{
	double odd[] = { 2.27, 1.26, 1.9, 2.0, 1.5 }, even[] = { 4, 1, 3, 2 };
	double one[] = { 1.5 };
	struct wmt_spread s;

	(void)state;
	wmt_spread(odd, 5, &s);
	assert_true(s.min == 1.26 && s.median == 1.9 && s.max == 2.27);
	wmt_spread(even, 4, &s);
	assert_true(s.min == 1 && s.median == 2.5 && s.max == 4);
	wmt_spread(one, 1, &s);
	assert_true(s.min == 1.5 && s.median == 1.5 && s.max == 1.5);
}

static void test_help(void **state)
{
	char *text = NULL, line[160];
	size_t len = 0;
	unsigned int c;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	wmt_usage(f);
	fclose(f);
	for (c = 0; c < CAT_COUNT; c++) {
		snprintf(line, sizeof(line), " %-15s %s\n",
			 wmt_category_name(c), wmt_category_help(c));
		assert_non_null(strstr(text, line));
	}
	assert_non_null(strstr(text,
			       "levels = dynamic,shared-dynamic,shared-uuar,"
			       "mpi+threads\n"));
	assert_non_null(strstr(text, "  5  malformed, truncated"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_categories),
		cmocka_unit_test(test_sharing_rules),
		cmocka_unit_test(test_sharing_level),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_payload_laps_differ),
		cmocka_unit_test(test_wire),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_launchers),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_maps_own_files),
		cmocka_unit_test(test_maps_shared_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
