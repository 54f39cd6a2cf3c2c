/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* ib_td_plan's output: the human table and the JSON document */
#ifndef TD_PLAN_REPORT_H
#define TD_PLAN_REPORT_H

#include <stdio.h>

#include "device_query.h"
#include "plan_model.h"

struct plan_report {
	const struct plan_facts *facts;
	const struct plan_device *dev; /* facts->dev with the options */
	const struct plan_job *job;
	const struct plan_result *res;
	enum plan_ladder ladder;
	const char *context_source; /* where dev->context_uars came from */
	const char *device_source; /* where dev->device_uars came from */
};

void plan_report_text(FILE *f, const struct plan_report *r);
int plan_report_json(FILE *f, const struct plan_report *r);

#endif
