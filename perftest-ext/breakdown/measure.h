/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * --breakdown: mlx5's post steps timed one by one on the raw QP (each as the
 * growth of the post cut one step later, and for comparison with stamps
 * between them), the same post untimed inside, CQ polling, and the whole
 * verbs calls on a TD QP and a plain QP. Every figure is in ns with the
 * stamp's own cost taken off.
 */
#ifndef BD_MEASURE_H
#define BD_MEASURE_H

#include <stdbool.h>

#include "cycles.h"
#include "model.h"
#include "stats.h"

enum bd_step {
	BD_STEP_BUILD, /* WQE build */
	BD_STEP_BARRIER, /* WQE before doorbell record */
	BD_STEP_DBR, /* doorbell-record write */
	BD_STEP_WC_START, /* doorbell record before the WC copy */
	BD_STEP_BF_COPY, /* 64-byte BlueFlame copy */
	BD_STEP_FLUSH, /* WC buffers out */
	BD_STEP_BF_TOGGLE, /* next BlueFlame half */
	BD_NSTEPS
};

enum bd_path {
	BD_PATH_RAW_POST, /* the raw post, untimed inside */
	BD_PATH_RAW_STEPS, /* the sum of the steps */
	BD_PATH_RAW_INLINE, /* the same with stamps between the steps */
	BD_PATH_POST_SEND_TD,
	BD_PATH_POST_SEND_PLAIN,
	BD_PATH_WR_TD,
	BD_PATH_WR_PLAIN,
	BD_PATH_RAW_POLL, /* LLP_prog */
	BD_PATH_POLL_TD,
	BD_PATH_POLL_PLAIN,
	BD_NPATHS
};

struct bd_step_info {
	const char *key;
	const char *label;
	enum bd_comp cat; /* one of the BD_NCATS categories of LLP_post */
	/* no instruction on this CPU (a compiler barrier): 0, not timed */
	bool no_code;
};

extern const struct bd_step_info bd_step_info[BD_NSTEPS];
extern const char *const bd_path_key[BD_NPATHS];
extern const char *const bd_path_label[BD_NPATHS];

/* posts per burst, and the pause before each burst (see measure.c) */
#define BD_BURST 32
#define BD_PAUSE_US 500

struct bd_measure_opts {
	const char *device; /* NULL: the first */
	unsigned int iters; /* samples per figure */
	unsigned int signal_every;
};

struct bd_result {
	struct bd_timer timer;
	bool emulated;
	struct bd_stats step[BD_NSTEPS];
	struct bd_stats inline_step[BD_NSTEPS];
	/* per sample: the steps of each category (enum bd_comp) */
	struct bd_stats cat[BD_NCATS];
	struct bd_stats path[BD_NPATHS];
	/* LLP_post untimed inside, less the four timed categories (means) */
	double misc_rest;
	/* (sum of steps - untimed post) / untimed post, of the means */
	double agreement;
	/* the same of the medians, which the timer's coarse steps move */
	double agreement_median;
	/* the same for the steps timed with stamps between them (means) */
	double agreement_inline;
};

/* 0, or a negative errno after a message on stderr */
int bd_measure(const struct bd_measure_opts *o, struct bd_result *r);

/* the measured components into the model, labelled as measured */
void bd_result_to_model(const struct bd_result *r, struct bd_model *m);

#endif
