// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* One row of the report: build, connect, run, verify, account, tear down. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "row.h"
#include "sendloop.h"
#include "spread.h"

unsigned int wmt_slots(const struct wmt_options *o)
{
	unsigned int s = 1;

	while (s < o->tx_depth)
		s <<= 1;
	return s;
}

static int loopback_setup(void *arg, const struct wmt_regions *r,
			  const struct wmt_layout *l, unsigned int nqps,
			  struct rc_addr *remote, uint64_t *base,
			  uint32_t *rkey, char *err, size_t errlen)
{
	struct wmt_loopback *lb = arg;
	int ret;

	(void)l;
	lb->addr = calloc(nqps, sizeof(*lb->addr));
	if (!lb->addr) {
		snprintf(err, errlen, "out of memory");
		return PERFTEST_EXIT_DEVICE;
	}
	ret = wmt_target_create(&lb->t, lb->dev, lb->o, r, nqps, lb->addr, err,
				errlen);
	if (ret)
		return ret;
	memcpy(remote, lb->addr, nqps * sizeof(*remote));
	*base = (uintptr_t)lb->t.mem;
	*rkey = lb->t.mr->rkey;
	return 0;
}

static int loopback_connect(void *arg, const struct rc_addr *local, char *err,
			    size_t errlen)
{
	struct wmt_loopback *lb = arg;

	return wmt_target_connect(&lb->t, lb->o, lb->addr, local, err, errlen);
}

static int loopback_verify(void *arg, const uint64_t *iters, uint64_t *bad,
			   char *msg, size_t msglen)
{
	struct wmt_loopback *lb = arg;

	*bad = wmt_regions_verify(&lb->t.regions, lb->t.mem, iters, msg,
				  msglen);
	return 0;
}

static void loopback_teardown(void *arg)
{
	struct wmt_loopback *lb = arg;

	wmt_target_destroy(&lb->t);
	free(lb->addr);
	lb->addr = NULL;
}

const struct wmt_target_ops wmt_loopback_ops = {
	.setup = loopback_setup,
	.connect = loopback_connect,
	.verify = loopback_verify,
	.teardown = loopback_teardown,
};

static void fill_rates(struct wmt_row *row, const struct wmt_run_result *res)
{
	row->msgs = res->msgs;
	row->seconds = res->seconds;
	row->pinned = res->pinned;
	row->repeats = 1;
	if (res->seconds > 0) {
		row->mmsgs = res->msgs / res->seconds / 1e6;
		row->mbps = (double)res->msgs * row->size / res->seconds /
			    (1 << 20);
	}
}

static const char *const level_what[] = {
	[LEVEL_OWN_UAR] = "a UAR page of its own",
	[LEVEL_SHARED_UAR] = "a UAR page shared, its uUAR its own",
	[LEVEL_SHARED_UUAR] = "a uUAR shared",
	[LEVEL_SHARED_QP] = "a QP shared",
};

/*
 * A category is what its mapping level says, or it is unavailable: never
 * a row of another category under its name (2 threads on level-3 TDs may
 * each get a uUAR of their own). With --td-fallback a row whose TDs got
 * other levels runs and says so (td_granted).
 */
static int check_category_holds(enum wmt_category cat, struct wmt_row *row)
{
	unsigned int want = wmt_category_mapping_level(cat);
	char got[64];

	if (!want || row->usage.levels[want] == row->l.threads)
		return 0;
	/* what the TDs got instead is the row's td_granted */
	if (row->usage.td_degraded)
		return 0;
	wmt_row_levels(row, got, sizeof(got));
	if (row->l.threads == 1)
		snprintf(row->reason, sizeof(row->reason),
			 "1 thread shares nothing: %s needs more --threads",
			 wmt_category_name(cat));
	else
		snprintf(
			row->reason, sizeof(row->reason),
			"%u threads got %s, not level %u (%s) each: try another --threads count",
			row->l.threads, got, want, level_what[want]);
	return PERFTEST_EXIT_UNAVAILABLE;
}

