// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* --what-if: the speedup when one component alone is reduced (Fig. 17). */
#include "whatif.h"

const char *const bd_metric_key[BD_NMETRICS] = {
	[BD_METRIC_INJECTION] = "injection",
	[BD_METRIC_LATENCY] = "latency",
};

double bd_metric_value(enum bd_metric metric, const struct bd_model *m)
{
	return metric == BD_METRIC_INJECTION ? bd_llp_injection(m) :
					       bd_llp_latency(m);
}

int bd_whatif_percent(int i)
{
	return 10 * (i + 1);
}

static double reduced(enum bd_metric metric, const struct bd_model *m,
		      enum bd_comp c, double fraction)
{
	struct bd_model r = *m;

	r.ns[c] *= 1 - fraction;
	return bd_metric_value(metric, &r);
}

bool bd_whatif_applies(enum bd_metric metric, const struct bd_model *m,
		       enum bd_comp c)
{
	struct bd_model probe = *m;

	/* a unit value: a component measured as 0 still counts */
	probe.ns[c] = 1;
	return reduced(metric, &probe, c, 1) != bd_metric_value(metric, &probe);
}

double bd_whatif_speedup(enum bd_metric metric, const struct bd_model *m,
			 enum bd_comp c, int percent)
{
	return bd_metric_value(metric, m) /
	       reduced(metric, m, c, percent / 100.0);
}
