// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* JSON and CSV output, through perftest-ext's shared writers. */
#include <errno.h>

#include "csv_writer.h"
#include "json_writer.h"
#include "output_file.h"
#include "report.h"
#include "report_pcie.h"
#include "whatif.h"

static const char tool[] = "ib_write_breakdown";

static void json_stats(struct json_writer *w, const char *name,
		       const char *label, const struct bd_stats *s)
{
	json_begin_object(w, NULL);
	json_string(w, "name", name);
	json_string(w, "label", label);
	json_double(w, "mean_ns", s->mean);
	json_double(w, "median_ns", s->median);
	json_double(w, "sd_ns", s->sd);
	json_double(w, "p5_ns", s->p5);
	json_double(w, "p95_ns", s->p95);
	json_uint(w, "n", s->n);
}

static void json_breakdown(struct json_writer *w, const struct bd_result *r)
{
	int k;

	json_bool(w, "emulated", r->emulated);
	json_begin_object(w, "timer");
	json_string(w, "kind", BD_TIMER_NAME);
	json_double(w, "ns_per_tick", r->timer.ns_per_tick);
	json_double(w, "overhead_ns", r->timer.overhead_ns);
	json_end_object(w);
	json_begin_array(w, "steps");
	for (k = 0; k < BD_NSTEPS; k++) {
		json_stats(w, bd_step_info[k].key, bd_step_info[k].label,
			   &r->step[k]);
		json_string(w, "category",
			    bd_comp_info[bd_step_info[k].cat].key);
		json_end_object(w);
	}
	json_end_array(w);
	/* the same steps with stamps between them, for comparison */
	json_begin_array(w, "inline_steps");
	for (k = 0; k < BD_NSTEPS; k++) {
		json_stats(w, bd_step_info[k].key, bd_step_info[k].label,
			   &r->inline_step[k]);
		json_end_object(w);
	}
	json_end_array(w);
	json_begin_array(w, "categories");
	for (k = 0; k < BD_NCATS; k++) {
		json_stats(w, bd_comp_info[k].key, bd_comp_info[k].label,
			   &r->cat[k]);
		json_end_object(w);
	}
	json_end_array(w);
	json_double(w, "misc_rest_ns", r->misc_rest);
	json_double(w, "agreement", r->agreement);
	json_double(w, "agreement_median", r->agreement_median);
	json_double(w, "agreement_inline", r->agreement_inline);
	json_begin_array(w, "paths");
	for (k = 0; k < BD_NPATHS; k++) {
		json_stats(w, bd_path_key[k], bd_path_label[k], &r->path[k]);
		json_end_object(w);
	}
	json_end_array(w);
}

static void json_what_if(struct json_writer *w, const struct bd_model *m)
{
	int metric, c, i;

	json_begin_object(w, "what_if");
	for (metric = 0; metric < BD_NMETRICS; metric++) {
		json_begin_object(w, bd_metric_key[metric]);
		for (c = 0; c < BD_NCOMP; c++) {
			if (!bd_whatif_applies(metric, m, c))
				continue;
			json_begin_array(w, bd_comp_info[c].key);
			for (i = 0; i < BD_WHATIF_STEPS; i++)
				json_double(w, NULL,
					    bd_whatif_speedup(
						    metric, m, c,
						    bd_whatif_percent(i)));
			json_end_array(w);
		}
		json_end_object(w);
	}
	json_end_object(w);
}

