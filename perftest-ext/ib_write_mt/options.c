// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The command line: perftest's letters where perftest has the knob. */
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "layout.h"
#include "options.h"
#include "output_file.h"
#include "parse_number.h"
#include "version.h"

#define WMT_MAX_THREADS 1024
#define WMT_MAX_SIZE 65536

enum {
	OPT_THREADS = 0x100,
	OPT_ENDPOINTS,
	OPT_SHARING,
	OPT_SHARE, /* + enum wmt_res */
	OPT_LOOPBACK = OPT_SHARE + RES_COUNT,
	OPT_SERVER,
	OPT_WARM_UP,
	OPT_BLUEFLAME,
	OPT_NO_PIN,
	OPT_POLL,
	OPT_CONNECT_TIMEOUT,
	OPT_PEER_TIMEOUT,
	OPT_OUT_JSON,
	OPT_OUT_JSON_FILE,
	OPT_CSV,
	OPT_SWEEP,
	OPT_PLOT,
	OPT_VERSION,
	OPT_WIDE,
	OPT_REPEAT,
	OPT_DOORBELL,
	OPT_LOCKSTEP,
	OPT_TD_FALLBACK,
};

static const struct option long_options[] = {
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "port", required_argument, NULL, 'p' },
	{ "size", required_argument, NULL, 's' },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "post_list", required_argument, NULL, 'l' },
	{ "cq-mod", required_argument, NULL, 'Q' },
	{ "inline_size", required_argument, NULL, 'I' },
	{ "qp", required_argument, NULL, 'q' },
	{ "CPU-freq", no_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "endpoints", required_argument, NULL, OPT_ENDPOINTS },
	{ "sharing", required_argument, NULL, OPT_SHARING },
	{ "td-fallback", no_argument, NULL, OPT_TD_FALLBACK },
	{ "share-ctx", required_argument, NULL, OPT_SHARE + RES_CTX },
	{ "share-pd", required_argument, NULL, OPT_SHARE + RES_PD },
	{ "share-mr", required_argument, NULL, OPT_SHARE + RES_MR },
	{ "share-buf", required_argument, NULL, OPT_SHARE + RES_BUF },
	{ "share-cq", required_argument, NULL, OPT_SHARE + RES_CQ },
	{ "share-qp", required_argument, NULL, OPT_SHARE + RES_QP },
	{ "loopback", no_argument, NULL, OPT_LOOPBACK },
	{ "server", required_argument, NULL, OPT_SERVER },
	{ "perform_warm_up", no_argument, NULL, OPT_WARM_UP },
	{ "blueflame", required_argument, NULL, OPT_BLUEFLAME },
	{ "no-pin", no_argument, NULL, OPT_NO_PIN },
	{ "poll", required_argument, NULL, OPT_POLL },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "peer-timeout", required_argument, NULL, OPT_PEER_TIMEOUT },
	{ "out_json", no_argument, NULL, OPT_OUT_JSON },
	{ "out_json_file", required_argument, NULL, OPT_OUT_JSON_FILE },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "all", no_argument, NULL, 'a' },
	{ "wide", no_argument, NULL, OPT_WIDE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "doorbell", required_argument, NULL, OPT_DOORBELL },
	{ "lockstep", no_argument, NULL, OPT_LOCKSTEP },
	{ "noPeak", no_argument, NULL, 'N' },
	{}
};

const char *wmt_doorbell_name(enum wmt_doorbell db)
{
	static const char *const names[DB_COUNT] = {
		[DB_AUTO] = "auto", [DB_BF] = "bf", [DB_DB] = "db"
	};

	return db < DB_COUNT ? names[db] : "?";
}

/* --doorbell=bf,db,auto: the modes in the rows' order, each once */
static int parse_doorbells(struct wmt_options *o, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -1;
	o->ndb = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int d, i;

		for (d = 0; d < DB_COUNT; d++)
			if (!strcmp(tok, wmt_doorbell_name(d)))
				break;
		for (i = 0; i < o->ndb && d < DB_COUNT; i++)
			if (o->db_order[i] == d)
				d = DB_COUNT; /* twice */
		if (d == DB_COUNT)
			ret = -1;
		else
			o->db_order[o->ndb++] = d;
	}
	free(copy);
	o->doorbell_given = !ret && o->ndb;
	return ret || !o->ndb ? -1 : 0;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "ib_write_mt: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(ib_write_mt --help lists the options)\n");
	return PERFTEST_EXIT_USAGE;
}

