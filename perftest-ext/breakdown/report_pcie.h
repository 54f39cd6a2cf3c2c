/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The PCIe model in ib_write_breakdown's text, JSON and CSV (report_pcie.c). */
#ifndef BD_REPORT_PCIE_H
#define BD_REPORT_PCIE_H

#include <stdio.h>

#include "pcie.h"

struct csv_writer;
struct json_writer;

/* BlueFlame single WR, doorbell single WR, list of 16 behind one doorbell */
#define BD_NPOSTINGS 3

void bd_pcie_postings(const struct bd_pcie *p, unsigned int signal_every,
		      struct bd_pcie_bytes b[BD_NPOSTINGS]);
void bd_pcie_text(FILE *f, const struct bd_pcie *p, unsigned int signal_every);
void bd_pcie_json(struct json_writer *w, const struct bd_pcie *p,
		  unsigned int signal_every);
void bd_pcie_csv(struct csv_writer *w, const struct bd_pcie *p,
		 unsigned int signal_every,
		 void (*value)(struct csv_writer *w, const char *section,
			       const char *name, double v, const char *source));

#endif
