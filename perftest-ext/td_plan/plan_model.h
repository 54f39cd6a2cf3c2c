/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The planner's model: how many 4 KB UARs (the unit of the BAR, of
 * mlx5emu's --uar-limit and --device-uars) the thread domains of a job take
 * at each sharing level, as the patched libmlx5 hands them out. Pure: no
 * device, no allocation; plan_device_query() fills struct plan_device.
 */
#ifndef TD_PLAN_MODEL_H
#define TD_PLAN_MODEL_H

#include <stdbool.h>
#include <stdint.h>

/* a count the device did not tell */
#define PLAN_UNKNOWN (-1LL)
/* a capacity with no bound from UARs (level 3 once its pool UAR exists) */
#define PLAN_UNBOUNDED (-2LL)

enum plan_uar_mode {
	PLAN_UAR_DYNAMIC, /* UAR objects (UAR_OBJ_ALLOC), kernel 5.8+ */
	PLAN_UAR_STATIC, /* static pages at open, ALLOC_WC pages after */
};

enum plan_fit {
	PLAN_FIT_UNKNOWN,
	PLAN_FIT_NO,
	PLAN_FIT_YES,
};

/* the ladder of issue #34's fallback when a level cannot be had */
enum plan_ladder {
	/* the context's last free UAR is kept for the level-3 pool */
	PLAN_LADDER_RESERVE,
	/* 1, else 2, else 3, each taking whatever is free */
	PLAN_LADDER_LITERAL,
};

struct plan_device {
	enum plan_uar_mode mode;
	unsigned int uars_per_page; /* 4 KB UARs per mapping (nupp) */
	unsigned int open_uars; /* 4 KB UARs a context maps at open */
	bool blueflame; /* write-combining: BlueFlame UARs exist */
	uint32_t sharing_caps; /* 1 << level each; 0: not reported */
	/* static mode: pages of the dynamic (ALLOC_WC) range per context */
	long long legacy_pages;
	/* 4 KB UARs one context may hold, open included, or PLAN_UNKNOWN */
	long long context_uars;
	/* 4 KB UARs of the whole device for all processes, or PLAN_UNKNOWN */
	long long device_uars;
};

struct plan_job {
	unsigned int ranks; /* per node, all on this device */
	unsigned int threads; /* per rank, one thread domain each */
	unsigned int contexts; /* per rank; the threads spread over them */
	unsigned int devx_uars; /* per rank, BlueFlame, spread as threads */
};

struct plan_level {
	bool supported;
	/* 4 KB UARs, open included: the largest context, a rank, the node */
	unsigned long long context_uars;
	unsigned long long rank_uars;
	unsigned long long node_uars;
	enum plan_fit context_fit; /* the largest context in its limit */
	enum plan_fit node_fit; /* the node in the device */
	/* thread domains one context holds at this level (job's DEVX in) */
	long long context_capacity;
	/* ... and all contexts of the node together, the device shared */
	long long node_capacity;
};

struct plan_mix {
	bool known;
	/* per level 1..3 and failed (ENOMEM), over the largest context */
	unsigned int level[4];
	unsigned int failed;
};

struct plan_result {
	struct plan_level level[4]; /* index 1..3 */
	/* 4 KB UARs a context of the job may use (min of context, share) */
	long long context_budget;
	struct plan_mix fallback; /* every TD asks level 1 with the ladder */
	/* the most level-1 TDs of the largest context with the rest at 2 */
	long long best_split_l1;
	/* log2 of the BAR in MiB for level 1 everywhere (PF_LOG_BAR_SIZE) */
	unsigned int level1_log_bar_mb;
	unsigned long long level1_bar_bytes;
};

/* threads of context i of a rank, i < job->contexts */
unsigned int plan_context_share(unsigned int total, unsigned int contexts,
				unsigned int i);

/* 4 KB UARs one context takes for t TDs at level and d DEVX UARs */
unsigned long long plan_context_uars(const struct plan_device *dev,
				     unsigned int level, unsigned int t,
				     unsigned int d);

/* 4 KB UARs a context has for TDs and DEVX, or PLAN_UNKNOWN */
long long plan_context_budget(const struct plan_device *dev,
			      const struct plan_job *job);

/* TDs a context holds at level, with d DEVX UARs, in budget 4 KB UARs */
long long plan_capacity(const struct plan_device *dev, unsigned int level,
			unsigned int d, long long budget);

/* the levels each TD gets when all ask level 1 and fall back */
struct plan_mix plan_fallback(const struct plan_device *dev, unsigned int t,
			      unsigned int d, long long budget,
			      enum plan_ladder ladder);

bool plan_level_supported(const struct plan_device *dev, unsigned int level);

int plan_compute(const struct plan_device *dev, const struct plan_job *job,
		 enum plan_ladder ladder, struct plan_result *res);

#endif