/* cat at the end of o's row order, unless it is there already */
static void add_in_order(struct wmt_options *o, unsigned int cat)
{
	unsigned int i;

	for (i = 0; i < o->ncats; i++)
		if (o->order[i] == cat)
			return;
	o->order[o->ncats++] = cat;
	o->categories |= 1u << cat;
}

int wmt_parse_categories(struct wmt_options *o, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int i;
	int ret = 0;

	o->categories = o->ncats = 0;
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct wmt_category_set *set = NULL;
		int cat = -1;

		for (i = 0; i < CAT_COUNT; i++)
			if (!strcmp(tok, wmt_category_name(i)))
				cat = i;
		for (i = 0; i < WMT_NSETS; i++)
			if (!strcmp(tok, wmt_category_sets[i].name))
				set = &wmt_category_sets[i];
		if (cat >= 0)
			add_in_order(o, cat);
		for (i = 0; set && i < set->n; i++)
			add_in_order(o, set->members[i]);
		ret = cat < 0 && !set ? -1 : 0;
	}
	free(copy);
	return ret;
}

static int parse_sweep(struct wmt_options *o, const char *arg)
{
	static const char *const names[] = {
		[SWEEP_THREADS] = "threads",
		[SWEEP_POSTLIST] = "postlist",
		[SWEEP_UNSIGNALED] = "unsignaled",
		[SWEEP_SIZE] = "size",
	};
	unsigned int i;

	for (i = SWEEP_THREADS; i <= SWEEP_SIZE; i++)
		if (!strcmp(arg, names[i])) {
			o->sweep = i;
			return 0;
		}
	for (i = 0; i < RES_COUNT; i++)
		if (!strncmp(arg, "share-", 6) &&
		    !strcmp(arg + 6, wmt_res_name(i))) {
			o->sweep = SWEEP_SHARE;
			o->sweep_res = i;
			return 0;
		}
	return usage_error(
		"--sweep=%s: not threads, postlist, unsignaled, size or share-ctx|pd|mr|buf|cq|qp",
		arg);
}

static unsigned int default_threads(void)
{
	cpu_set_t set;
	int n = 16;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}

#define NUM(field, min, max, what)                                             \
	do {                                                                   \
		long long v_;                                                  \
		if (parse_decimal(optarg, min, max, &v_))                      \
			return usage_error(what ": bad value '%s'", optarg);   \
		o->field = v_;                                                 \
	} while (0)

/* the options that take a word: -1 to go on, or the exit code */
static int parse_choice(struct wmt_options *o, int c)
{
	if (c == OPT_POLL) {
		if (!strcmp(optarg, "busy"))
			o->poll = POLL_BUSY;
		else if (!strcmp(optarg, "yield"))
			o->poll = POLL_YIELD;
		else
			return usage_error("--poll=%s: busy or yield", optarg);
	} else {
		if (strcmp(optarg, "on") && strcmp(optarg, "off"))
			return usage_error("--blueflame=%s: on or off", optarg);
		o->blueflame = !strcmp(optarg, "on");
	}
	return -1;
}

/* the options that take a number: -1 to go on, or the exit code */
static int parse_numeric(struct wmt_options *o, int c)
{
	switch (c) {
	case 'i':
		NUM(ib_port, 1, 255, "-i/--ib-port");
		break;
	case 'x':
		NUM(gid_index, 0, 255, "-x/--gid-index");
		break;
	case 'p':
		NUM(tcp_port, 1, 65535, "-p/--port");
		break;
	case 's':
		NUM(size, 1, WMT_MAX_SIZE, "-s/--size (1..65536)");
		o->size_given = true;
		break;
	case 'n':
		NUM(iters, 1, LLONG_MAX / 4, "-n/--iters");
		o->iters_given = true;
		break;
	case 'D':
		NUM(duration, 1, 86400, "-D/--duration");
		break;
	case OPT_REPEAT:
		NUM(repeat, 1, 1000, "--repeat (1..1000)");
		break;
	case 't':
		NUM(tx_depth, 1, 32768, "-t/--tx-depth");
		break;
	case 'l':
		NUM(post_list, 1, 4096, "-l/--post_list");
		break;
	case 'Q':
		NUM(cq_mod, 1, 32768, "-Q/--cq-mod");
		break;
	case 'I':
		NUM(inline_size, 0, 4096, "-I/--inline_size");
		break;
	case 'q':
		NUM(num_qps, 1, WMT_MAX_THREADS, "-q/--qp");
		break;
	case OPT_THREADS:
		NUM(threads, 1, WMT_MAX_THREADS, "--threads");
		o->threads_given = true;
		break;
	case OPT_SHARING:
		NUM(sharing, IBV_TD_SHARING_NONE, IBV_TD_SHARING_REGISTER,
		    "--sharing (1, 2 or 3)");
		break;
	case OPT_CONNECT_TIMEOUT:
		NUM(connect_timeout, 1, 86400, "--connect-timeout");
		break;
	case OPT_PEER_TIMEOUT:
		NUM(peer_timeout, 1, 86400, "--peer-timeout");
		break;
	default:
		if (c >= OPT_SHARE && c < OPT_SHARE + RES_COUNT) {
			long long v;

			if (parse_decimal(optarg, 1, WMT_MAX_THREADS, &v))
				return usage_error(
					"--share-X=%s: a number of threads",
					optarg);
			o->share[c - OPT_SHARE] = v;
			break;
		}
		return usage_error("%s", "unknown option");
	}
	return -1;
}

