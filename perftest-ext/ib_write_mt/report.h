/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The results: one row per category (or sweep point), printed as a
 * perftest-style table, JSON (perftest's key names where they exist), CSV
 * and a plot of rate and resources side by side (paper Fig. 12).
 */
#ifndef WMT_REPORT_H
#define WMT_REPORT_H

#include <stdio.h>

#include "doorbell.h"
#include "endpoints.h"

struct wmt_row {
	char label[48]; /* the category */
	char point[32]; /* the sweep point, e.g. "threads=4", or "" */
	struct wmt_layout l;
	struct wmt_usage usage;
	unsigned int size, post_list, cq_mod, tx_depth;
	uint64_t msgs;
	double seconds, mmsgs, mbps; /* mmsgs, mbps: the runs' median */
	unsigned int repeats; /* timed runs (--repeat) */
	double mmsgs_min, mmsgs_max;
	unsigned int pinned;
	bool ran, verified;
	uint64_t bad;
	int status; /* enum perftest_exit */
	char reason[256];
	enum wmt_doorbell doorbell;
	struct wmt_doorbell_counts dbc; /* on the emulated device only */
};

/* memory per endpoint: QP, CQ and data buffers, UAR pages */
double wmt_row_mem_per_ep(const struct wmt_row *r);
/* "L1:16" or "L2:8 L3:8": threads per mapping level */
void wmt_row_levels(const struct wmt_row *r, char *buf, size_t len);

/* "1:10 3:6": TDs per sharing level granted, "" unless the row degraded */
void wmt_row_td_granted(const struct wmt_row *r, char *buf, size_t len);

/* value, or "first..value" when --sweep is what (what the rows ran) */
const char *wmt_swept(const struct wmt_options *o, enum wmt_sweep what,
		      unsigned int value, char *buf, size_t len);

/* is the device mlx5emu's (the run is under `mlx5emu run`) */
bool wmt_emulated(void);
/* what an emulated rate measures, said once in the header and JSON */
extern const char wmt_emulated_note[];

void wmt_report_header(FILE *f, const struct wmt_options *o);
/* the table: its head, a row as each finishes, its closing line */
void wmt_report_table_head(FILE *f, const struct wmt_options *o);
void wmt_report_row(FILE *f, const struct wmt_row *r,
		    const struct wmt_options *o);
void wmt_report_table_end(FILE *f, bool wide);
/* complete: false when the run was interrupted (Ctrl-C) */
int wmt_report_json(const char *path, const struct wmt_options *o,
		    const struct wmt_row *rows, unsigned int n, bool complete);
int wmt_report_csv(const char *path, const struct wmt_row *rows,
		   unsigned int n);
int wmt_report_plot(const char *path, const struct wmt_options *o,
		    const struct wmt_row *rows, unsigned int n, char *err,
		    size_t errlen);

#endif
