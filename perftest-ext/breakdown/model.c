// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The paper's injection and latency models over a table of components, each
 * with its source.
 */
#include <math.h>
#include <string.h>

#include "model.h"

const struct bd_comp_info bd_comp_info[BD_NCOMP] = {
	[BD_DESC_SETUP] = { "desc-setup", "message descriptor setup" },
	[BD_DESC_BARRIER] = { "desc-barrier",
			      "barrier for message descriptor" },
	[BD_DB_BARRIER] = { "db-barrier", "barrier for DoorBell counter" },
	[BD_PIO_COPY] = { "pio-copy", "PIO copy (64 bytes)" },
	[BD_POST_MISC] = { "post-misc", "misc in LLP_post" },
	[BD_LLP_PROG] = { "llp-prog", "LLP_prog (one CQE)" },
	[BD_BUSY_POST] = { "busy-post", "busy post" },
	[BD_MEAS_UPDATE] = { "meas-update", "measurement update" },
	[BD_PCIE] = { "pcie", "PCIe (64-byte payload)" },
	[BD_WIRE] = { "wire", "Wire" },
	[BD_SWITCH] = { "switch", "Switch" },
	[BD_RC_TO_MEM_8] = { "rc-to-mem", "RC-to-MEM(8B)" },
	[BD_RC_TO_MEM_64] = { "rc-to-mem-64", "RC-to-MEM(64B)" },
	[BD_HLP_POST] = { "hlp-post", "HLP_post" },
	[BD_POST_PROG] = { "post-prog", "Post_prog" },
	[BD_FULL_MISC] = { "full-misc", "Misc in the full model" },
	[BD_HLP_RX_PROG] = { "hlp-rx-prog", "HLP_rx_prog" },
};

/* Table 1 of the paper, ns */
static const double table1[BD_NCOMP] = {
	[BD_DESC_SETUP] = 27.78,
	[BD_DESC_BARRIER] = 17.33,
	[BD_DB_BARRIER] = 21.07,
	[BD_PIO_COPY] = 94.25,
	[BD_POST_MISC] = 14.99,
	[BD_LLP_PROG] = 61.63,
	[BD_BUSY_POST] = 8.99,
	[BD_MEAS_UPDATE] = 49.69,
	[BD_PCIE] = 137.49,
	[BD_WIRE] = 274.81,
	[BD_SWITCH] = 108,
	[BD_RC_TO_MEM_8] = 240.96,
	/* Table 1 has no 64-byte figure: assume the 8-byte one */
	[BD_RC_TO_MEM_64] = 240.96,
	[BD_HLP_POST] = 26.56,
	[BD_POST_PROG] = 59.82,
	[BD_FULL_MISC] = 3.17,
	[BD_HLP_RX_PROG] = 224.66,
};

void bd_model_defaults(struct bd_model *m)
{
	int c;

	for (c = 0; c < BD_NCOMP; c++) {
		m->ns[c] = table1[c];
		m->src[c] = BD_SRC_PAPER;
	}
	m->src[BD_RC_TO_MEM_64] = BD_SRC_ASSUMED;
}

int bd_comp_lookup(const char *key)
{
	int c;

	for (c = 0; c < BD_NCOMP; c++)
		if (!strcmp(bd_comp_info[c].key, key))
			return c;
	return -1;
}

void bd_model_set(struct bd_model *m, enum bd_comp c, double ns,
		  enum bd_source src)
{
	m->ns[c] = ns;
	m->src[c] = src;
}

const char *bd_source_name(enum bd_source src)
{
	switch (src) {
	case BD_SRC_PAPER:
		return "paper";
	case BD_SRC_ASSUMED:
		return "assumed";
	case BD_SRC_OPTION:
		return "option";
	case BD_SRC_MEASURED:
		return "measured";
	}
	return "?";
}

double bd_llp_post(const struct bd_model *m)
{
	return m->ns[BD_DESC_SETUP] + m->ns[BD_DESC_BARRIER] +
	       m->ns[BD_DB_BARRIER] + m->ns[BD_PIO_COPY] + m->ns[BD_POST_MISC];
}

double bd_network(const struct bd_model *m)
{
	return m->ns[BD_WIRE] + m->ns[BD_SWITCH];
}

double bd_llp_injection(const struct bd_model *m)
{
	return bd_llp_post(m) + m->ns[BD_LLP_PROG] + m->ns[BD_BUSY_POST] +
	       m->ns[BD_MEAS_UPDATE];
}

double bd_full_injection(const struct bd_model *m)
{
	return bd_llp_post(m) + m->ns[BD_HLP_POST] + m->ns[BD_POST_PROG] +
	       m->ns[BD_FULL_MISC];
}

double bd_llp_latency(const struct bd_model *m)
{
	return bd_llp_post(m) + 2 * m->ns[BD_PCIE] + bd_network(m) +
	       m->ns[BD_RC_TO_MEM_8] + m->ns[BD_LLP_PROG];
}

double bd_end_to_end(const struct bd_model *m)
{
	return m->ns[BD_HLP_POST] + bd_llp_latency(m) + m->ns[BD_HLP_RX_PROG];
}

double bd_gen_completion(const struct bd_model *m)
{
	return 2 * (m->ns[BD_PCIE] + bd_network(m)) + m->ns[BD_RC_TO_MEM_64];
}

double bd_p_lower_bound(const struct bd_model *m)
{
	return bd_llp_post(m) > 0 ? bd_gen_completion(m) / bd_llp_post(m) : NAN;
}

double bd_mmsgs(double injection_ns)
{
	return injection_ns > 0 ? 1e3 / injection_ns : NAN;
}
