// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What libmlx5 (with the series' sharing levels) takes per thread domain,
 * counted in 4 KB UARs:
 *  - level 1: a 4 KB UAR of its own (both bfregs, the second one unused);
 *  - level 2: one bfreg, two per UAR; DEVX BlueFlame UARs pair in the same
 *    list, so level-2 TDs and DEVX UARs share UARs;
 *  - level 3: one UAR per context for the whole pool;
 *  - UARs come from the kernel a mapping at a time (num_uars_per_page);
 *  - a context maps the doorbell (NC) UAR at open in dynamic mode, the
 *    static pages (MLX5_TOTAL_UUARS / 2 UARs) in static mode.
 * Without BlueFlame, level 1 takes a non-cached UAR of its own and levels
 * 2 and 3 ring the context's doorbell UAR.
 */
#include <stddef.h>

#include "plan_model.h"

static unsigned long long div_up(unsigned long long a, unsigned long long b)
{
	return (a + b - 1) / b;
}

unsigned int plan_context_share(unsigned int total, unsigned int contexts,
				unsigned int i)
{
	if (!contexts)
		return 0;
	return total / contexts + (i < total % contexts);
}

bool plan_level_supported(const struct plan_device *dev, unsigned int level)
{
	if (level < 1 || level > 3)
		return false;
	if (dev->sharing_caps)
		return dev->sharing_caps & (1U << level);
	/* libmlx5's own rule (mlx5_td_sharing_caps()) when not reported */
	if (dev->mode == PLAN_UAR_STATIC)
		return dev->blueflame && dev->legacy_pages > 0;
	return true;
}

/* 4 KB UARs for t TDs at level and d DEVX UARs, mappings not rounded */
static unsigned long long td_uars(const struct plan_device *dev,
				  unsigned int level, unsigned int t,
				  unsigned int d)
{
	if (!dev->blueflame)
		return level == 1 ? t : 0;
	switch (level) {
	case 1:
		return t + div_up(d, 2);
	case 2:
		return div_up((unsigned long long)t + d, 2);
	default:
		return (t > 0) + div_up(d, 2);
	}
}

/* without BlueFlame DEVX gets non-cached UARs, 4 registers each */
static unsigned long long nc_devx_uars(const struct plan_device *dev,
				       unsigned int d)
{
	unsigned int nupp = dev->uars_per_page ? dev->uars_per_page : 1;

	return dev->blueflame ? 0 : div_up(d, 4ULL * nupp) * nupp;
}

unsigned long long plan_context_uars(const struct plan_device *dev,
				     unsigned int level, unsigned int t,
				     unsigned int d)
{
	unsigned int nupp = dev->uars_per_page ? dev->uars_per_page : 1;
	unsigned long long u = td_uars(dev, level, t, d);

	return dev->open_uars + div_up(u, nupp) * nupp + nc_devx_uars(dev, d);
}

long long plan_context_budget(const struct plan_device *dev,
			      const struct plan_job *job)
{
	unsigned int nupp = dev->uars_per_page ? dev->uars_per_page : 1;
	long long budget = PLAN_UNKNOWN;

	if (dev->context_uars != PLAN_UNKNOWN)
		budget = dev->context_uars - dev->open_uars;
	if (dev->mode == PLAN_UAR_STATIC && dev->legacy_pages >= 0) {
		long long legacy = dev->legacy_pages * nupp;

		if (budget == PLAN_UNKNOWN || legacy < budget)
			budget = legacy;
	}
	if (dev->device_uars != PLAN_UNKNOWN) {
		long long n = (long long)job->ranks * job->contexts;
		long long share =
			n ? (dev->device_uars - n * dev->open_uars) / n : 0;

		if (budget == PLAN_UNKNOWN || share < budget)
			budget = share;
	}
	if (budget == PLAN_UNKNOWN)
		return budget;
	if (budget < 0)
		budget = 0;
	/* UARs come a mapping at a time */
	return budget / nupp * nupp;
}

long long plan_capacity(const struct plan_device *dev, unsigned int level,
			unsigned int d, long long budget)
{
	long long rest;

	if (!plan_level_supported(dev, level))
		return 0;
	if (budget == PLAN_UNKNOWN)
		return PLAN_UNKNOWN;
	if (!dev->blueflame) {
		rest = budget - (long long)nc_devx_uars(dev, d);
		if (level != 1)
			return PLAN_UNBOUNDED;
		return rest > 0 ? rest : 0;
	}
	rest = budget - (long long)div_up(d, 2);
	switch (level) {
	case 1:
		return rest > 0 ? rest : 0;
	case 2:
		rest = 2 * budget - d;
		return rest > 0 ? rest : 0;
	default:
		return rest >= 1 ? PLAN_UNBOUNDED : 0;
	}
}

