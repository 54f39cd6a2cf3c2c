// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* From a category and the --share-X options to who shares what. */
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "layout.h"

#define ALL 0 /* in the tables: all threads share one instance */

struct category_desc {
	const char *name;
	const char *help; /* what --help says it builds */
	unsigned int base[RES_COUNT];
	unsigned int fixed; /* bit mask of enum wmt_res the category defines */
	unsigned int td_level;
	unsigned int factor;
	/* the mapping level (Fig. 4b) every thread gets, 0: no such promise */
	unsigned int mapping_level;
};

#define BIT(n) (1u << (n))

/* ICPADS'18 Section VI, plus the two helpers for Sections IV and V */
static const struct category_desc categories[CAT_COUNT] = {
	[CAT_MPI_EVERYWHERE] = {
		.name = "mpi-everywhere",
		.help = "a context per thread",
		.base = { 1, 1, 1, 1, 1, 1 },
		.fixed = BIT(RES_CTX),
		.factor = 1,
		.mapping_level = 1,
	},
	[CAT_2XDYNAMIC] = {
		.name = "2xdynamic",
		.help = "2T level-1 TDs with a QP each, every other one used",
		.base = { ALL, ALL, ALL, 1, 1, 1 },
		.fixed = BIT(RES_CTX) | BIT(RES_QP),
		.td_level = IBV_TD_SHARING_NONE,
		.factor = 2,
		.mapping_level = 1,
	},
	[CAT_DYNAMIC] = {
		.name = "dynamic",
		.help = "T level-1 TDs (own UAR page)",
		.base = { ALL, ALL, ALL, 1, 1, 1 },
		.fixed = BIT(RES_CTX) | BIT(RES_QP),
		.td_level = IBV_TD_SHARING_NONE,
		.factor = 1,
		.mapping_level = 1,
	},
	[CAT_SHARED_DYNAMIC] = {
		.name = "shared-dynamic",
		.help = "T level-2 TDs (two per UAR page)",
		.base = { ALL, ALL, ALL, 1, 1, 1 },
		.fixed = BIT(RES_CTX) | BIT(RES_QP),
		.td_level = IBV_TD_SHARING_PAGE,
		.factor = 1,
		.mapping_level = 2,
	},
	[CAT_STATIC] = {
		.name = "static",
		.help = "T QPs, no TDs",
		.base = { ALL, ALL, ALL, 1, 1, 1 },
		.fixed = BIT(RES_CTX) | BIT(RES_QP),
		.factor = 1,
	},
	[CAT_MPI_THREADS] = {
		.name = "mpi+threads",
		.help = "one QP and CQ shared by all threads (locked)",
		.base = { ALL, ALL, ALL, 1, ALL, ALL },
		.fixed = BIT(RES_CQ) | BIT(RES_QP),
		.factor = 1,
		.mapping_level = 4,
	},
	[CAT_SHARED_UUAR] = {
		.name = "shared-uuar",
		.help = "T level-3 TDs (shared uUAR, BlueFlame lock)",
		.base = { ALL, ALL, ALL, 1, 1, 1 },
		.fixed = BIT(RES_CTX) | BIT(RES_QP),
		.td_level = IBV_TD_SHARING_REGISTER,
		.factor = 1,
		.mapping_level = 3,
	},
	[CAT_XWAY] = {
		.name = "xway",
		.help = "everything per thread unless --share-X",
		.base = { 1, 1, 1, 1, 1, 1 },
		.factor = 1,
	},
};

/* the rows of a set come in its members' order: levels 1, 2, 3, 4 */
const struct wmt_category_set wmt_category_sets[WMT_NSETS] = {
	{ "all",
	  "the six of the paper (mpi-everywhere .. mpi+threads)",
	  BIT(CAT_MPI_EVERYWHERE) | BIT(CAT_2XDYNAMIC) | BIT(CAT_DYNAMIC) |
		  BIT(CAT_SHARED_DYNAMIC) | BIT(CAT_STATIC) |
		  BIT(CAT_MPI_THREADS),
	  { CAT_MPI_EVERYWHERE, CAT_2XDYNAMIC, CAT_DYNAMIC, CAT_SHARED_DYNAMIC,
	    CAT_STATIC, CAT_MPI_THREADS },
	  6 },
	{ "levels",
	  NULL,
	  BIT(CAT_DYNAMIC) | BIT(CAT_SHARED_DYNAMIC) | BIT(CAT_SHARED_UUAR) |
		  BIT(CAT_MPI_THREADS),
	  { CAT_DYNAMIC, CAT_SHARED_DYNAMIC, CAT_SHARED_UUAR, CAT_MPI_THREADS },
	  4 },
};

