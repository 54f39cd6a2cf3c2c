// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * alloc_tds LEVEL MAX [all]: allocates thread domains in one context of the
 * first device until one fails or MAX are held, prints "COUNT ERRNO" (0
 * when MAX was reached) and frees them. With "all" it asks MAX times
 * whatever fails and prints "COUNT FAILED". LEVEL 0 passes no sharing
 * level, so that MLX5_UAR_SHARING decides, as for an unmodified program.
 * With TD_PLAN_HOLD=DIR, once its context is open it writes DIR/PID.open
 * and waits for DIR/go, then writes the line to DIR/PID.count instead and
 * holds the TDs until DIR/release exists: the processes of a node open
 * before any allocates and hold their UARs at the same time. With
 * TD_PLAN_MAX_SHARING=M each request accepts up to level M
 * (IBV_TD_INIT_ATTR_MAX_SHARING), and a line "granted L1 L2 L3" with the
 * levels written back comes before the count.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/*
 * Writes DIR/PID.SUFFIX (the line, if n >= 0), then waits for DIR/WAIT_FOR:
 * 0 once it exists, -1 after a minute without.
 */
static int hold(const char *dir, const char *suffix, int n, int last,
		const char *wait_for)
{
	char path[4096], tmp[4200];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%d.%s", dir, (int)getpid(), suffix);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || (n >= 0 && fprintf(f, "%d %d\n", n, last) < 0) || fclose(f) ||
	    rename(tmp, path))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, wait_for);
	for (i = 0; i < 6000; i++) {
		if (!access(path, F_OK))
			return 0;
		usleep(10000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ibv_td_init_attr attr = {};
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_td **tds;
	int level, max, n = 0, err = 0, failed = 0, i;
	unsigned int granted[4] = {};
	const char *max_sharing;
	bool all;

	all = argc == 4 && !strcmp(argv[3], "all");
	if ((argc != 3 && !all) || (level = atoi(argv[1])) < 0 || level > 3 ||
	    (max = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: alloc_tds LEVEL(0-3) MAX [all]\n");
		return 2;
	}
	if (level) {
		attr.comp_mask = IBV_TD_INIT_ATTR_SHARING;
		attr.sharing = level;
	}
	max_sharing = getenv("TD_PLAN_MAX_SHARING");
	if (max_sharing) {
		attr.comp_mask |= IBV_TD_INIT_ATTR_MAX_SHARING;
		attr.max_sharing = atoi(max_sharing);
	}
	list = ibv_get_device_list(NULL);
	if (!list || !list[0]) {
		fprintf(stderr, "alloc_tds: no device\n");
		return 1;
	}
	ctx = ibv_open_device(list[0]);
	tds = calloc(max, sizeof(*tds));
	if (!ctx || !tds) {
		fprintf(stderr, "alloc_tds: cannot open %s\n",
			ibv_get_device_name(list[0]));
		return 1;
	}
	if (getenv("TD_PLAN_HOLD") &&
	    hold(getenv("TD_PLAN_HOLD"), "open", -1, 0, "go")) {
		fprintf(stderr, "alloc_tds: no go\n");
		return 1;
	}
	for (i = 0; i < max; i++) {
		attr.sharing = level;
		tds[n] = ibv_alloc_td(ctx, &attr);
		if (tds[n]) {
			if (max_sharing && attr.sharing <= 3)
				granted[attr.sharing]++;
			n++;
			continue;
		}
		err = errno;
		failed++;
		if (!all)
			break;
	}
	if (getenv("TD_PLAN_HOLD")) {
		if (hold(getenv("TD_PLAN_HOLD"), "count", n, all ? failed : err,
			 "release")) {
			fprintf(stderr, "alloc_tds: no release\n");
			return 1;
		}
	} else {
		if (max_sharing)
			printf("granted %u %u %u\n", granted[1], granted[2],
			       granted[3]);
		printf("%d %d\n", n, all ? failed : err);
	}
	for (i = n; i-- > 0;)
		if (ibv_dealloc_td(tds[i])) {
			fprintf(stderr, "alloc_tds: ibv_dealloc_td failed\n");
			return 1;
		}
	free(tds);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
