// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The PCIe model's section of the report: its inputs with their sources,
 * and the link's bytes per message for the ways libmlx5 posts the 8-byte
 * inline write the breakdown times. The counts per message are mlx5's
 * rules (post_send_db()), which mlx5emu's traffic records count exactly
 * (tests/mlx5emu/doorbell_test.c); ib_write_mt feeds the model counted
 * figures instead.
 */
#include "csv_writer.h"
#include "json_writer.h"
#include "report_pcie.h"

#define LIST 16 /* the batch of the list posting (the SmartNIC study's range) */

static const char *const posting_key[BD_NPOSTINGS] = { "bf", "db", "list16" };
static const char *const posting_label[BD_NPOSTINGS] = {
	"single WR, BlueFlame copy", "single WR, 8-byte doorbell",
	"list of 16, one doorbell"
};

void bd_pcie_postings(const struct bd_pcie *p, unsigned int signal_every,
		      struct bd_pcie_bytes b[BD_NPOSTINGS])
{
	struct bd_pcie_counts c = { .payload_written = 8,
				    .cqes = 1.0 /
					    (signal_every ? signal_every : 1) };

	c.bf_blocks = 1;
	bd_pcie_model(p, &c, &b[0]);
	c.bf_blocks = 0;
	c.db = 1;
	c.fetched_bytes = 64;
	bd_pcie_model(p, &c, &b[1]);
	c.db = 1.0 / LIST;
	bd_pcie_model(p, &c, &b[2]);
}

void bd_pcie_text(FILE *f, const struct bd_pcie *p, unsigned int signal_every)
{
	struct bd_pcie_bytes b[BD_NPOSTINGS];
	int i;

	fprintf(f,
		"\nPCIe model (bytes on the link per message; a CQE every %u)   value  from\n",
		signal_every);
	for (i = 0; i < BD_PCIE_NPARAMS; i++)
		fprintf(f, "  %-18s %-34s %6.0f  %s\n", bd_pcie_info[i].key,
			bd_pcie_info[i].label, p->v[i],
			bd_source_name(p->src[i]));
	fprintf(f,
		"  counts per message: mlx5's rule, as mlx5emu counts it (assumed for a device)\n"
		"  %-28s %7s %7s %7s %7s %7s\n",
		"posting", "MMIO", "WQE", "payload", "CQE", "total");
	bd_pcie_postings(p, signal_every, b);
	for (i = 0; i < BD_NPOSTINGS; i++)
		fprintf(f, "  %-28s %7.1f %7.1f %7.1f %7.1f %7.1f\n",
			posting_label[i], b[i].mmio, b[i].wqe,
			b[i].payload_read + b[i].payload_written, b[i].cqe,
			b[i].total);
}

void bd_pcie_json(struct json_writer *w, const struct bd_pcie *p,
		  unsigned int signal_every)
{
	struct bd_pcie_bytes b[BD_NPOSTINGS];
	int i;

	json_begin_object(w, "pcie");
	json_begin_array(w, "inputs");
	for (i = 0; i < BD_PCIE_NPARAMS; i++) {
		json_begin_object(w, NULL);
		json_string(w, "name", bd_pcie_info[i].key);
		json_string(w, "label", bd_pcie_info[i].label);
		json_double(w, "value", p->v[i]);
		json_string(w, "source", bd_source_name(p->src[i]));
		json_end_object(w);
	}
	json_end_array(w);
	json_string(w, "counts_source", "assumed");
	bd_pcie_postings(p, signal_every, b);
	json_begin_object(w, "bytes_per_message");
	for (i = 0; i < BD_NPOSTINGS; i++)
		json_double(w, posting_key[i], b[i].total);
	json_end_object(w);
	json_end_object(w);
}

void bd_pcie_csv(struct csv_writer *w, const struct bd_pcie *p,
		 unsigned int signal_every,
		 void (*value)(struct csv_writer *w, const char *section,
			       const char *name, double v, const char *source))
{
	struct bd_pcie_bytes b[BD_NPOSTINGS];
	int i;

	for (i = 0; i < BD_PCIE_NPARAMS; i++)
		value(w, "pcie-input", bd_pcie_info[i].key, p->v[i],
		      bd_source_name(p->src[i]));
	bd_pcie_postings(p, signal_every, b);
	for (i = 0; i < BD_NPOSTINGS; i++)
		value(w, "pcie-bytes", posting_key[i], b[i].total, "model");
}