static const char *const res_names[RES_COUNT] = {
	[RES_CTX] = "ctx", [RES_PD] = "pd", [RES_MR] = "mr",
	[RES_BUF] = "buf", [RES_CQ] = "cq", [RES_QP] = "qp",
};

/* child, parent */
static const enum wmt_res rules[][2] = {
	{ RES_PD, RES_CTX }, { RES_MR, RES_PD }, { RES_CQ, RES_CTX },
	{ RES_QP, RES_CQ },  { RES_QP, RES_PD },
};

const char *wmt_category_name(enum wmt_category cat)
{
	return cat < CAT_COUNT ? categories[cat].name : "?";
}

const char *wmt_category_help(enum wmt_category cat)
{
	return cat < CAT_COUNT ? categories[cat].help : "?";
}

const char *wmt_res_name(enum wmt_res res)
{
	return res < RES_COUNT ? res_names[res] : "?";
}

unsigned int wmt_category_level(enum wmt_category cat)
{
	return categories[cat].td_level;
}

unsigned int wmt_category_mapping_level(enum wmt_category cat)
{
	return categories[cat].mapping_level;
}

static int check_sharing_level(const struct wmt_options *o,
			       const struct category_desc *c, char *err,
			       size_t errlen)
{
	if (!o->sharing || o->sharing == c->td_level)
		return 0;
	if (!c->td_level)
		snprintf(
			err, errlen,
			"--sharing=%u contradicts --endpoints=%s: it builds no thread domains",
			o->sharing, c->name);
	else
		snprintf(
			err, errlen,
			"--sharing=%u contradicts --endpoints=%s: its thread domains are level %u",
			o->sharing, c->name, c->td_level);
	return PERFTEST_EXIT_USAGE;
}

/* the option the user typed that set share[r]: --share-X or -q */
static const char *typed(const struct wmt_options *o, enum wmt_res r,
			 unsigned int v, char *buf, size_t len)
{
	if (o->share[r])
		snprintf(buf, len, "--share-%s=%u", res_names[r], v);
	else
		snprintf(buf, len, "-q %u", o->num_qps);
	return buf;
}

/*
 * The explicit --share-X values, checked against the category. -q N is
 * perftest's: N QPs in one context (one PD, MR and CQ), each QP shared by
 * T/N threads; with --share-X, only the QPs are -q's.
 */
static int apply_options(const struct wmt_options *o,
			 const struct category_desc *c, struct wmt_layout *l,
			 unsigned int *explicit, char *err, size_t errlen)
{
	unsigned int share[RES_COUNT], given = 0;
	char name[48];
	enum wmt_res r;

	memcpy(share, o->share, sizeof(share));
	for (r = 0; r < RES_COUNT; r++)
		given |= share[r];
	if (o->num_qps) {
		if (o->num_qps > l->threads || l->threads % o->num_qps) {
			snprintf(
				err, errlen,
				"-q %u: the number of QPs must divide --threads=%u",
				o->num_qps, l->threads);
			return PERFTEST_EXIT_USAGE;
		}
		if (!share[RES_QP])
			share[RES_QP] = l->threads / o->num_qps;
		for (r = RES_CTX; !given && r <= RES_CQ; r++)
			if (r != RES_BUF)
				share[r] = l->threads;
	}
	for (r = 0; r < RES_COUNT; r++) {
		if (!share[r])
			continue;
		if (share[r] > l->threads || l->threads % share[r]) {
			snprintf(err, errlen, "%s: must divide --threads=%u",
				 typed(o, r, share[r], name, sizeof(name)),
				 l->threads);
			return PERFTEST_EXIT_USAGE;
		}
		if ((c->fixed & BIT(r)) && share[r] != l->deg[r]) {
			snprintf(
				err, errlen,
				"%s contradicts --endpoints=%s, which shares each %s among %u thread(s)",
				typed(o, r, share[r], name, sizeof(name)),
				c->name, res_names[r], l->deg[r]);
			return PERFTEST_EXIT_USAGE;
		}
		l->deg[r] = share[r];
		*explicit |= BIT(r);
	}
	return 0;
}