static int parse_one(struct wmt_options *o, int c)
{
	switch (c) {
	case 'd':
		o->ib_dev = optarg;
		break;
	case 'F':
		break;
	case OPT_ENDPOINTS:
		o->categories_given = true;
		if (wmt_parse_categories(o, optarg))
			return usage_error(
				"--endpoints=%s: unknown category (see --help)",
				optarg);
		break;
	case OPT_LOOPBACK:
		o->role = ROLE_LOOPBACK;
		break;
	case OPT_SERVER:
		o->server = optarg;
		break;
	case OPT_WARM_UP:
		o->warm_up = true;
		break;
	case OPT_NO_PIN:
		o->pin = false;
		break;
	case OPT_POLL:
	case OPT_BLUEFLAME:
		return parse_choice(o, c);
	case OPT_OUT_JSON:
		o->out_json = true;
		break;
	case OPT_OUT_JSON_FILE:
		o->out_json = true;
		o->json_file = optarg;
		break;
	case OPT_CSV:
		o->csv_file = optarg;
		break;
	case OPT_PLOT:
		o->plot_file = optarg;
		break;
	case OPT_SWEEP:
		return parse_sweep(o, optarg) ? PERFTEST_EXIT_USAGE : -1;
	case 'h':
		wmt_usage(stdout);
		return 0;
	case 'V':
	case OPT_VERSION:
		printf("ib_write_mt " PERFTEST_EXT_VERSION "\n");
		return 0;
	case 'a':
		/* perftest's sizes 2..8M: ours end at WMT_MAX_SIZE */
		o->sweep = SWEEP_SIZE;
		o->size = WMT_MAX_SIZE;
		o->size_given = true;
		break;
	case OPT_WIDE:
		o->wide = true;
		break;
	case OPT_LOCKSTEP:
		o->lockstep = true;
		break;
	case OPT_TD_FALLBACK:
		o->td_fallback = true;
		break;
	case OPT_DOORBELL:
		if (parse_doorbells(o, optarg))
			return usage_error(
				"--doorbell=%s: a list of bf, db, auto",
				optarg);
		break;
	case 'N':
		/* perftest: no peak bandwidth; there is none here to skip */
		break;
	default:
		return parse_numeric(o, c);
	}
	return -1;
}

/* the first host of a Slurm node list: "n[07-09,12],m" gives "n07" */
static const char *first_slurm_node(const char *list, char *buf, size_t len)
{
	size_t prefix = strcspn(list, "[,");

	if (list[prefix] != '[') {
		snprintf(buf, len, "%.*s", (int)prefix, list);
	} else {
		const char *num = list + prefix + 1;

		snprintf(buf, len, "%.*s%.*s", (int)prefix, list,
			 (int)strcspn(num, "-,]"), num);
	}
	return buf[0] ? buf : NULL;
}

/*
 * mpirun and srun say which of two ranks this is: rank 0 serves. The
 * client finds the server in Slurm's node list, or on this host when
 * Open MPI says both ranks are local; otherwise --server names it.
 */
static bool role_from_launcher(struct wmt_options *o)
{
	static char node[256];
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	const char *size = getenv("OMPI_COMM_WORLD_SIZE");
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	const char *nodes = NULL;

	if (!rank) {
		rank = getenv("SLURM_PROCID");
		size = getenv("SLURM_NTASKS");
		if (!size)
			size = getenv("SLURM_NPROCS");
		nodes = getenv("SLURM_JOB_NODELIST");
		if (!nodes)
			nodes = getenv("SLURM_NODELIST");
	}
	if (!rank || !size || strcmp(size, "2"))
		return false;
	o->role = !strcmp(rank, "0") ? ROLE_SERVER : ROLE_CLIENT;
	o->role_from_launcher = true;
	if (o->role == ROLE_CLIENT && !o->server) {
		if (nodes)
			o->server = first_slurm_node(nodes, node, sizeof(node));
		else if (local && size && !strcmp(local, size))
			o->server = "localhost";
	}
	return true;
}

