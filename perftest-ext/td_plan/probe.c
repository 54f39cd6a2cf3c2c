// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * --probe: the level-1 thread domains one context really gets. It takes
 * UARs every other process of the host then cannot have while it runs, so
 * it only runs when asked, and frees everything before it returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "device_query.h"

static struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	ibv_free_device_list(list);
	return ctx;
}

int plan_device_probe(struct plan_facts *f, unsigned int max, char *err,
		      unsigned int errlen)
{
	struct ibv_td_init_attr attr = {
		.comp_mask = IBV_TD_INIT_ATTR_SHARING,
		.sharing = IBV_TD_SHARING_NONE,
	};
	struct ibv_context *ctx = open_named(f->name);
	struct ibv_td **tds;
	unsigned int n = 0, i;
	int ret = 0;

	if (!ctx) {
		snprintf(err, errlen, "--probe: cannot open %s: %s", f->name,
			 strerror(errno));
		return -1;
	}
	tds = calloc(max, sizeof(*tds));
	if (!tds) {
		ibv_close_device(ctx);
		snprintf(err, errlen, "--probe: out of memory");
		return -1;
	}
	f->probe_errno = 0;
	while (n < max) {
		tds[n] = ibv_alloc_td(ctx, &attr);
		if (!tds[n]) {
			f->probe_errno = errno;
			break;
		}
		n++;
	}
	for (i = n; i-- > 0;)
		if (ibv_dealloc_td(tds[i]) && !ret) {
			snprintf(err, errlen, "--probe: ibv_dealloc_td: %s",
				 strerror(errno));
			ret = -1;
		}
	free(tds);
	ibv_close_device(ctx);
	/* EINVAL/EOPNOTSUPP: the library or device has no level 1 */
	if (!n && f->probe_errno != ENOMEM && f->probe_errno != ENOSPC) {
		snprintf(err, errlen, "--probe: ibv_alloc_td(level 1): %s",
			 strerror(f->probe_errno));
		return -1;
	}
	f->probe_level1 = n;
	return ret;
}
