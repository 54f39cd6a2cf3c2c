// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* --out_json and --csv */
#include <stdio.h>

#include "csv_writer.h"
#include "json_writer.h"
#include "output_file.h"
#include "report.h"

static const char tool[] = "ib_write_mt";

static const char *status_name(const struct wmt_row *r)
{
	if (r->ran && r->status == PERFTEST_EXIT_OK)
		return "ok";
	if (r->status == PERFTEST_EXIT_UNAVAILABLE)
		return "unavailable";
	if (r->status == PERFTEST_EXIT_VERIFY)
		return "verification-failed";
	return "failed";
}

/* a figure and where it comes from */
static void sourced(struct json_writer *w, const char *key, int64_t value,
		    const char *source)
{
	json_begin_object(w, key);
	if (value >= 0)
		json_int(w, "value", value);
	else
		json_null(w, "value");
	json_string(w, "source", source);
	json_end_object(w);
}

/*
 * What the emulated NIC counted and the PCIe model made of it, per
 * message posted; null off the emulated device (on hardware nothing
 * counts them).
 */
static void json_doorbell(struct json_writer *w, const struct wmt_row *r)
{
	const struct wmt_doorbell_counts *c = &r->dbc;

	if (!c->counted) {
		json_null(w, "doorbell_counts");
		return;
	}
	json_begin_object(w, "doorbell_counts");
	json_string(w, "source", "emu");
	json_uint(w, "messages_posted", c->posted);
	json_uint(w, "bf_copies", c->d.bf);
	json_uint(w, "bf_blocks", c->d.bf_blocks);
	json_uint(w, "doorbells", c->d.db);
	json_uint(w, "wqe_bbs_fetched", c->d.fetched_bbs);
	json_uint(w, "payload_read_bytes", c->d.payload_read);
	json_uint(w, "payload_written_bytes", c->d.payload_written);
	json_uint(w, "cqes", c->d.cqes);
	json_double(w, "mmio_per_msg", c->mmio);
	json_double(w, "wqe_bytes_per_msg", c->wqe_bytes);
	json_double(w, "pcie_bytes_per_msg", c->pcie_bytes);
	json_string(w, "pcie_source", "model (ib_write_breakdown --pcie)");
	json_end_object(w);
}

