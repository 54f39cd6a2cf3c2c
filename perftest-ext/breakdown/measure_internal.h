/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* What the measurement files share: the samples and the burst rhythm. */
#ifndef BD_MEASURE_INTERNAL_H
#define BD_MEASURE_INTERNAL_H

#include "endpoints.h"
#include "measure.h"

/* untimed operations before the samples start */
#define WARMUP 1000
#define BURST BD_BURST
#define PAUSE_US BD_PAUSE_US

/* ticks while measuring (raw post), ns once summarised */
struct samples {
	double *prefix[BD_NSTEPS + 1]; /* the post cut after n steps */
	double *step[BD_NSTEPS]; /* from the cuts */
	double *inline_step[BD_NSTEPS]; /* stamps between steps */
	double *empty_chain; /* the inline chain's interval around nothing */
	double *empty_pair; /* before the untimed post */
	double *cat[BD_NCATS];
	double *path[BD_NPATHS];
	unsigned int n; /* per array */
};

/* the raw post's steps and the untimed post (measure_raw.c) */
int bd_measure_raw_post(struct bd_endpoints *e, struct bd_timer *t,
			struct samples *s, unsigned int sig_every);
/* spin for PAUSE_US: the device goes idle, our caches stay ours */
void bd_pause_spinning(void);

/* ibv_post_send and ibv_wr_* on the TD and plain QPs (measure_verbs.c) */
int bd_measure_verbs_post(struct bd_endpoints *e, const struct bd_timer *t,
			  struct samples *smp, unsigned int sig_every);
/* one CQE polled: raw (LLP_prog) and ibv_poll_cq on both CQs */
int bd_measure_poll(struct bd_endpoints *e, const struct bd_timer *t,
		    struct samples *smp);

#endif
