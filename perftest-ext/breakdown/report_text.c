// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The text report: the breakdown tables, the models and the what-if rows. */
#include <math.h>

#include "report.h"
#include "report_pcie.h"
#include "whatif.h"

/* "= 3.38 Mmsg/s", or why there is no rate */
static const char *rate_text(double injection_ns, char *buf, size_t len)
{
	double mmsgs = bd_mmsgs(injection_ns);

	if (isfinite(mmsgs))
		snprintf(buf, len, "= %.2f Mmsg/s", mmsgs);
	else
		snprintf(buf, len, "(no rate: every component is 0 ns)");
	return buf;
}

/* with the mean of the same step timed inline, when there is one */
static void stats_row(FILE *f, const char *label, const struct bd_stats *s,
		      const struct bd_stats *inl)
{
	fprintf(f, "  %-44s %8.2f %8.2f %8.2f %8.2f %8.2f %7zu", label, s->mean,
		s->median, s->sd, s->p5, s->p95, s->n);
	if (inl)
		fprintf(f, " %8.2f", inl->mean);
	fputc('\n', f);
}

static void stats_head(FILE *f, const char *title, const char *extra)
{
	fprintf(f, "\n%-46s %8s %8s %8s %8s %8s %7s", title, "mean", "median",
		"sd", "p5", "p95", "n");
	if (extra)
		fprintf(f, " %8s", extra);
	fputc('\n', f);
}

static void text_breakdown(FILE *f, const struct bd_result *r)
{
	const struct bd_timer *t = &r->timer;
	int k;

	fprintf(f, "timer: %s, %.4f ns/tick (%.3f GHz calibrated",
		BD_TIMER_NAME, t->ns_per_tick, 1 / t->ns_per_tick);
	if (t->nominal_hz)
		fprintf(f, ", %.3f GHz nominal", t->nominal_hz / 1e9);
	fprintf(f, "), own overhead %.2f ns, subtracted from every figure\n",
		t->overhead_ns);
	fprintf(f,
		"statistics: the slowest 1%% of samples dropped (interrupts); the models use\n"
		"            means, which add up below the timer's resolution; a mean below 0\n"
		"            is a step cheaper than the timer resolves, counted as 0\n"
		"method: bursts of %d posts after a %d us pause (device idle), each post's\n"
		"        lines made resident first; a step is what the post cut after it\n"
		"        takes more than the post cut before it, every cut timed by its own\n"
		"        pair of stamps and completed untimed; \"inline\" puts a stamp\n"
		"        between every two steps of one post instead\n",
		BD_BURST, BD_PAUSE_US);
	for (k = 0; k < BD_NSTEPS; k++)
		if (bd_step_info[k].no_code)
			fprintf(f,
				"        %s: no instruction on this CPU, 0 and not timed\n",
				bd_step_info[k].label);
	if (r->emulated)
		fprintf(f,
			"note: emulated device (mlx5emu): the BlueFlame \"PIO copy\" is a write to\n"
			"      ordinary memory, not MMIO across PCIe; doorbells cost what RAM costs.\n");

	stats_head(f, "mlx5 post steps, raw mlx5dv QP (ns)", "inline");
	for (k = 0; k < BD_NSTEPS; k++) {
		char label[80];

		snprintf(label, sizeof(label), "%s -> %d",
			 bd_step_info[k].label, bd_step_info[k].cat + 1);
		stats_row(f, label, &r->step[k], &r->inline_step[k]);
	}
	stats_head(f, "the paper's categories (ns)", NULL);
	for (k = 0; k < BD_NCATS; k++) {
		char label[80];

		snprintf(label, sizeof(label), "%d %s%s", k + 1,
			 bd_comp_info[k].label,
			 k == BD_POST_MISC ? " (timed steps, not modelled)" :
					     "");
		stats_row(f, label, &r->cat[k], NULL);
	}
	fprintf(f,
		"  misc as the rest (LLP_post - the four above, means): %.2f ns: the model's post-misc\n",
		r->misc_rest);

	stats_head(f, "whole operations (ns)", NULL);
	for (k = 0; k < BD_NPATHS; k++)
		stats_row(f, bd_path_label[k], &r->path[k], NULL);
	fprintf(f,
		"  sum of the steps vs untimed post: %+.1f%% (means), %+.1f%% (medians, which\n"
		"  the timer's coarse steps move)\n"
		"  stamps between the steps vs untimed post: %+.1f%% (means)\n",
		100 * r->agreement, 100 * r->agreement_median,
		100 * r->agreement_inline);
	/* why the inline figures are not the breakdown */
	if (r->agreement_inline < 0)
		fprintf(f,
			"  (each stamp's fence lets the WQE's stores drain while the fence is\n"
			"  paid for, so the BlueFlame copy no longer waits for them as it does\n"
			"  in a real post)\n");
	else
		fprintf(f,
			"  (a chain of 8 stamps spans several times the post and catches what\n"
			"  disturbs the machine; its spread shows how much)\n");
}

#define C(x) (1u << (x))
#define LLP_POST                                                               \
	(C(BD_DESC_SETUP) | C(BD_DESC_BARRIER) | C(BD_DB_BARRIER) |            \
	 C(BD_PIO_COPY) | C(BD_POST_MISC))
