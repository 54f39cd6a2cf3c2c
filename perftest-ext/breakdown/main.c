// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_write_breakdown: where the time of one 8-byte RDMA WRITE goes, after
 * "Breaking Band" (Zambre, Grodowitz, Chandramowlishwaran, Shamis, ICPP
 * 2019): mlx5's post steps timed with the cycle counter, the paper's
 * injection and latency models, and what-if speedups. See
 * ib_write_breakdown(1).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_code.h"
#include "measure.h"
#include "model.h"
#include "output_file.h"
#include "parse_number.h"
#include "plot.h"
#include "report.h"
#include "version.h"

enum {
	OPT_BREAKDOWN = 0x100,
	OPT_WHAT_IF,
	OPT_ITERS,
	OPT_SIGNAL,
	OPT_DEV,
	OPT_OUT_JSON,
	OPT_OUT_JSON_FILE,
	OPT_CSV,
	OPT_PLOT,
	OPT_PLOT_DIR,
	OPT_HELP,
	OPT_VERSION,
	OPT_COMP, /* + component */
	OPT_PCIE = OPT_COMP + BD_NCOMP, /* + enum bd_pcie_param */
};

struct args {
	bool breakdown, what_if;
	bool iters_given, signal_given;
	struct bd_measure_opts mo;
	bool out_json;
	const char *json, *csv, *plot, *plot_dir;
	struct bd_model model;
	bool set[BD_NCOMP];
	struct bd_pcie pcie;
};

/* the statuses this tool returns */
static const enum perftest_exit exits[] = { PERFTEST_EXIT_OK,
					    PERFTEST_EXIT_USAGE,
					    PERFTEST_EXIT_DEVICE,
					    PERFTEST_EXIT_OUTPUT };

static void usage(FILE *f)
{
	int c;

	fprintf(f,
		"usage: ib_write_breakdown [--breakdown] [--what-if] [options]\n"
		"  --breakdown         time mlx5's post steps, CQ polling and the verbs calls\n"
		"  --what-if           speedups when each component is reduced by 10..90%%\n"
		"  --iters=N           samples per figure (default 20000)\n"
		"  --signal-every=N    one signaled write in N (default 16)\n"
		"  --ib-dev=NAME       device (default: the first)\n"
		"  -h, --help          this text;  -V, --version  the version\n"
		"output (perftest's spellings, as ib_write_mt's):\n"
		"  --out_json          JSON report to --out_json_file (default %s)\n"
		"  --out_json_file=F   JSON report to F (also --json=F)\n"
		"  --csv=FILE          every figure as CSV rows\n"
		"  --plot=FILE.svg|png the what-if speedups, one panel per metric (gnuplot)\n"
		"  --plot-dir=DIR      the what-if points (.dat) and one plot per metric there\n"
		"model components (ns), the paper's Table 1 by default:\n",
		PERFTEST_JSON_DEFAULT);
	for (c = 0; c < BD_NCOMP; c++)
		fprintf(f, "  --%-14s %s\n", bd_comp_info[c].key,
			bd_comp_info[c].label);
	fprintf(f, "PCIe model inputs (assumed by default):\n");
	for (c = 0; c < BD_PCIE_NPARAMS; c++)
		fprintf(f, "  --%-18s %s\n", bd_pcie_info[c].key,
			bd_pcie_info[c].label);
	perftest_exit_usage(f, exits, sizeof(exits) / sizeof(exits[0]));
}

static int parse_ns(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v < 0) {
		fprintf(stderr,
			"ib_write_breakdown: --%s needs a finite ns >= 0, not '%s'\n",
			opt, s);
		return -EINVAL;
	}
	return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned int *v)
{
	long long n;

	if (parse_decimal(s, 1, 100000000, &n)) {
		fprintf(stderr,
			"ib_write_breakdown: --%s needs a count, not '%s'\n",
			opt, s);
		return -EINVAL;
	}
	*v = (unsigned int)n;
	return 0;
}

