/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * --what-if (the paper's Fig. 17): the speedup of the LLP injection overhead
 * and of the LLP latency when one component alone is reduced by 10..90%.
 */
#ifndef BD_WHATIF_H
#define BD_WHATIF_H

#include <stdbool.h>

#include "model.h"

#define BD_WHATIF_STEPS 9 /* 10%, 20% .. 90% */

enum bd_metric { BD_METRIC_INJECTION, BD_METRIC_LATENCY, BD_NMETRICS };

extern const char *const bd_metric_key[BD_NMETRICS];

/* the model of the metric */
double bd_metric_value(enum bd_metric metric, const struct bd_model *m);
/* reduction in percent of step i (0-based) */
int bd_whatif_percent(int i);
/* does the metric depend on component c at all */
bool bd_whatif_applies(enum bd_metric metric, const struct bd_model *m,
		       enum bd_comp c);
/* base / (the metric with c reduced by percent) */
double bd_whatif_speedup(enum bd_metric metric, const struct bd_model *m,
			 enum bd_comp c, int percent);

#endif
