// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_td_plan: before a job starts, which thread-domain sharing level fits
 * R ranks x T threads on this node's mlx5 device, from what the device
 * tells an unprivileged process (and, with --probe, what it hands out).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_query.h"
#include "exit_code.h"
#include "output_file.h"
#include "parse_number.h"
#include "plan_model.h"
#include "report.h"
#include "version.h"

#define PROBE_MAX 65536

struct options {
	const char *ib_dev;
	struct plan_job job;
	long long context_uars; /* PLAN_UNKNOWN: not given */
	long long device_uars;
	enum plan_ladder ladder;
	bool probe;
	bool json;
	const char *json_file; /* --out_json[_file], besides the table */
};

enum {
	OPT_CONTEXTS = 256,
	OPT_DEVX_UARS,
	OPT_CONTEXT_UARS,
	OPT_DEVICE_UARS,
	OPT_LADDER,
	OPT_PROBE,
	OPT_JSON,
	OPT_OUT_JSON,
	OPT_OUT_JSON_FILE,
};

static const struct option long_opts[] = {
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ranks", required_argument, NULL, 'r' },
	{ "threads", required_argument, NULL, 't' },
	{ "contexts", required_argument, NULL, OPT_CONTEXTS },
	{ "devx-uars", required_argument, NULL, OPT_DEVX_UARS },
	{ "context-uars", required_argument, NULL, OPT_CONTEXT_UARS },
	{ "device-uars", required_argument, NULL, OPT_DEVICE_UARS },
	{ "ladder", required_argument, NULL, OPT_LADDER },
	{ "probe", no_argument, NULL, OPT_PROBE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "out_json", no_argument, NULL, OPT_OUT_JSON },
	{ "out_json_file", required_argument, NULL, OPT_OUT_JSON_FILE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{}
};

static void usage(FILE *f)
{
	static const enum perftest_exit codes[] = { PERFTEST_EXIT_OK,
						    PERFTEST_EXIT_USAGE,
						    PERFTEST_EXIT_DEVICE,
						    PERFTEST_EXIT_OUTPUT };

	fprintf(f,
		"Usage: ib_td_plan [options]\n"
		"Which thread-domain sharing level fits a job on this mlx5 device.\n"
		"Nothing is allocated unless --probe is given.\n\n"
		"  -d, --ib-dev=NAME     the device (default: the first mlx5 device)\n"
		"  -r, --ranks=N         ranks per node on the device (default 1)\n"
		"  -t, --threads=N       threads per rank, one thread domain each (default 1)\n"
		"      --contexts=N      device contexts per rank (default 1)\n"
		"      --devx-uars=N     DEVX BlueFlame UARs per rank, e.g. UCX's workers (default 0)\n"
		"      --context-uars=N  4 KB UARs one context may hold, open included\n"
		"                        (what the device does not tell)\n"
		"      --device-uars=N   4 KB UARs of the whole device (instead of its BAR)\n"
		"      --ladder=reserve|literal  the fallback's rule (default reserve)\n"
		"      --probe           allocate level-1 TDs in one context until one fails,\n"
		"                        then free them: measures the context's limit (idle\n"
		"                        devices only: other processes lose those UARs meanwhile)\n"
		"      --json            the plan as one JSON document on stdout\n"
		"      --out_json        the table, and the JSON in " PERFTEST_JSON_DEFAULT
		"\n"
		"      --out_json_file=FILE  the table, and the JSON in FILE\n"
		"  -h, --help            this text\n"
		"  -V, --version         the version\n");
	perftest_exit_usage(f, codes, sizeof(codes) / sizeof(codes[0]));
}

static int number(const char *opt, const char *arg, long long min,
		  long long max, long long *v)
{
	if (!parse_decimal(arg, min, max, v))
		return 0;
	fprintf(stderr, "ib_td_plan: %s: '%s' is not a number in %lld..%lld\n",
		opt, arg, min, max);
	return -1;
}

static int job_number(int c, const char *arg, struct options *o)
{
	long long v;

	switch (c) {
	case 'r':
		if (number("--ranks", arg, 1, 1 << 16, &v))
			return -1;
		o->job.ranks = v;
		return 0;
	case 't':
		if (number("--threads", arg, 0, 1 << 20, &v))
			return -1;
		o->job.threads = v;
		return 0;
	case OPT_CONTEXTS:
		if (number("--contexts", arg, 1, 1 << 10, &v))
			return -1;
		o->job.contexts = v;
		return 0;
	case OPT_DEVX_UARS:
		if (number("--devx-uars", arg, 0, 1 << 20, &v))
			return -1;
		o->job.devx_uars = v;
		return 0;
	case OPT_CONTEXT_UARS:
		return number("--context-uars", arg, 1, 1LL << 32,
			      &o->context_uars);
	default:
		return number("--device-uars", arg, 1, 1LL << 32,
			      &o->device_uars);
	}
}

/* 0: go on, 1: done (help, version), -1: bad usage */
static int parse_options(int argc, char **argv, struct options *o)
{
	int c;

	*o = (struct options){
		.job = { .ranks = 1, .threads = 1, .contexts = 1 },
		.context_uars = PLAN_UNKNOWN,
		.device_uars = PLAN_UNKNOWN,
	};
	while ((c = getopt_long(argc, argv, "d:r:t:hV", long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'd':
			o->ib_dev = optarg;
			break;
		case OPT_LADDER:
			if (!strcmp(optarg, "reserve")) {
				o->ladder = PLAN_LADDER_RESERVE;
			} else if (!strcmp(optarg, "literal")) {
				o->ladder = PLAN_LADDER_LITERAL;
			} else {
				fprintf(stderr,
					"ib_td_plan: --ladder: '%s' is neither reserve nor literal\n",
					optarg);
				return -1;
			}
			break;
		case OPT_PROBE:
			o->probe = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_OUT_JSON:
			if (!o->json_file)
				o->json_file = PERFTEST_JSON_DEFAULT;
			break;
		case OPT_OUT_JSON_FILE:
			o->json_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("ib_td_plan %s\n", PERFTEST_EXT_VERSION);
			return 1;
		case '?':
			return -1;
		default:
			if (job_number(c, optarg, o))
				return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ib_td_plan: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	/* refused before the device is touched, nothing half written */
	if (o->json_file && output_check("ib_td_plan", o->json_file))
		return -1;
	return 0;
}

static int write_json_file(const char *path, const struct plan_report *r)
{
	FILE *f = output_open("ib_td_plan", path);

	if (!f)
		return -1;
	return output_close("ib_td_plan", path, f, plan_report_json(f, r));
}

/* the options and the probe over what the device told */
static void apply_inputs(const struct options *o, struct plan_facts *f,
			 struct plan_device *dev, struct plan_report *r)
{
	unsigned int nupp = f->dev.uars_per_page;

	*dev = f->dev;
	r->context_source =
		dev->mode == PLAN_UAR_STATIC ?
			"no limit told beyond the dynamic range; --probe measures one" :
			"the kernel tells none in dynamic mode; --probe measures one";
	if (o->context_uars != PLAN_UNKNOWN) {
		dev->context_uars = o->context_uars;
		r->context_source = "--context-uars";
	} else if (f->probe_level1 != PLAN_UNKNOWN &&
		   f->probe_level1 < PROBE_MAX) {
		/* the mappings it took, a level-1 TD a 4 KB UAR each */
		dev->context_uars = dev->open_uars +
				    (f->probe_level1 + nupp - 1) / nupp * nupp;
		r->context_source = "--probe";
	}
	r->device_source = f->bar_bytes != PLAN_UNKNOWN ?
				   "BAR0 in sysfs, less its first 4 KB" :
				   f->bar_why;
	if (o->device_uars != PLAN_UNKNOWN) {
		dev->device_uars = o->device_uars;
		r->device_source = "--device-uars";
	}
}

int main(int argc, char **argv)
{
	struct plan_report report = {};
	struct plan_facts facts;
	struct plan_device dev;
	struct plan_result res;
	struct options o;
	char err[256];
	int ret;

	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret > 0 ? PERFTEST_EXIT_OK : PERFTEST_EXIT_USAGE;
	if (plan_device_query(o.ib_dev, &facts, err, sizeof(err))) {
		fprintf(stderr, "ib_td_plan: %s\n", err);
		return PERFTEST_EXIT_DEVICE;
	}
	if (o.probe && plan_device_probe(&facts, PROBE_MAX, err, sizeof(err))) {
		fprintf(stderr, "ib_td_plan: %s\n", err);
		return PERFTEST_EXIT_DEVICE;
	}
	apply_inputs(&o, &facts, &dev, &report);
	if (plan_compute(&dev, &o.job, o.ladder, &res)) {
		fprintf(stderr, "ib_td_plan: no plan for this job\n");
		return PERFTEST_EXIT_USAGE;
	}
	report.facts = &facts;
	report.dev = &dev;
	report.job = &o.job;
	report.res = &res;
	report.ladder = o.ladder;
	if (o.json) {
		if (plan_report_json(stdout, &report))
			return PERFTEST_EXIT_OUTPUT;
	} else {
		plan_report_text(stdout, &report);
	}
	if (o.json_file && write_json_file(o.json_file, &report))
		return PERFTEST_EXIT_OUTPUT;
	return fflush(stdout) ? PERFTEST_EXIT_OUTPUT : PERFTEST_EXIT_OK;
}