int wmt_run_row(const struct wmt_options *o, enum wmt_category cat,
		struct ibv_device *dev, const struct wmt_target_ops *ops,
		void *arg, struct wmt_row *row)
{
	struct rc_addr *remote = NULL, *local = NULL;
	struct wmt_traffic before = {}, after;
	struct wmt_run_result res = {};
	struct wmt_doorbell_env env;
	uint64_t posted = 0;
	struct wmt_endpoints e = {};
	struct wmt_regions regions;
	uint64_t base = 0, *raddr = NULL, bad = 0;
	unsigned int nqps, t;
	uint32_t rkey = 0;
	int ret;

	snprintf(row->label, sizeof(row->label), "%s", wmt_category_name(cat));
	row->size = o->size;
	row->post_list = o->post_list;
	row->cq_mod = o->cq_mod;
	row->tx_depth = o->tx_depth;
	row->doorbell = o->doorbell;
	ret = wmt_layout_resolve(o, cat, o->threads, &row->l, row->reason,
				 sizeof(row->reason));
	if (!ret)
		ret = wmt_doorbell_check(o, row->reason, sizeof(row->reason));
	if (ret)
		goto out;
	wmt_traffic_read(&before);
	nqps = o->threads / row->l.deg[RES_QP];
	wmt_regions_init(&regions, o->threads, wmt_slots(o), o->size);
	remote = calloc(nqps, sizeof(*remote));
	local = calloc(nqps, sizeof(*local));
	raddr = calloc(o->threads, sizeof(*raddr));
	if (!remote || !local || !raddr) {
		snprintf(row->reason, sizeof(row->reason), "out of memory");
		ret = PERFTEST_EXIT_DEVICE;
		goto out;
	}
	/* the target first, so that the initiator's figures leave it out */
	ret = ops->setup(arg, &regions, &row->l, nqps, remote, &base, &rkey,
			 row->reason, sizeof(row->reason));
	if (ret)
		goto out_target;
	/* the initiator's contexts only: libmlx5 reads them at open */
	wmt_doorbell_set(o, &env);
	ret = wmt_endpoints_build(&e, o, &row->l, dev, regions.slots,
				  row->reason, sizeof(row->reason));
	wmt_doorbell_restore(&env);
	if (ret)
		goto out_target;
	row->usage = e.usage;
	ret = check_category_holds(cat, row);
	if (ret)
		goto out_endpoints;
	ret = wmt_endpoints_connect(&e, o, remote, local, row->reason,
				    sizeof(row->reason));
	if (!ret)
		ret = ops->connect(arg, local, row->reason,
				   sizeof(row->reason));
	if (ret)
		goto out_endpoints;
	wmt_endpoints_emu_usage(&e);
	row->usage = e.usage;
	for (t = 0; t < o->threads; t++)
		raddr[t] = base + wmt_region_offset(&regions, t);
	ret = wmt_run(&e, o, raddr, rkey, &res, ops->tick, arg);
	/* a peer that went away also fails the writes: say the cause */
	if (ret == PERFTEST_EXIT_DEVICE && ops->tick) {
		int lost = ops->tick(arg);

		if (lost) {
			ret = lost;
			snprintf(
				res.err, sizeof(res.err),
				"the connection to the peer failed during the run");
		}
	}
	if (ret) {
		snprintf(row->reason, sizeof(row->reason), "%s", res.err);
		goto out_run;
	}
	fill_rates(row, &res);
	row->ran = true;
	ret = ops->verify(arg, res.iters, &bad, row->reason,
			  sizeof(row->reason));
	if (!ret && bad) {
		row->bad = bad;
		ret = PERFTEST_EXIT_VERIFY;
	}
	row->verified = !ret;
out_run:
	for (t = 0; res.iters && t < o->threads; t++)
		posted += res.iters[t];
	wmt_run_result_free(&res);
out_endpoints:
	wmt_endpoints_destroy(&e);
out_target:
	if (ops->teardown)
		ops->teardown(arg);
	/* the QPs are gone: the NIC took their last rings, the file is new */
	if (row->ran) {
		wmt_traffic_read(&after);
		wmt_doorbell_account(&row->dbc, &before, &after, posted);
	}
out:
	free(remote);
	free(local);
	free(raddr);
	row->status = ret;
	return ret;
}

int wmt_run_row_repeated(const struct wmt_options *o, enum wmt_category cat,
			 struct ibv_device *dev,
			 const struct wmt_target_ops *ops, void *arg,
			 struct wmt_row *row)
{
	unsigned int n = o->repeat > 1 ? o->repeat : 1, k;
	double *rate = calloc(n, sizeof(*rate));
	struct wmt_spread s;
	double seconds = 0;
	uint64_t msgs = 0;
	int ret = 0;

	if (!rate) {
		snprintf(row->reason, sizeof(row->reason), "out of memory");
		return row->status = PERFTEST_EXIT_DEVICE;
	}
	for (k = 0; k < n && (!k || !wmt_interrupted); k++) {
		memset(row, 0, sizeof(*row));
		ret = wmt_run_row(o, cat, dev, ops, arg, row);
		if (ret)
			break;
		rate[k] = row->mmsgs;
		msgs += row->msgs;
		seconds += row->seconds;
	}
	if (!ret && k > 1) {
		wmt_spread(rate, k, &s);
		row->repeats = k;
		row->msgs = msgs;
		row->seconds = seconds;
		row->mmsgs = s.median;
		row->mmsgs_min = s.min;
		row->mmsgs_max = s.max;
		row->mbps = s.median * 1e6 * row->size / (1 << 20);
	} else if (!ret) {
		row->mmsgs_min = row->mmsgs_max = row->mmsgs;
	}
	free(rate);
	return ret;
}