struct ladder_state {
	long long free; /* whole 4 KB UARs */
	unsigned int half; /* UARs with one bfreg left */
	bool pool; /* the level-3 UAR is taken */
};

/* the level one TD gets, 0 for ENOMEM */
static unsigned int ladder_step(const struct plan_device *dev,
				struct ladder_state *s, enum plan_ladder ladder)
{
	long long keep = ladder == PLAN_LADDER_RESERVE && !s->pool &&
			 plan_level_supported(dev, 3);

	if (plan_level_supported(dev, 1) && s->free > keep) {
		s->free--;
		return 1;
	}
	if (plan_level_supported(dev, 2) && s->half) {
		s->half--;
		return 2;
	}
	if (plan_level_supported(dev, 2) && s->free > keep) {
		s->free--;
		s->half++;
		return 2;
	}
	if (plan_level_supported(dev, 3) && (s->pool || s->free > 0)) {
		if (!s->pool)
			s->free--;
		s->pool = true;
		return 3;
	}
	return 0;
}

struct plan_mix plan_fallback(const struct plan_device *dev, unsigned int t,
			      unsigned int d, long long budget,
			      enum plan_ladder ladder)
{
	struct plan_mix mix = {};
	struct ladder_state s = {};
	unsigned int i, got;

	if (budget == PLAN_UNKNOWN)
		return mix;
	mix.known = true;
	if (!dev->blueflame) {
		long long own = plan_capacity(dev, 1, d, budget);

		for (i = 0; i < t; i++) {
			if (plan_level_supported(dev, 1) && i < own)
				mix.level[1]++;
			else if (plan_level_supported(dev, 2))
				mix.level[2]++;
			else
				mix.failed++;
		}
		return mix;
	}
	s.free = budget - (long long)div_up(d, 2);
	s.half = d % 2;
	if (s.free < 0) {
		s.free = 0;
		s.half = 0;
	}
	for (i = 0; i < t; i++) {
		got = ladder_step(dev, &s, ladder);
		if (got)
			mix.level[got]++;
		else
			mix.failed++;
	}
	return mix;
}

/* the most level-1 TDs with the rest at level 2, all in budget */
static long long best_split(const struct plan_device *dev, unsigned int t,
			    unsigned int d, long long budget)
{
	long long x;

	if (budget == PLAN_UNKNOWN || !dev->blueflame)
		return PLAN_UNKNOWN;
	if (!plan_level_supported(dev, 1) || !plan_level_supported(dev, 2))
		return PLAN_UNKNOWN;
	for (x = t; x >= 0; x--)
		if (x + (long long)div_up(t - x + d, 2) <= budget)
			return x;
	return PLAN_UNKNOWN;
}

static enum plan_fit fit(unsigned long long need, long long have)
{
	if (have == PLAN_UNKNOWN)
		return PLAN_FIT_UNKNOWN;
	return need <= (unsigned long long)have ? PLAN_FIT_YES : PLAN_FIT_NO;
}

/* the limit of one context alone, the device's share left out */
static long long context_limit(const struct plan_device *dev)
{
	unsigned int nupp = dev->uars_per_page ? dev->uars_per_page : 1;
	long long limit = dev->context_uars;

	if (dev->mode == PLAN_UAR_STATIC && dev->legacy_pages >= 0) {
		long long legacy = dev->open_uars + dev->legacy_pages * nupp;

		if (limit == PLAN_UNKNOWN || legacy < limit)
			limit = legacy;
	}
	return limit;
}

/* an unbounded or unknown count wins over a number */
static long long add_capacity(long long sum, long long c)
{
	if (sum == PLAN_UNKNOWN || c == PLAN_UNKNOWN)
		return PLAN_UNKNOWN;
	if (sum == PLAN_UNBOUNDED || c == PLAN_UNBOUNDED)
		return PLAN_UNBOUNDED;
	return sum + c;
}

static long long min_capacity(long long a, long long b)
{
	if (a == PLAN_UNKNOWN || a == PLAN_UNBOUNDED)
		return b;
	if (b == PLAN_UNKNOWN || b == PLAN_UNBOUNDED)
		return a;
	return a < b ? a : b;
}

