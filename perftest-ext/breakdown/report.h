/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* What ib_write_breakdown prints, and the JSON, CSV and plot files it writes. */
#ifndef BD_REPORT_H
#define BD_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "measure.h"
#include "model.h"
#include "pcie.h"

struct bd_report {
	const struct bd_result *result; /* NULL without --breakdown */
	const struct bd_model *model;
	const struct bd_pcie *pcie;
	unsigned int signal_every; /* a CQE per this many messages */
	bool what_if;
	const char *device;
};

void bd_report_text(FILE *f, const struct bd_report *r);
/* 0 or a negative errno, with a message */
int bd_report_json(const char *path, const struct bd_report *r);
int bd_report_csv(const char *path, const struct bd_report *r);
/* what-if points (.dat) and one plot (.svg) per metric into dir */
int bd_plot_what_if(const char *dir, const struct bd_model *m);
/* the what-if of every metric as the panels of one .svg or .png plot */
int bd_plot_what_if_file(const char *path, const struct bd_model *m);

#endif