#define LLP_LATENCY                                                            \
	(LLP_POST | C(BD_PCIE) | C(BD_WIRE) | C(BD_SWITCH) |                   \
	 C(BD_RC_TO_MEM_8) | C(BD_LLP_PROG))
#define GEN_COMPLETION                                                         \
	(C(BD_PCIE) | C(BD_WIRE) | C(BD_SWITCH) | C(BD_RC_TO_MEM_64))

/*
 * Where a model's inputs come from, on its own line: "measured + paper"
 * says that a measured figure is combined with the paper's ThunderX2
 * constants.
 */
static const char *from(const struct bd_model *m, unsigned int comps, char *buf,
			size_t len)
{
	unsigned int seen = 0, c;
	size_t off = 0;
	int src;

	for (c = 0; c < BD_NCOMP; c++)
		if (comps & C(c))
			seen |= 1u << m->src[c];
	buf[0] = 0;
	for (src = BD_SRC_MEASURED; src >= 0; src--)
		if (seen & (1u << src))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? " + " : "[", bd_source_name(src));
	if (seen & (1u << BD_SRC_PAPER | 1u << BD_SRC_ASSUMED))
		off += snprintf(buf + off, len - off, " (ThunderX2)");
	snprintf(buf + off, len - off, "]");
	return buf;
}

/* an injection model: its ns, the rate it allows, where its inputs are from */
static void rate_line(FILE *f, const struct bd_model *m, const char *label,
		      double ns, unsigned int comps)
{
	char rate[64], src[80];

	fprintf(f, "  %-42s %9.2f ns  %s  %s\n", label, ns,
		rate_text(ns, rate, sizeof(rate)),
		from(m, comps, src, sizeof(src)));
}

static void text_model(FILE *f, const struct bd_model *m)
{
	char src[80];
	int c;

	fprintf(f,
		"\nmodel components (ns)                             value  from\n");
	for (c = 0; c < BD_NCOMP; c++)
		fprintf(f, "  %-16s %-30s %8.2f  %s\n", bd_comp_info[c].key,
			bd_comp_info[c].label, m->ns[c],
			bd_source_name(m->src[c]));
	fprintf(f, "\nmodels\n");
	fprintf(f,
		"  LLP_post                                   %9.2f ns  %s\n",
		bd_llp_post(m), from(m, LLP_POST, src, sizeof(src)));
	rate_line(f, m, "LLP injection overhead (Inj)", bd_llp_injection(m),
		  LLP_POST | C(BD_LLP_PROG) | C(BD_BUSY_POST) |
			  C(BD_MEAS_UPDATE));
	rate_line(f, m, "full injection (CPU_time)", bd_full_injection(m),
		  LLP_POST | C(BD_HLP_POST) | C(BD_POST_PROG) |
			  C(BD_FULL_MISC));
	fprintf(f,
		"  LLP latency                                %9.2f ns  %s\n",
		bd_llp_latency(m), from(m, LLP_LATENCY, src, sizeof(src)));
	fprintf(f,
		"  end-to-end latency                         %9.2f ns  %s\n",
		bd_end_to_end(m),
		from(m, LLP_LATENCY | C(BD_HLP_POST) | C(BD_HLP_RX_PROG), src,
		     sizeof(src)));
	fprintf(f,
		"  gen_completion                             %9.2f ns  %s\n",
		bd_gen_completion(m),
		from(m, GEN_COMPLETION, src, sizeof(src)));
	if (isfinite(bd_p_lower_bound(m)))
		fprintf(f,
			"  posts per poll never to wait: p >=         %9.2f\n",
			bd_p_lower_bound(m));
	else
		fprintf(f,
			"  posts per poll never to wait: any p (LLP_post is 0 ns)\n");
}

static void text_what_if(FILE *f, const struct bd_model *m)
{
	int metric, c, i;

	for (metric = 0; metric < BD_NMETRICS; metric++) {
		fprintf(f,
			"\nwhat-if: speedup of %s when one component is reduced by\n  %-14s",
			bd_metric_key[metric], "component");
		for (i = 0; i < BD_WHATIF_STEPS; i++)
			fprintf(f, " %5d%%", bd_whatif_percent(i));
		fputc('\n', f);
		for (c = 0; c < BD_NCOMP; c++) {
			if (!bd_whatif_applies(metric, m, c))
				continue;
			fprintf(f, "  %-14s", bd_comp_info[c].key);
			for (i = 0; i < BD_WHATIF_STEPS; i++) {
				double x = bd_whatif_speedup(
					metric, m, c, bd_whatif_percent(i));

				/* 0 ns reduced to 0 ns: no speedup to speak of */
				if (isfinite(x))
					fprintf(f, " %6.3f", x);
				else
					fprintf(f, " %6s", "-");
			}
			fputc('\n', f);
		}
	}
}

void bd_report_text(FILE *f, const struct bd_report *r)
{
	fprintf(f,
		"ib_write_breakdown: one 8-byte inline RDMA WRITE, CPU to wire (Breaking Band, ICPP 2019)\n");
	if (r->result) {
		fprintf(f, "device: %s\n", r->device ? r->device : "first");
		text_breakdown(f, r->result);
	} else {
		fprintf(f,
			"no --breakdown: every figure below is the paper's or an option's\n");
	}
	text_model(f, r->model);
	bd_pcie_text(f, r->pcie, r->signal_every);
	if (r->what_if)
		text_what_if(f, r->model);
}
