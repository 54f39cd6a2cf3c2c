// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * alloc_tds LEVEL MAX [all]: allocates thread domains in one context of the
 * first device until one fails or MAX are held, prints "COUNT ERRNO" (0
 * when MAX was reached) and frees them. With "all" it asks MAX times
 * whatever fails and prints "COUNT FAILED". LEVEL 0 passes no sharing
 * level, so that MLX5_UAR_SHARING decides, as for an unmodified program.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	struct ibv_td_init_attr attr = {};
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_td **tds;
	int level, max, n = 0, err = 0, failed = 0, i;
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
	for (i = 0; i < max; i++) {
		tds[n] = ibv_alloc_td(ctx, &attr);
		if (tds[n]) {
			n++;
			continue;
		}
		err = errno;
		failed++;
		if (!all)
			break;
	}
	printf("%d %d\n", n, all ? failed : err);
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