/* an option that would do nothing in the mode asked for is an error */
static int check_mode(const struct args *a)
{
	const char *what = NULL;

	if (!a->what_if && a->plot)
		what = "--plot draws the what-if: add --what-if";
	else if (!a->what_if && a->plot_dir)
		what = "--plot-dir holds the what-if's points and plots: add --what-if";
	else if (!a->breakdown && a->mo.device)
		what = "--ib-dev names the device --breakdown times: add --breakdown";
	else if (!a->breakdown && a->iters_given)
		what = "--iters counts --breakdown's samples: add --breakdown";
	else if (!a->breakdown && a->signal_given)
		what = "--signal-every paces --breakdown's posts: add --breakdown";
	if (!what)
		return 0;
	fprintf(stderr, "ib_write_breakdown: %s\n", what);
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option fixed[] = {
		{ "breakdown", no_argument, NULL, OPT_BREAKDOWN },
		{ "what-if", no_argument, NULL, OPT_WHAT_IF },
		{ "iters", required_argument, NULL, OPT_ITERS },
		{ "signal-every", required_argument, NULL, OPT_SIGNAL },
		{ "ib-dev", required_argument, NULL, OPT_DEV },
		{ "out_json", no_argument, NULL, OPT_OUT_JSON },
		{ "out_json_file", required_argument, NULL, OPT_OUT_JSON_FILE },
		{ "json", required_argument, NULL, OPT_OUT_JSON_FILE },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "plot-dir", required_argument, NULL, OPT_PLOT_DIR },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
	};
	const int nfixed = sizeof(fixed) / sizeof(fixed[0]);
	struct option opts[sizeof(fixed) / sizeof(fixed[0]) + BD_NCOMP +
			   BD_PCIE_NPARAMS + 1] = {};
	int c, ret = 0;
	double v;

	memcpy(opts, fixed, sizeof(fixed));
	for (c = 0; c < BD_NCOMP; c++)
		opts[nfixed + c] =
			(struct option){ bd_comp_info[c].key, required_argument,
					 NULL, OPT_COMP + c };
	for (c = 0; c < BD_PCIE_NPARAMS; c++)
		opts[nfixed + BD_NCOMP + c] =
			(struct option){ bd_pcie_info[c].key, required_argument,
					 NULL, OPT_PCIE + c };
	while (!ret && (c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case OPT_BREAKDOWN:
			a->breakdown = true;
			break;
		case OPT_WHAT_IF:
			a->what_if = true;
			break;
		case OPT_ITERS:
			ret = parse_uint("iters", optarg, &a->mo.iters);
			a->iters_given = true;
			break;
		case OPT_SIGNAL:
			ret = parse_uint("signal-every", optarg,
					 &a->mo.signal_every);
			a->signal_given = true;
			break;
		case OPT_DEV:
			a->mo.device = optarg;
			break;
		case OPT_OUT_JSON:
			a->out_json = true;
			break;
		case OPT_OUT_JSON_FILE:
			a->out_json = true;
			a->json = optarg;
			break;
		case OPT_CSV:
			a->csv = optarg;
			break;
		case OPT_PLOT:
			a->plot = optarg;
			break;
		case OPT_PLOT_DIR:
			a->plot_dir = optarg;
			break;
		case 'h':
		case OPT_HELP:
			usage(stdout);
			exit(0);
		case 'V':
		case OPT_VERSION:
			printf("ib_write_breakdown " PERFTEST_EXT_VERSION "\n");
			exit(0);
		default:
			if (c >= OPT_PCIE && c < OPT_PCIE + BD_PCIE_NPARAMS) {
				unsigned int u;

				c -= OPT_PCIE;
				ret = parse_uint(bd_pcie_info[c].key, optarg,
						 &u);
				a->pcie.v[c] = u;
				a->pcie.src[c] = BD_SRC_OPTION;
				break;
			}
			if (c < OPT_COMP || c >= OPT_COMP + BD_NCOMP) {
				usage(stderr);
				return -EINVAL;
			}
			c -= OPT_COMP;
			ret = parse_ns(bd_comp_info[c].key, optarg, &v);
			if (!ret) {
				bd_model_set(&a->model, c, v, BD_SRC_OPTION);
				a->set[c] = true;
			}
		}
	}
	if (!ret && optind < argc) {
		fprintf(stderr, "ib_write_breakdown: unexpected '%s'\n",
			argv[optind]);
		ret = -EINVAL;
	}
	if (!ret)
		ret = check_mode(a);
	if (!ret && a->plot && !plot_terminal(a->plot)) {
		fprintf(stderr,
			"ib_write_breakdown: --plot=%s: a .svg or .png file\n",
			a->plot);
		ret = -EINVAL;
	}
	if (a->out_json && !a->json)
		a->json = PERFTEST_JSON_DEFAULT;
	return ret;
}

/* every output file can be written, before anything is measured */
static int check_outputs(const struct args *a)
{
	const char *const files[] = { a->json, a->csv, a->plot };
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i] && output_check("ib_write_breakdown", files[i]))
			return -EIO;
	return 0;
}

/* --breakdown: the measured components replace the model's defaults */
static int measure(struct args *a, struct bd_result **result)
{
	struct bd_model measured = a->model;
	int c, ret;

	*result = calloc(1, sizeof(**result));
	if (!*result)
		return PERFTEST_EXIT_DEVICE;
	ret = bd_measure(&a->mo, *result);
	if (ret)
		return ret == -EINVAL ? PERFTEST_EXIT_USAGE :
					PERFTEST_EXIT_DEVICE;
	bd_result_to_model(*result, &measured);
	/* an option given explicitly wins over the measurement */
	for (c = 0; c < BD_NCOMP; c++)
		if (!a->set[c])
			bd_model_set(&a->model, c, measured.ns[c],
				     measured.src[c]);
	return PERFTEST_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct args a = { .mo = { .iters = 20000, .signal_every = 16 } };
	struct bd_result *result = NULL;
	struct bd_report rep;
	int ret;

	bd_model_defaults(&a.model);
	bd_pcie_defaults(&a.pcie);
	if (parse_args(argc, argv, &a))
		return PERFTEST_EXIT_USAGE;
	if (check_outputs(&a))
		return PERFTEST_EXIT_OUTPUT;
	if (a.breakdown) {
		ret = measure(&a, &result);
		if (ret) {
			free(result);
			return ret;
		}
	}
	rep = (struct bd_report){ .result = result,
				  .model = &a.model,
				  .pcie = &a.pcie,
				  .signal_every = a.mo.signal_every,
				  .what_if = a.what_if,
				  .device = a.mo.device };
	bd_report_text(stdout, &rep);
	fflush(stdout);
	ret = 0;
	if (a.json)
		ret |= bd_report_json(a.json, &rep);
	if (a.csv)
		ret |= bd_report_csv(a.csv, &rep);
	if (a.what_if && a.plot)
		ret |= bd_plot_what_if_file(a.plot, &a.model);
	if (a.what_if && a.plot_dir)
		ret |= bd_plot_what_if(a.plot_dir, &a.model);
	free(result);
	return ret ? PERFTEST_EXIT_OUTPUT : PERFTEST_EXIT_OK;
}
