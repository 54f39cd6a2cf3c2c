// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* ib_td_plan's output: the plan as a table for people and as JSON */
#include <inttypes.h>
#include <string.h>

#include "json_writer.h"
#include "report.h"

#define RULE                                                                   \
	"-------------------------------------------------------------------"  \
	"-----------------"

static const char *const level_name[4] = { "", "none", "page", "register" };

static const char *fit_text(enum plan_fit fit)
{
	return fit == PLAN_FIT_YES ? "yes" :
	       fit == PLAN_FIT_NO  ? "no" :
				     "unknown";
}

/* a count, or what stands for one */
static const char *count_text(char *buf, size_t len, long long v)
{
	if (v == PLAN_UNKNOWN)
		return "unknown";
	if (v == PLAN_UNBOUNDED)
		return "unbounded";
	snprintf(buf, len, "%lld", v);
	return buf;
}

static const char *ladder_text(enum plan_ladder ladder)
{
	return ladder == PLAN_LADDER_RESERVE ?
		       "1, else 2, else 3; a context's last free UAR kept for the level-3 pool" :
		       "1, else 2, else 3, each taking whatever UAR is free";
}

static void text_device(FILE *f, const struct plan_report *r)
{
	const struct plan_device *d = r->dev;
	char buf[32];
	unsigned int l;

	fprintf(f, " Device           : %s\n", r->facts->name);
	fprintf(f, " UAR mode         : %s\n",
		d->mode == PLAN_UAR_DYNAMIC ?
			"dynamic (UAR objects)" :
			"static (static pages, then the ALLOC_WC range)");
	fprintf(f, " UARs per mapping : %u x 4 KB\n", d->uars_per_page);
	fprintf(f, " UARs at open     : %u per context (%lld mappings)\n",
		d->open_uars, r->facts->open_mappings);
	if (d->mode == PLAN_UAR_STATIC)
		fprintf(f, " Dynamic range    : %s pages per context\n",
			count_text(buf, sizeof(buf), d->legacy_pages));
	fprintf(f, " BlueFlame        : %s\n", d->blueflame ? "yes" : "no");
	fprintf(f, " Sharing levels   :");
	for (l = 1; l <= 3; l++)
		if (plan_level_supported(d, l))
			fprintf(f, " %u", l);
	fprintf(f, " (%s)\n",
		r->facts->sharing_reported ? "td_sharing_caps" :
					     "not reported, libmlx5's rule");
	fprintf(f, " Per context      : %s%s (%s)\n",
		count_text(buf, sizeof(buf), d->context_uars),
		d->context_uars == PLAN_UNKNOWN ? "" : " UARs",
		r->context_source);
	fprintf(f, " Device           : %s%s (%s)\n",
		count_text(buf, sizeof(buf), d->device_uars),
		d->device_uars == PLAN_UNKNOWN ? "" : " UARs",
		r->device_source);
	if (r->facts->probe_level1 != PLAN_UNKNOWN)
		fprintf(f, " Probe            : %lld level-1 TDs, then %s\n",
			r->facts->probe_level1,
			r->facts->probe_errno ?
				strerror(r->facts->probe_errno) :
				"the probe's cap");
	fprintf(f,
		" Job              : %u ranks x %u threads, %u contexts and %u DEVX UARs per rank\n",
		r->job->ranks, r->job->threads, r->job->contexts,
		r->job->devx_uars);
}

static void text_levels(FILE *f, const struct plan_report *r)
{
	char buf[32], nbuf[32];
	unsigned int l;

	fprintf(f, " %-5s %-8s %8s %9s %9s %-8s %-9s %9s %9s\n", "level",
		"sharing", "UARs/ctx", "UARs/rank", "UARs/node", "ctx fits",
		"node fits", "TDs/ctx", "TDs/node");
	for (l = 1; l <= 3; l++) {
		const struct plan_level *lv = &r->res->level[l];

		if (!lv->supported) {
			fprintf(f,
				" %-5u %-8s unsupported by this device/library\n",
				l, level_name[l]);
			continue;
		}
		fprintf(f, " %-5u %-8s %8llu %9llu %9llu %-8s %-9s %9s %9s\n",
			l, level_name[l], lv->context_uars, lv->rank_uars,
			lv->node_uars, fit_text(lv->context_fit),
			fit_text(lv->node_fit),
			count_text(buf, sizeof(buf), lv->context_capacity),
			count_text(nbuf, sizeof(nbuf), lv->node_capacity));
	}
}

static void text_mix(FILE *f, const struct plan_report *r)
{
	const struct plan_result *res = r->res;
	unsigned int t0 =
		plan_context_share(r->job->threads, r->job->contexts, 0);
	fprintf(f, " Fallback (ladder: %s):\n", ladder_text(r->ladder));
	if (!res->fallback.known) {
		fprintf(f,
			"   unknown: no UAR budget per context (give --context-uars, --device-uars or --probe)\n");
	} else {
		fprintf(f,
			"   a context of %u TDs in %lld UARs: L1:%u L2:%u L3:%u ENOMEM:%u\n",
			t0, res->context_budget, res->fallback.level[1],
			res->fallback.level[2], res->fallback.level[3],
			res->fallback.failed);
	}
	if (res->best_split_l1 != PLAN_UNKNOWN)
		fprintf(f,
			" Best split with no shared register: %lld TDs at level 1, %lld at level 2\n",
			res->best_split_l1, t0 - res->best_split_l1);
	else
		fprintf(f, " Best split with no shared register: %s\n",
			res->fallback.known ? "none fits" : "unknown");
	fprintf(f,
		" Level 1 everywhere: %llu UARs on the node, a BAR of at least %llu MiB: PF_LOG_BAR_SIZE=%u\n",
		res->level[1].node_uars, 1ULL << res->level1_log_bar_mb,
		res->level1_log_bar_mb);
	fprintf(f,
		"   (plus the UARs the kernel driver keeps for itself, which userspace cannot see)\n");
}

