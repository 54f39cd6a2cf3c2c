/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * One row of the report: build a category's endpoints, connect them to a
 * target, run the threads, verify the target, account and tear down. The
 * target is in this process (loopback) or behind the TCP connection.
 */
#ifndef WMT_ROW_H
#define WMT_ROW_H

#include "rc_connect.h"
#include "report.h"
#include "target.h"
#include "verify.h"

struct wmt_target_ops {
	/* nqps target QPs for regions r: their addresses, the regions' base */
	int (*setup)(void *arg, const struct wmt_regions *r,
		     const struct wmt_layout *l, unsigned int nqps,
		     struct rc_addr *remote, uint64_t *base, uint32_t *rkey,
		     char *err, size_t errlen);
	int (*connect)(void *arg, const struct rc_addr *local, char *err,
		       size_t errlen);
	/* called while the threads run; nonzero stops them */
	int (*tick)(void *arg);
	/* bad slots and guards after the run (what went wrong in msg) */
	int (*verify)(void *arg, const uint64_t *iters, uint64_t *bad,
		      char *msg, size_t msglen);
	void (*teardown)(void *arg);
};

/* the target in this process, on a context of its own */
struct wmt_loopback {
	struct ibv_device *dev;
	const struct wmt_options *o;
	struct wmt_target t;
	struct rc_addr *addr;
};
extern const struct wmt_target_ops wmt_loopback_ops;

/* Fills row; returns its status (enum perftest_exit). */
int wmt_run_row(const struct wmt_options *o, enum wmt_category cat,
		struct ibv_device *dev, const struct wmt_target_ops *ops,
		void *arg, struct wmt_row *row);

/*
 * wmt_run_row --repeat times on fresh endpoints: the median rate, the
 * minimum and maximum, msgs and seconds summed. The first run that fails
 * is the row; Ctrl-C ends the repetitions with the runs done.
 */
int wmt_run_row_repeated(const struct wmt_options *o, enum wmt_category cat,
			 struct ibv_device *dev,
			 const struct wmt_target_ops *ops, void *arg,
			 struct wmt_row *row);

/* slots per thread region: d rounded up to a power of two */
unsigned int wmt_slots(const struct wmt_options *o);

#endif
