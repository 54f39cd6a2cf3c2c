// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * JSON and CSV output. Kept to this file so that perftest-ext's shared
 * writers can replace it without touching the rest of the tool.
 */
#include <errno.h>
#include <string.h>

#include "report.h"
#include "whatif.h"

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "ib_write_breakdown: %s: %s\n", path,
			strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		fprintf(stderr, "ib_write_breakdown: writing %s failed\n",
			path);
		return -EIO;
	}
	return 0;
}

static void json_stats(FILE *f, const char *key, const char *label,
		       const struct bd_stats *s, const char *more)
{
	fprintf(f,
		"    {\"name\": \"%s\", \"label\": \"%s\", \"mean_ns\": %.4f, \"median_ns\": %.4f, \"sd_ns\": %.4f, \"p5_ns\": %.4f, \"p95_ns\": %.4f, \"n\": %zu%s}",
		key, label, s->mean, s->median, s->sd, s->p5, s->p95, s->n,
		more);
}

static void json_breakdown(FILE *f, const struct bd_result *r)
{
	char more[64];
	int k;

	fprintf(f, "  \"emulated\": %s,\n", r->emulated ? "true" : "false");
	fprintf(f,
		"  \"timer\": {\"kind\": \"%s\", \"ns_per_tick\": %.6f, \"overhead_ns\": %.4f},\n",
		BD_TIMER_NAME, r->timer.ns_per_tick, r->timer.overhead_ns);
	fprintf(f, "  \"steps\": [\n");
	for (k = 0; k < BD_NSTEPS; k++) {
		snprintf(more, sizeof(more), ", \"category\": \"%s\"",
			 bd_comp_info[bd_cat_comp[bd_step_info[k].cat]].key);
		json_stats(f, bd_step_info[k].key, bd_step_info[k].label,
			   &r->step[k], more);
		fprintf(f, "%s\n", k + 1 < BD_NSTEPS ? "," : "");
	}
	fprintf(f, "  ],\n  \"categories\": [\n");
	for (k = 0; k < BD_NCATS; k++) {
		json_stats(f, bd_comp_info[bd_cat_comp[k]].key, bd_cat_label[k],
			   &r->cat[k], "");
		fprintf(f, "%s\n", k + 1 < BD_NCATS ? "," : "");
	}
	fprintf(f,
		"  ],\n  \"misc_rest_ns\": %.4f,\n  \"agreement\": %.6f,\n  \"agreement_median\": %.6f,\n  \"paths\": [\n",
		r->misc_rest, r->agreement, r->agreement_median);
	for (k = 0; k < BD_NPATHS; k++) {
		json_stats(f, bd_path_key[k], bd_path_label[k], &r->path[k],
			   "");
		fprintf(f, "%s\n", k + 1 < BD_NPATHS ? "," : "");
	}
	fprintf(f, "  ],\n");
}

static void json_what_if(FILE *f, const struct bd_model *m)
{
	int metric, c, i;
	const char *sep = "";

	fprintf(f, ",\n  \"what_if\": {");
	for (metric = 0; metric < BD_NMETRICS; metric++) {
		fprintf(f, "%s\n    \"%s\": {", metric ? "," : "",
			bd_metric_key[metric]);
		sep = "";
		for (c = 0; c < BD_NCOMP; c++) {
			if (!bd_whatif_applies(metric, m, c))
				continue;
			fprintf(f, "%s\n      \"%s\": [", sep,
				bd_comp_info[c].key);
			for (i = 0; i < BD_WHATIF_STEPS; i++)
				fprintf(f, "%s%.6f", i ? ", " : "",
					bd_whatif_speedup(metric, m, c,
							  bd_whatif_percent(i)));
			fprintf(f, "]");
			sep = ",";
		}
		fprintf(f, "\n    }");
	}
	fprintf(f, "\n  }");
}

int bd_report_json(const char *path, const struct bd_report *r)
{
	const struct bd_model *m = r->model;
	FILE *f = open_out(path);
	int c;

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"tool\": \"ib_write_breakdown\",\n");
	if (r->result)
		json_breakdown(f, r->result);
	fprintf(f, "  \"components\": [\n");
	for (c = 0; c < BD_NCOMP; c++)
		fprintf(f,
			"    {\"name\": \"%s\", \"label\": \"%s\", \"ns\": %.4f, \"source\": \"%s\"}%s\n",
			bd_comp_info[c].key, bd_comp_info[c].label, m->ns[c],
			bd_source_name(m->src[c]), c + 1 < BD_NCOMP ? "," : "");
	fprintf(f,
		"  ],\n  \"models\": {\"llp_post_ns\": %.4f, \"llp_injection_ns\": %.4f, \"llp_message_rate_mmsgs\": %.4f, \"full_injection_ns\": %.4f, \"llp_latency_ns\": %.4f, \"end_to_end_ns\": %.4f, \"gen_completion_ns\": %.4f, \"p_lower_bound\": %.4f}",
		bd_llp_post(m), bd_llp_injection(m),
		bd_mmsgs(bd_llp_injection(m)), bd_full_injection(m),
		bd_llp_latency(m), bd_end_to_end(m), bd_gen_completion(m),
		bd_p_lower_bound(m));
	if (r->what_if)
		json_what_if(f, m);
	fprintf(f, "\n}\n");
	return close_out(f, path);
}

static void csv_stats(FILE *f, const char *section, const char *key,
		      const struct bd_stats *s)
{
	fprintf(f, "%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%zu,measured\n", section,
		key, s->mean, s->median, s->sd, s->p5, s->p95, s->n);
}

int bd_report_csv(const char *path, const struct bd_report *r)
{
	const struct bd_model *m = r->model;
	FILE *f = open_out(path);
	int k;

	if (!f)
		return -errno;
	fprintf(f,
		"section,name,mean_ns,median_ns,sd_ns,p5_ns,p95_ns,n,source\n");
	if (r->result) {
		for (k = 0; k < BD_NSTEPS; k++)
			csv_stats(f, "step", bd_step_info[k].key,
				  &r->result->step[k]);
		for (k = 0; k < BD_NCATS; k++)
			csv_stats(f, "category",
				  bd_comp_info[bd_cat_comp[k]].key,
				  &r->result->cat[k]);
		for (k = 0; k < BD_NPATHS; k++)
			csv_stats(f, "path", bd_path_key[k],
				  &r->result->path[k]);
	}
	for (k = 0; k < BD_NCOMP; k++)
		fprintf(f, "component,%s,%.4f,%.4f,,,,,%s\n",
			bd_comp_info[k].key, m->ns[k], m->ns[k],
			bd_source_name(m->src[k]));
	fprintf(f, "model,llp_injection,%.4f,%.4f,,,,,\n", bd_llp_injection(m),
		bd_llp_injection(m));
	fprintf(f, "model,full_injection,%.4f,%.4f,,,,,\n",
		bd_full_injection(m), bd_full_injection(m));
	fprintf(f, "model,llp_latency,%.4f,%.4f,,,,,\n", bd_llp_latency(m),
		bd_llp_latency(m));
	fprintf(f, "model,end_to_end,%.4f,%.4f,,,,,\n", bd_end_to_end(m),
		bd_end_to_end(m));
	fprintf(f, "model,gen_completion,%.4f,%.4f,,,,,\n",
		bd_gen_completion(m), bd_gen_completion(m));
	return close_out(f, path);
}
