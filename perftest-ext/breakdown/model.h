/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The injection and latency models of "Breaking Band" (Zambre et al.,
 * ICPP 2019) over a table of components in ns. Every component carries where
 * its value came from: the paper's Table 1, an option, or this run's
 * measurement.
 */
#ifndef BD_MODEL_H
#define BD_MODEL_H

#include <stdbool.h>

enum bd_comp {
	/* LLP_post, the paper's five categories */
	BD_DESC_SETUP,
	BD_DESC_BARRIER,
	BD_DB_BARRIER,
	BD_PIO_COPY,
	BD_POST_MISC,
	/* progress and the benchmark's own per-message work */
	BD_LLP_PROG,
	BD_BUSY_POST,
	BD_MEAS_UPDATE,
	/* the path from the NIC to the target's memory */
	BD_PCIE,
	BD_WIRE,
	BD_SWITCH,
	BD_RC_TO_MEM_8,
	BD_RC_TO_MEM_64,
	/* the high-level protocol (MPICH + UCP in the paper) */
	BD_HLP_POST,
	BD_POST_PROG,
	BD_FULL_MISC,
	BD_HLP_RX_PROG,
	BD_NCOMP
};

/* the components LLP_post is made of: the paper's five categories */
#define BD_NCATS (BD_POST_MISC + 1)

enum bd_source {
	BD_SRC_PAPER, /* Table 1 of the paper */
	BD_SRC_ASSUMED, /* not in Table 1: a stated assumption */
	BD_SRC_OPTION, /* given on the command line */
	BD_SRC_MEASURED /* measured by this run */
};

struct bd_comp_info {
	const char *key; /* option and JSON name */
	const char *label; /* as in the paper */
};

struct bd_model {
	double ns[BD_NCOMP];
	enum bd_source src[BD_NCOMP];
};

extern const struct bd_comp_info bd_comp_info[BD_NCOMP];

/* the paper's values (ThunderX2 2 GHz + ConnectX-4, 8-byte messages) */
void bd_model_defaults(struct bd_model *m);
/* the component named key, or -1 */
int bd_comp_lookup(const char *key);
void bd_model_set(struct bd_model *m, enum bd_comp c, double ns,
		  enum bd_source src);
const char *bd_source_name(enum bd_source src);

double bd_llp_post(const struct bd_model *m);
double bd_network(const struct bd_model *m);
/* LLP_post + LLP_prog + busy post + measurement update */
double bd_llp_injection(const struct bd_model *m);
/* (LLP_post + HLP_post) + Post_prog + Misc */
double bd_full_injection(const struct bd_model *m);
/* LLP_post + 2 PCIe + Network + RC-to-MEM(8B) + LLP_prog */
double bd_llp_latency(const struct bd_model *m);
/* HLP_post + LLP latency + HLP_rx_prog */
double bd_end_to_end(const struct bd_model *m);
/* 2 (PCIe + Network) + RC-to-MEM(64B) */
double bd_gen_completion(const struct bd_model *m);
/* posts per poll that never wait for a completion: p >= this (NaN: LLP_post is 0) */
double bd_p_lower_bound(const struct bd_model *m);
/*
 * messages per second in millions, from an injection overhead in ns; NaN
 * when the overhead is 0: no finite rate, not a rate of 0
 */
double bd_mmsgs(double injection_ns);

#endif
