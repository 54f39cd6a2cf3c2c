/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * From a category and the --share-X options to how many threads share each
 * resource, under the paper's consistency rules: a child is never shared
 * more widely than its parent, and sharing groups nest:
 *
 *   ctx >= pd >= mr        ctx >= cq >= qp        pd >= qp
 *
 * Buffers are independent of MRs: an MR registers the part of the
 * (possibly shared) buffers its threads write from. A parent not given
 * on the command line is raised to its child's sharing, a child not
 * given is lowered to its parent's.
 */
#ifndef WMT_LAYOUT_H
#define WMT_LAYOUT_H

#include <stddef.h>

#include "ib_write_mt.h"

struct wmt_layout {
	enum wmt_category cat;
	unsigned int threads;
	unsigned int deg[RES_COUNT]; /* threads that share one instance */
	unsigned int
		td_level; /* enum ibv_td_sharing; 0: QPs have no thread domain */
	/*
	 * 2xdynamic builds two endpoints per thread and uses the first: the
	 * resources are laid out over threads * factor virtual endpoints,
	 * thread t using virtual endpoint t * factor.
	 */
	unsigned int factor;
	unsigned int nvirt;
	unsigned int vdeg[RES_COUNT]; /* virtual endpoints per instance */
	unsigned int count[RES_COUNT];
};

/* Returns 0, or PERFTEST_EXIT_USAGE with the reason in err. */
int wmt_layout_resolve(const struct wmt_options *o, enum wmt_category cat,
		       unsigned int threads, struct wmt_layout *l, char *err,
		       size_t errlen);

/* the instance of res used by virtual endpoint v */
static inline unsigned int wmt_layout_index(const struct wmt_layout *l,
					    enum wmt_res res, unsigned int v)
{
	return v / l->vdeg[res];
}

/* what a category builds, in a line of --help */
const char *wmt_category_help(enum wmt_category cat);

/* the names --endpoints takes for several categories at once */
struct wmt_category_set {
	const char *name;
	const char *help; /* NULL: --help lists the categories */
	unsigned int mask; /* of enum wmt_category */
	unsigned char members[CAT_COUNT]; /* in the order the rows come */
	unsigned int n;
};

#define WMT_NSETS 2
/* "all" first: the default */
extern const struct wmt_category_set wmt_category_sets[WMT_NSETS];

/* the TD level a category builds with (0: none) */
unsigned int wmt_category_level(enum wmt_category cat);

/*
 * The mapping level (paper Fig. 4b, enum wmt_level) that defines a
 * category: a row where some thread got another is not that category.
 * 0: the category is defined by its resources alone.
 */
unsigned int wmt_category_mapping_level(enum wmt_category cat);

#endif