int bd_report_json(const char *path, const struct bd_report *r)
{
	const struct bd_model *m = r->model;
	struct json_writer w;
	FILE *f = output_open(tool, path);
	int c;

	if (!f)
		return -EIO;
	json_init(&w, f);
	json_begin_object(&w, NULL);
	json_string(&w, "tool", "ib_write_breakdown");
	if (r->result)
		json_breakdown(&w, r->result);
	json_begin_array(&w, "components");
	for (c = 0; c < BD_NCOMP; c++) {
		json_begin_object(&w, NULL);
		json_string(&w, "name", bd_comp_info[c].key);
		json_string(&w, "label", bd_comp_info[c].label);
		json_double(&w, "ns", m->ns[c]);
		json_string(&w, "source", bd_source_name(m->src[c]));
		json_end_object(&w);
	}
	json_end_array(&w);
	json_begin_object(&w, "models");
	json_double(&w, "llp_post_ns", bd_llp_post(m));
	json_double(&w, "llp_injection_ns", bd_llp_injection(m));
	json_double(&w, "llp_message_rate_mmsgs",
		    bd_mmsgs(bd_llp_injection(m)));
	json_double(&w, "full_injection_ns", bd_full_injection(m));
	json_double(&w, "llp_latency_ns", bd_llp_latency(m));
	json_double(&w, "end_to_end_ns", bd_end_to_end(m));
	json_double(&w, "gen_completion_ns", bd_gen_completion(m));
	json_double(&w, "p_lower_bound", bd_p_lower_bound(m));
	json_end_object(&w);
	bd_pcie_json(&w, r->pcie, r->signal_every);
	if (r->what_if)
		json_what_if(&w, m);
	json_end_object(&w);
	return output_close(tool, path, f, json_finish(&w)) ? -EIO : 0;
}

static void csv_row(struct csv_writer *w, const char *section, const char *name,
		    const struct bd_stats *s, const char *source)
{
	csv_string(w, section);
	csv_string(w, name);
	csv_double(w, s->mean);
	csv_double(w, s->median);
	csv_double(w, s->sd);
	csv_double(w, s->p5);
	csv_double(w, s->p95);
	csv_uint(w, s->n);
	csv_string(w, source);
	csv_end_row(w);
}

/* a model figure: one value in mean_ns; no sample, so no spread or n */
static void csv_value(struct csv_writer *w, const char *section,
		      const char *name, double v, const char *source)
{
	int k;

	csv_string(w, section);
	csv_string(w, name);
	csv_double(w, v);
	for (k = 0; k < 5; k++) /* median, sd, p5, p95, n */
		csv_string(w, "");
	csv_string(w, source);
	csv_end_row(w);
}

int bd_report_csv(const char *path, const struct bd_report *r)
{
	static const char *const head[] = { "section",	 "name",  "mean_ns",
					    "median_ns", "sd_ns", "p5_ns",
					    "p95_ns",	 "n",	  "source" };
	const struct bd_model *m = r->model;
	struct csv_writer w;
	FILE *f = output_open(tool, path);
	unsigned int i;
	int k;

	if (!f)
		return -EIO;
	csv_init(&w, f);
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		csv_string(&w, head[i]);
	csv_end_row(&w);
	if (r->result) {
		for (k = 0; k < BD_NSTEPS; k++)
			csv_row(&w, "step", bd_step_info[k].key,
				&r->result->step[k], "measured");
		for (k = 0; k < BD_NSTEPS; k++)
			csv_row(&w, "inline-step", bd_step_info[k].key,
				&r->result->inline_step[k], "measured");
		for (k = 0; k < BD_NCATS; k++)
			csv_row(&w, "category", bd_comp_info[k].key,
				&r->result->cat[k], "measured");
		for (k = 0; k < BD_NPATHS; k++)
			csv_row(&w, "path", bd_path_key[k], &r->result->path[k],
				"measured");
	}
	for (k = 0; k < BD_NCOMP; k++)
		csv_value(&w, "component", bd_comp_info[k].key, m->ns[k],
			  bd_source_name(m->src[k]));
	csv_value(&w, "model", "llp_injection", bd_llp_injection(m), "model");
	csv_value(&w, "model", "full_injection", bd_full_injection(m), "model");
	csv_value(&w, "model", "llp_latency", bd_llp_latency(m), "model");
	csv_value(&w, "model", "end_to_end", bd_end_to_end(m), "model");
	csv_value(&w, "model", "gen_completion", bd_gen_completion(m), "model");
	bd_pcie_csv(&w, r->pcie, r->signal_every, csv_value);
	return output_close(tool, path, f, csv_finish(&w)) ? -EIO : 0;
}