/* lower a defaulted child or raise a defaulted parent until the rules hold */
static int apply_rules(const struct category_desc *c, struct wmt_layout *l,
		       unsigned int explicit, char *err, size_t errlen)
{
	unsigned int locked = explicit | c->fixed, raised = 0, lowered = 0;
	bool changed = true;
	unsigned int pass, i;

	for (pass = 0; changed && pass < 8; pass++) {
		changed = false;
		for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
			enum wmt_res ch = rules[i][0], pa = rules[i][1];

			if (l->deg[ch] <= l->deg[pa])
				continue;
			changed = true;
			/* a value moved one way never moves back */
			if (!((locked | raised) & BIT(ch))) {
				l->deg[ch] = l->deg[pa];
				lowered |= BIT(ch);
			} else if (!((locked | lowered) & BIT(pa))) {
				l->deg[pa] = l->deg[ch];
				raised |= BIT(pa);
			} else {
				snprintf(
					err, errlen,
					"impossible sharing for %s: a %s shared by %u threads needs its %s shared by at least as many, not %u",
					c->name, res_names[ch], l->deg[ch],
					res_names[pa], l->deg[pa]);
				return PERFTEST_EXIT_USAGE;
			}
		}
	}
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		enum wmt_res ch = rules[i][0], pa = rules[i][1];

		if (l->deg[pa] % l->deg[ch]) {
			snprintf(
				err, errlen,
				"impossible sharing for %s: groups of %u threads per %s do not nest in groups of %u per %s",
				c->name, l->deg[ch], res_names[ch], l->deg[pa],
				res_names[pa]);
			return PERFTEST_EXIT_USAGE;
		}
	}
	return 0;
}

int wmt_layout_resolve(const struct wmt_options *o, enum wmt_category cat,
		       unsigned int threads, struct wmt_layout *l, char *err,
		       size_t errlen)
{
	const struct category_desc *c = &categories[cat];
	unsigned int explicit = 0;
	enum wmt_res r;
	int ret;

	memset(l, 0, sizeof(*l));
	l->cat = cat;
	l->threads = threads;
	l->td_level = c->td_level;
	l->factor = c->factor;
	if (!threads) {
		snprintf(err, errlen, "--threads must be at least 1");
		return PERFTEST_EXIT_USAGE;
	}
	ret = check_sharing_level(o, c, err, errlen);
	if (ret)
		return ret;
	for (r = 0; r < RES_COUNT; r++)
		l->deg[r] = c->base[r] == ALL ? threads : c->base[r];
	ret = apply_options(o, c, l, &explicit, err, errlen);
	if (ret)
		return ret;
	ret = apply_rules(c, l, explicit, err, errlen);
	if (ret)
		return ret;
	if (c->td_level && l->deg[RES_QP] != 1) {
		snprintf(
			err, errlen,
			"%s: a QP of a thread domain takes no lock and cannot be shared",
			c->name);
		return PERFTEST_EXIT_USAGE;
	}
	l->nvirt = threads * l->factor;
	for (r = 0; r < RES_COUNT; r++) {
		/*
		 * 2xdynamic: a thread's second endpoint sits in the same
		 * context, PD, MR and buffer; it has a QP and CQ of its own.
		 */
		if (r == RES_QP || (r == RES_CQ && l->deg[r] == 1))
			l->vdeg[r] = l->deg[r];
		else
			l->vdeg[r] = l->deg[r] * l->factor;
		l->count[r] = l->nvirt / l->vdeg[r];
	}
	return 0;
}