static int check(struct wmt_options *o)
{
	if (o->lockstep) {
		o->tx_depth = o->post_list;
		o->cq_mod = 1;
	}
	if (o->post_list + o->cq_mod - 1 > o->tx_depth) {
		fprintf(stderr,
			"ib_write_mt: -l %u and -Q %u need -t of at least %u (a thread may hold Q-1 unsignaled WQEs and post P more)\n",
			o->post_list, o->cq_mod, o->post_list + o->cq_mod - 1);
		return PERFTEST_EXIT_USAGE;
	}
	for (unsigned int i = 0; i < o->ndb; i++)
		if (o->db_order[i] == DB_BF && !o->blueflame)
			return usage_error(
				"%s",
				"--doorbell=bf needs BlueFlame: not with --blueflame=off");
	if (o->sweep == SWEEP_SHARE && o->share[o->sweep_res])
		return usage_error(
			"--sweep=share-%s sets that --share option itself",
			wmt_res_name(o->sweep_res));
	if (o->role == ROLE_CLIENT && !o->server)
		return usage_error(
			"%s",
			o->role_from_launcher ?
				"the launcher does not say where rank 0 runs: give --server=HOST" :
				"the client needs the server's host name (ib_write_mt HOST or --server=HOST)");
	return -1;
}

int wmt_options_parse(struct wmt_options *o, int argc, char **argv)
{
	bool explicit_loopback = false, any_share = false;
	unsigned int i;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->ib_port = 1;
	o->gid_index = -1;
	o->tcp_port = 18515;
	o->size = 2;
	o->iters = 5000;
	o->repeat = 1;
	o->tx_depth = 128;
	o->post_list = 32;
	o->cq_mod = 64;
	o->inline_size = 220;
	o->blueflame = true;
	o->pin = true;
	o->peer_timeout = 30;
	o->ndb = 1; /* db_order[0]: DB_AUTO */
	optind = 1;
	o->role = ROLE_SERVER;
	while ((c = getopt_long(argc, argv, "d:i:x:p:s:n:D:t:l:Q:I:q:FhVaN",
				long_options, NULL)) != -1) {
		ret = parse_one(o, c == '?' ? -1 : c);
		if (ret >= 0)
			return ret;
		explicit_loopback |= c == OPT_LOOPBACK;
	}
	/* roles: --loopback, a host argument, the launcher, --server=HOST */
	if (optind + (explicit_loopback ? 0 : 1) < argc)
		return usage_error("unexpected argument '%s'", argv[argc - 1]);
	if (explicit_loopback) {
		o->role = ROLE_LOOPBACK;
	} else if (optind < argc) {
		o->server = argv[optind];
		o->role = ROLE_CLIENT;
	} else if (!role_from_launcher(o)) {
		o->role = o->server ? ROLE_CLIENT : ROLE_SERVER;
	}
	if (!o->threads)
		o->threads = default_threads();
	for (i = 0; i < RES_COUNT; i++)
		any_share |= o->share[i] != 0;
	if (!o->categories) {
		if (o->sharing == IBV_TD_SHARING_NONE)
			add_in_order(o, CAT_DYNAMIC);
		else if (o->sharing == IBV_TD_SHARING_PAGE)
			add_in_order(o, CAT_SHARED_DYNAMIC);
		else if (o->sharing == IBV_TD_SHARING_REGISTER)
			add_in_order(o, CAT_SHARED_UUAR);
		else if (any_share || o->num_qps || o->sweep == SWEEP_SHARE)
			add_in_order(o, CAT_XWAY);
		else
			wmt_parse_categories(o, wmt_category_sets[0].name);
	}
	if (o->out_json && !o->json_file)
		o->json_file = PERFTEST_JSON_DEFAULT;
	/*
	 * a few thousand messages take milliseconds: without -n a row runs
	 * for a while, as perftest's -D
	 */
	if (!o->iters_given && !o->duration)
		o->duration = WMT_DEFAULT_DURATION;
	/* without -s a size sweep spans perftest's -a range up to a page */
	if (o->sweep == SWEEP_SIZE && !o->size_given)
		o->size = 4096;
	return check(o);
}