void plan_report_text(FILE *f, const struct plan_report *r)
{
	fprintf(f, "%s\n", RULE);
	fprintf(f, "                 Thread-domain UAR plan (ib_td_plan)\n");
	text_device(f, r);
	fprintf(f, "%s\n", RULE);
	text_levels(f, r);
	fprintf(f, "%s\n", RULE);
	text_mix(f, r);
	fprintf(f, "%s\n", RULE);
}

/* a count, null when unknown, "unbounded" as a string */
static void json_count(struct json_writer *w, const char *key, long long v)
{
	if (v == PLAN_UNKNOWN)
		json_null(w, key);
	else if (v == PLAN_UNBOUNDED)
		json_string(w, key, "unbounded");
	else
		json_int(w, key, v);
}

static void json_device(struct json_writer *w, const struct plan_report *r)
{
	const struct plan_device *d = r->dev;
	unsigned int l;

	json_begin_object(w, "device");
	json_string(w, "name", r->facts->name);
	json_string(w, "uar_mode",
		    d->mode == PLAN_UAR_DYNAMIC ? "dynamic" : "static");
	json_uint(w, "uars_per_page", d->uars_per_page);
	json_uint(w, "open_uars", d->open_uars);
	json_bool(w, "blueflame", d->blueflame);
	json_count(w, "max_dynamic_bfregs", r->facts->max_dynamic_bfregs);
	json_count(w, "legacy_pages", d->legacy_pages);
	json_begin_array(w, "sharing_levels");
	for (l = 1; l <= 3; l++)
		if (plan_level_supported(d, l))
			json_uint(w, NULL, l);
	json_end_array(w);
	json_bool(w, "sharing_reported", r->facts->sharing_reported);
	json_count(w, "bar_bytes", r->facts->bar_bytes);
	json_count(w, "context_uars", d->context_uars);
	json_string(w, "context_uars_source", r->context_source);
	json_count(w, "device_uars", d->device_uars);
	json_string(w, "device_uars_source", r->device_source);
	json_count(w, "probe_level1_tds", r->facts->probe_level1);
	json_end_object(w);
}

static void json_levels(struct json_writer *w, const struct plan_report *r)
{
	unsigned int l;

	json_begin_array(w, "levels");
	for (l = 1; l <= 3; l++) {
		const struct plan_level *lv = &r->res->level[l];

		json_begin_object(w, NULL);
		json_uint(w, "level", l);
		json_string(w, "sharing", level_name[l]);
		json_bool(w, "supported", lv->supported);
		json_uint(w, "context_uars", lv->context_uars);
		json_uint(w, "rank_uars", lv->rank_uars);
		json_uint(w, "node_uars", lv->node_uars);
		json_string(w, "context_fits", fit_text(lv->context_fit));
		json_string(w, "node_fits", fit_text(lv->node_fit));
		json_count(w, "context_capacity", lv->context_capacity);
		json_count(w, "node_capacity", lv->node_capacity);
		json_end_object(w);
	}
	json_end_array(w);
}

int plan_report_json(FILE *f, const struct plan_report *r)
{
	const struct plan_result *res = r->res;
	struct json_writer w;

	json_init(&w, f);
	json_begin_object(&w, NULL);
	json_string(&w, "tool", "ib_td_plan");
	json_device(&w, r);
	json_begin_object(&w, "job");
	json_uint(&w, "ranks", r->job->ranks);
	json_uint(&w, "threads", r->job->threads);
	json_uint(&w, "contexts", r->job->contexts);
	json_uint(&w, "devx_uars", r->job->devx_uars);
	json_end_object(&w);
	json_levels(&w, r);
	json_begin_object(&w, "fallback");
	json_string(&w, "ladder",
		    r->ladder == PLAN_LADDER_RESERVE ? "reserve" : "literal");
	json_count(&w, "context_budget", res->context_budget);
	if (res->fallback.known) {
		json_uint(&w, "level1", res->fallback.level[1]);
		json_uint(&w, "level2", res->fallback.level[2]);
		json_uint(&w, "level3", res->fallback.level[3]);
		json_uint(&w, "enomem", res->fallback.failed);
	} else {
		json_null(&w, "level1");
		json_null(&w, "level2");
		json_null(&w, "level3");
		json_null(&w, "enomem");
	}
	json_count(&w, "best_split_level1", res->best_split_l1);
	json_end_object(&w);
	json_begin_object(&w, "level1_everywhere");
	json_uint(&w, "node_uars", res->level[1].node_uars);
	json_uint(&w, "bar_bytes", res->level1_bar_bytes);
	json_uint(&w, "pf_log_bar_size", res->level1_log_bar_mb);
	json_end_object(&w);
	json_end_object(&w);
	return json_finish(&w);
}