/*
 * The TDs the node's contexts hold at level: the device's UARs left after
 * every context's open as one pool (the ranks take them first come, first
 * served), each context within its own limit.
 */
static long long node_capacity(const struct plan_device *dev,
			       const struct plan_job *job, unsigned int level,
			       long long limit)
{
	unsigned int nupp = dev->uars_per_page ? dev->uars_per_page : 1;
	long long n = (long long)job->ranks * job->contexts;
	long long pool = PLAN_UNKNOWN, devx = 0, by_ctx = 0, c;
	unsigned int i, d;

	if (!plan_level_supported(dev, level))
		return 0;
	for (i = 0; i < job->contexts; i++) {
		d = plan_context_share(job->devx_uars, job->contexts, i);
		devx += dev->blueflame ? (long long)div_up(d, 2) :
					 (long long)nc_devx_uars(dev, d);
		c = plan_capacity(dev, level, d,
				  limit == PLAN_UNKNOWN ?
					  PLAN_UNKNOWN :
					  (limit - dev->open_uars) / nupp *
						  nupp);
		by_ctx = add_capacity(by_ctx, c);
	}
	devx *= job->ranks;
	if (by_ctx >= 0)
		by_ctx *= job->ranks;
	if (dev->device_uars != PLAN_UNKNOWN) {
		long long left = dev->device_uars - n * dev->open_uars;

		if (left < 0)
			left = 0;
		if (level == 2 && dev->blueflame)
			left = 2 * left -
			       (long long)job->ranks * job->devx_uars;
		else
			left -= devx;
		if (left < 0)
			left = 0;
		pool = left;
		if ((!dev->blueflame && level != 1) || level == 3)
			pool = level == 3 && dev->blueflame && left < n ?
				       0 :
				       PLAN_UNBOUNDED;
	}
	return min_capacity(by_ctx, pool);
}

static void plan_one_level(const struct plan_device *dev,
			   const struct plan_job *job, unsigned int level,
			   struct plan_level *l)
{
	unsigned int t0 = plan_context_share(job->threads, job->contexts, 0);
	unsigned int d0 = plan_context_share(job->devx_uars, job->contexts, 0);
	long long limit = context_limit(dev);
	unsigned int i;

	l->supported = plan_level_supported(dev, level);
	l->context_uars = plan_context_uars(dev, level, t0, d0);
	l->rank_uars = 0;
	for (i = 0; i < job->contexts; i++)
		l->rank_uars += plan_context_uars(
			dev, level,
			plan_context_share(job->threads, job->contexts, i),
			plan_context_share(job->devx_uars, job->contexts, i));
	l->node_uars = l->rank_uars * job->ranks;
	l->context_fit = fit(l->context_uars, limit);
	l->node_fit = fit(l->node_uars, dev->device_uars);
	if (!l->supported) {
		l->context_fit = PLAN_FIT_NO;
		l->node_fit = PLAN_FIT_NO;
	}
	l->node_capacity = node_capacity(dev, job, level, limit);
	l->context_capacity = plan_capacity(
		dev, level, d0,
		limit == PLAN_UNKNOWN ?
			PLAN_UNKNOWN :
			(limit - dev->open_uars) / (dev->uars_per_page ?: 1) *
				(dev->uars_per_page ?: 1));
}

int plan_compute(const struct plan_device *dev, const struct plan_job *job,
		 enum plan_ladder ladder, struct plan_result *res)
{
	unsigned int t0, d0, level;
	unsigned long long bytes;

	if (!job->ranks || !job->contexts || !dev->uars_per_page)
		return -1;
	*res = (struct plan_result){};
	for (level = 1; level <= 3; level++)
		plan_one_level(dev, job, level, &res->level[level]);

	t0 = plan_context_share(job->threads, job->contexts, 0);
	d0 = plan_context_share(job->devx_uars, job->contexts, 0);
	res->context_budget = plan_context_budget(dev, job);
	res->fallback = plan_fallback(dev, t0, d0, res->context_budget, ladder);
	res->best_split_l1 = best_split(dev, t0, d0, res->context_budget);

	/* the BAR's first 4 KB is the initialization segment, not a UAR */
	bytes = (res->level[1].node_uars + 1) * 4096ULL;
	res->level1_bar_bytes = bytes;
	res->level1_log_bar_mb = 0;
	while ((1ULL << res->level1_log_bar_mb) * 1024 * 1024 < bytes)
		res->level1_log_bar_mb++;
	return 0;
}