static void json_row(struct json_writer *w, const struct wmt_row *r)
{
	const struct wmt_usage *u = &r->usage;
	static const char *const lv[] = { NULL, "own_uar", "shared_uar",
					  "shared_uuar", "shared_qp" };
	static const char *const td_lv[] = { NULL, "level1", "level2",
					     "level3" };
	unsigned int i;

	json_begin_object(w, NULL);
	json_string(w, "category", r->label);
	json_string(w, "point", r->point);
	json_string(w, "status", status_name(r));
	json_string(w, "reason", r->reason[0] ? r->reason : NULL);
	json_uint(w, "threads", r->l.threads);
	json_uint(w, "td_sharing", r->l.td_level);
	/* --td-fallback: the levels granted, when not all the asked one */
	if (r->ran && r->usage.td_degraded) {
		json_begin_object(w, "td_granted");
		for (i = 1; i <= 3; i++)
			json_uint(w, td_lv[i], r->usage.td_granted[i]);
		json_end_object(w);
	} else {
		json_null(w, "td_granted");
	}
	json_uint(w, "MsgSize", r->size);
	json_uint(w, "post_list", r->post_list);
	json_uint(w, "cq_mod", r->cq_mod);
	json_uint(w, "tx_depth", r->tx_depth);
	json_string(w, "doorbell", wmt_doorbell_name(r->doorbell));
	json_bool(w, "verified", r->verified);
	if (!r->ran) {
		/* a row not run has no figures: null, never 0 */
		static const char *const none[] = {
			"n_iterations",	  "messages",	 "seconds",
			"MsgRate",	  "MsgRate_min", "MsgRate_max",
			"repeats",	  "BW_average",	 "pinned_threads",
			"mapping_levels", "resources",	 "doorbell_counts",
		};

		for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			json_null(w, none[i]);
		json_begin_object(w, "shared_by");
		for (i = 0; i < RES_COUNT; i++)
			json_uint(w, wmt_res_name(i), r->l.deg[i]);
		json_end_object(w);
		json_end_object(w);
		return;
	}
	/* perftest: per QP; here per thread, and all threads' messages */
	json_uint(w, "n_iterations", r->l.threads ? r->msgs / r->l.threads : 0);
	json_uint(w, "messages", r->msgs);
	json_double(w, "seconds", r->seconds);
	/* with --repeat: the median of the runs, and their range */
	json_double(w, "MsgRate", r->mmsgs);
	json_double(w, "MsgRate_min", r->mmsgs_min);
	json_double(w, "MsgRate_max", r->mmsgs_max);
	json_uint(w, "repeats", r->repeats);
	json_double(w, "BW_average", r->mbps);
	json_uint(w, "pinned_threads", r->pinned);
	json_begin_object(w, "shared_by");
	for (i = 0; i < RES_COUNT; i++)
		json_uint(w, wmt_res_name(i), r->l.deg[i]);
	json_end_object(w);
	json_begin_object(w, "mapping_levels");
	for (i = 1; i <= 4; i++)
		json_uint(w, lv[i], u->levels[i]);
	json_end_object(w);
	json_begin_object(w, "resources");
	json_uint(w, "contexts", u->count[RES_CTX]);
	json_uint(w, "pds", u->count[RES_PD]);
	json_uint(w, "mrs", u->count[RES_MR]);
	json_uint(w, "cqs", u->count[RES_CQ]);
	json_uint(w, "qps", u->count[RES_QP]);
	json_uint(w, "tds", u->tds);
	sourced(w, "uar_pages_allocated", u->uar_pages, "maps");
	sourced(w, "uuars_allocated", 2 * u->uar_pages, "maps");
	sourced(w, "device_mappings", u->uar_mappings, "maps");
	sourced(w, "uar_pages_used", u->pages_used, "bf.reg");
	sourced(w, "uuars_used", u->uuars_used, "bf.reg");
	sourced(w, "uuars_wasted", 2 * (int64_t)u->uar_pages - u->uuars_used,
		"maps-bf.reg");
	sourced(w, "uars_emulator", u->emu_uars, "emu");
	sourced(w, "qp_buffer_bytes", u->qp_bytes, "mlx5dv");
	sourced(w, "cq_buffer_bytes", u->cq_bytes, "mlx5dv");
	sourced(w, "data_buffer_bytes", u->buf_bytes, "allocated");
	json_double(w, "memory_per_endpoint_bytes", wmt_row_mem_per_ep(r));
	json_end_object(w);
	json_doorbell(w, r);
	json_end_object(w);
}

int wmt_report_json(const char *path, const struct wmt_options *o,
		    const struct wmt_row *rows, unsigned int n, bool complete)
{
	struct json_writer w;
	unsigned int i;
	FILE *f = output_open(tool, path);

	if (!f)
		return PERFTEST_EXIT_OUTPUT;
	json_init(&w, f);
	json_begin_object(&w, NULL);
	json_string(&w, "test", "ib_write_mt");
	json_string(&w, "connection", "RC");
	json_string(&w, "verb", "WRITE");
	json_bool(&w, "complete", complete);
	json_string(&w, "device", o->ib_dev);
	json_bool(&w, "emulated", wmt_emulated());
	json_string(&w, "note", wmt_emulated() ? wmt_emulated_note : NULL);
	json_begin_object(&w, "params");
	json_uint(&w, "threads", o->threads);
	json_uint(&w, "tx_depth", o->tx_depth);
	json_uint(&w, "post_list", o->post_list);
	json_uint(&w, "cq_mod", o->cq_mod);
	json_uint(&w, "inline_size", o->inline_size);
	json_bool(&w, "blueflame", o->blueflame);
	json_bool(&w, "lockstep", o->lockstep);
	json_begin_array(&w, "doorbell");
	for (i = 0; i < o->ndb; i++)
		json_string(&w, NULL, wmt_doorbell_name(o->db_order[i]));
	json_end_array(&w);
	json_bool(&w, "warm_up", o->warm_up);
	json_uint(&w, "iterations", o->duration ? 0 : o->iters);
	json_uint(&w, "duration", o->duration);
	json_uint(&w, "repeat", o->repeat);
	json_end_object(&w);
	json_begin_array(&w, "results");
	for (i = 0; i < n; i++)
		json_row(&w, &rows[i]);
	json_end_array(&w);
	json_end_object(&w);
	if (output_close(tool, path, f, json_finish(&w)))
		return PERFTEST_EXIT_OUTPUT;
	return 0;
}

static const char *const csv_columns[] = {
	"category",
	"point",
	"status",
	"threads",
	"td_sharing",
	"td_granted",
	"size",
	"post_list",
	"cq_mod",
	"tx_depth",
	"doorbell",
	"msgs",
	"seconds",
	"mmsg_per_s",
	"mmsg_per_s_min",
	"mmsg_per_s_max",
	"repeats",
	"mib_per_s",
	"levels",
	"contexts",
	"pds",
	"mrs",
	"cqs",
	"qps",
	"tds",
	"uar_pages_maps",
	"uuars_alloc_maps",
	"uar_pages_used_bfreg",
	"uuars_used_bfreg",
	"uars_emu",
	"qp_bytes",
	"cq_bytes",
	"buf_bytes",
	"mem_per_ep_bytes",
	"mmio_per_msg",
	"wqe_bytes_per_msg",
	"pcie_bytes_per_msg",
	"verified",
	"reason",
};

/* the columns msgs .. pcie_bytes_per_msg of a row that ran */
#define CSV_FIGURES 26

static void csv_figures(struct csv_writer *w, const struct wmt_row *r)
{
	const struct wmt_usage *u = &r->usage;
	char levels[64];

	wmt_row_levels(r, levels, sizeof(levels));
	csv_uint(w, r->msgs);
	csv_double(w, r->seconds);
	csv_double(w, r->mmsgs);
	csv_double(w, r->mmsgs_min);
	csv_double(w, r->mmsgs_max);
	csv_uint(w, r->repeats);
	csv_double(w, r->mbps);
	csv_string(w, levels);
	csv_uint(w, u->count[RES_CTX]);
	csv_uint(w, u->count[RES_PD]);
	csv_uint(w, u->count[RES_MR]);
	csv_uint(w, u->count[RES_CQ]);
	csv_uint(w, u->count[RES_QP]);
	csv_uint(w, u->tds);
	csv_uint(w, u->uar_pages);
	csv_uint(w, 2 * u->uar_pages);
	csv_uint(w, u->pages_used);
	csv_uint(w, u->uuars_used);
	if (u->emu_uars >= 0)
		csv_uint(w, u->emu_uars);
	else
		csv_string(w, "");
	csv_uint(w, u->qp_bytes);
	csv_uint(w, u->cq_bytes);
	csv_uint(w, u->buf_bytes);
	csv_double(w, wmt_row_mem_per_ep(r));
	/* counted on the emulated device only: empty elsewhere */
	if (r->dbc.counted) {
		csv_double(w, r->dbc.mmio);
		csv_double(w, r->dbc.wqe_bytes);
		csv_double(w, r->dbc.pcie_bytes);
	} else {
		csv_string(w, "");
		csv_string(w, "");
		csv_string(w, "");
	}
}

int wmt_report_csv(const char *path, const struct wmt_row *rows, unsigned int n)
{
	struct csv_writer w;
	char granted[48];
	unsigned int i;
	FILE *f = output_open(tool, path);

	if (!f)
		return PERFTEST_EXIT_OUTPUT;
	csv_init(&w, f);
	for (i = 0; i < sizeof(csv_columns) / sizeof(csv_columns[0]); i++)
		csv_string(&w, csv_columns[i]);
	csv_end_row(&w);
	for (i = 0; i < n; i++) {
		const struct wmt_row *r = &rows[i];
		unsigned int k;

		csv_string(&w, r->label);
		csv_string(&w, r->point);
		csv_string(&w, status_name(r));
		csv_uint(&w, r->l.threads);
		csv_uint(&w, r->l.td_level);
		wmt_row_td_granted(r, granted, sizeof(granted));
		csv_string(&w, r->ran ? granted : "");
		csv_uint(&w, r->size);
		csv_uint(&w, r->post_list);
		csv_uint(&w, r->cq_mod);
		csv_uint(&w, r->tx_depth);
		csv_string(&w, wmt_doorbell_name(r->doorbell));
		if (!r->ran) {
			/* msgs .. mem_per_ep_bytes: no figures, empty cells */
			for (k = 0; k < CSV_FIGURES; k++)
				csv_string(&w, "");
		} else {
			csv_figures(&w, r);
		}
		csv_string(&w, r->verified ? "yes" : "no");
		csv_string(&w, r->reason);
		csv_end_row(&w);
	}
	if (output_close(tool, path, f, csv_finish(&w)))
		return PERFTEST_EXIT_OUTPUT;
	return 0;
}
