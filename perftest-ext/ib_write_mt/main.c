// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_write_mt: for each sweep point and each category, one row (row.c);
 * then the table, JSON, CSV and plot (report*.c).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "options.h"
#include "output_file.h"
#include "peer.h"
#include "plot.h"
#include "sendloop.h"

/* the shell's status for a run stopped by Ctrl-C (128 + SIGINT) */
#define EXIT_INTERRUPTED 130

#define MAX_SWEEP 16
/* every sweep point in each --doorbell mode */
#define MAX_POINTS (MAX_SWEEP * DB_COUNT)

struct point {
	struct wmt_options o;
	char name[32];
};

static unsigned int powers(unsigned int *v, unsigned int from, unsigned int to)
{
	unsigned int n = 0, x;

	for (x = from; x <= to && n < MAX_SWEEP; x *= 2)
		v[n++] = x;
	if (n && v[n - 1] != to && to > from && n < MAX_SWEEP)
		v[n++] = to;
	return n;
}

/* the configurations --sweep asks for (one without it) */
static unsigned int sweep_values(const struct wmt_options *o, struct point *p)
{
	unsigned int v[MAX_SWEEP], n = 0, i, k = 0;

	switch (o->sweep) {
	case SWEEP_NONE:
		p[0].o = *o;
		p[0].name[0] = 0;
		return 1;
	case SWEEP_THREADS:
		n = powers(v, 1, o->threads);
		break;
	case SWEEP_POSTLIST:
		n = powers(v, 1, o->post_list);
		break;
	case SWEEP_UNSIGNALED:
		n = powers(v, 1, o->cq_mod);
		break;
	case SWEEP_SIZE:
		n = powers(v, wmt_sweep_first(o), o->size);
		break;
	case SWEEP_SHARE:
		n = powers(v, 1, o->threads);
		break;
	}
	for (i = 0; i < n; i++) {
		struct wmt_options *q = &p[k].o;

		*q = *o;
		switch (o->sweep) {
		case SWEEP_THREADS:
			q->threads = v[i];
			snprintf(p[k].name, sizeof(p[k].name), "threads=%u",
				 v[i]);
			break;
		case SWEEP_POSTLIST:
			q->post_list = v[i];
			if (q->lockstep)
				q->tx_depth = v[i];
			snprintf(p[k].name, sizeof(p[k].name), "p=%u", v[i]);
			break;
		case SWEEP_UNSIGNALED:
			q->cq_mod = v[i];
			snprintf(p[k].name, sizeof(p[k].name), "q=%u", v[i]);
			break;
		case SWEEP_SIZE:
			q->size = v[i];
			snprintf(p[k].name, sizeof(p[k].name), "size=%u", v[i]);
			break;
		default:
			if (o->threads % v[i])
				continue;
			q->share[o->sweep_res] = v[i];
			snprintf(p[k].name, sizeof(p[k].name), "share-%s=%u",
				 wmt_res_name(o->sweep_res), v[i]);
			break;
		}
		/* a point the send loop cannot run (p + q - 1 > d) is left out */
		if (q->post_list + q->cq_mod - 1 > q->tx_depth)
			continue;
		k++;
	}
	return k;
}

/* the sweep's points, each in every --doorbell mode in turn */
static unsigned int sweep_points(const struct wmt_options *o, struct point *p)
{
	struct point one[MAX_SWEEP];
	unsigned int n = sweep_values(o, one), i, d, k = 0;

	for (i = 0; i < n; i++)
		for (d = 0; d < o->ndb; d++) {
			p[k] = one[i];
			p[k].o.doorbell = o->db_order[d];
			k++;
		}
	return k;
}

static struct ibv_device *find_device(const struct wmt_options *o,
				      struct ibv_device ***list)
{
	int n, i;

	*list = ibv_get_device_list(&n);
	if (!*list || !n) {
		fprintf(stderr, "ib_write_mt: no RDMA device found\n");
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!o->ib_dev ||
		    !strcmp(ibv_get_device_name((*list)[i]), o->ib_dev))
			return (*list)[i];
	fprintf(stderr, "ib_write_mt: no device %s\n", o->ib_dev);
	return NULL;
}

/* the exit code that tells most about a run with these rows */
static int worst(int a, int b)
{
	static const int rank[] = {
		[PERFTEST_EXIT_OK] = 0,	      [PERFTEST_EXIT_UNAVAILABLE] = 1,
		[PERFTEST_EXIT_OUTPUT] = 2,   [PERFTEST_EXIT_DEVICE] = 3,
		[PERFTEST_EXIT_TIMEOUT] = 4,  [PERFTEST_EXIT_DISCONNECT] = 5,
		[PERFTEST_EXIT_PROTOCOL] = 6, [PERFTEST_EXIT_VERSION] = 7,
		[PERFTEST_EXIT_PEER] = 8,     [PERFTEST_EXIT_USAGE] = 9,
		[PERFTEST_EXIT_VERIFY] = 10,
	};

	return rank[b] > rank[a] ? b : a;
}

/* every layout of every point, before anything runs */
static int check_layouts(const struct point *p, unsigned int npoints)
{
	struct wmt_layout l;
	char err[256];
	unsigned int i, c;

	for (i = 0; i < npoints; i++)
		for (c = 0; c < CAT_COUNT; c++)
			if ((p[i].o.categories & (1u << c)) &&
			    wmt_layout_resolve(&p[i].o, c, p[i].o.threads, &l,
					       err, sizeof(err))) {
				fprintf(stderr, "ib_write_mt: %s%s%s\n", err,
					p[i].name[0] ? " at " : "", p[i].name);
				return PERFTEST_EXIT_USAGE;
			}
	return 0;
}

/* every output file can be written, before anything runs */
static int check_outputs(const struct wmt_options *o)
{
	if (o->plot_file && !plot_terminal(o->plot_file)) {
		fprintf(stderr,
			"ib_write_mt: --plot=%s: a .svg or .png file, please\n",
			o->plot_file);
		return PERFTEST_EXIT_USAGE;
	}
	if ((o->json_file && output_check("ib_write_mt", o->json_file)) ||
	    (o->csv_file && output_check("ib_write_mt", o->csv_file)) ||
	    (o->plot_file && output_check("ib_write_mt", o->plot_file)))
		return PERFTEST_EXIT_OUTPUT;
	return 0;
}

static int write_outputs(const struct wmt_options *o, struct wmt_row *rows,
			 unsigned int n, bool complete)
{
	char err[256];
	int ret = 0;

	if (o->out_json)
		ret = worst(ret, wmt_report_json(o->json_file, o, rows, n,
						 complete));
	if (o->csv_file)
		ret = worst(ret, wmt_report_csv(o->csv_file, rows, n));
	if (o->plot_file) {
		if (wmt_report_plot(o->plot_file, o, rows, n, err,
				    sizeof(err))) {
			fprintf(stderr, "ib_write_mt: plot: %s\n", err);
			ret = worst(ret, PERFTEST_EXIT_OUTPUT);
		} else {
			printf(" Plot: %s\n", o->plot_file);
		}
	}
	return ret;
}

static struct point points[MAX_POINTS];
static unsigned int npoints;

static int run_rows(const struct wmt_options *o, struct ibv_device *dev)
{
	unsigned int i, k, n = 0;
	struct wmt_client *client = NULL;
	struct wmt_loopback lb = { .dev = dev };
	const struct wmt_target_ops *ops = &wmt_loopback_ops;
	struct wmt_row *rows;
	void *arg = &lb;
	int ret = 0;

	rows = calloc(npoints * CAT_COUNT, sizeof(*rows));
	if (!rows)
		return PERFTEST_EXIT_DEVICE;
	if (o->role == ROLE_CLIENT) {
		client = wmt_client_open(o, &ret);
		if (!client)
			goto out;
		ops = &wmt_client_ops;
		arg = client;
	}
	wmt_report_header(stdout, o);
	wmt_report_table_head(stdout, o);
	for (i = 0; i < npoints && !wmt_interrupted; i++)
		for (k = 0; k < o->ncats && !wmt_interrupted; k++) {
			struct wmt_row *r = &rows[n];
			unsigned int c = o->order[k];
			int status;

			lb.o = &points[i].o;
			status = wmt_run_row_repeated(&points[i].o, c, dev, ops,
						      arg, r);
			snprintf(r->point, sizeof(r->point), "%s",
				 points[i].name);
			wmt_report_row(stdout, r, o);
			n++;
			ret = worst(ret, status);
			if (status && status != PERFTEST_EXIT_UNAVAILABLE &&
			    status != PERFTEST_EXIT_VERIFY)
				fprintf(stderr, "ib_write_mt: %s: %s\n",
					r->label, r->reason);
			/* the connection is gone: no further rows */
			if (status >= PERFTEST_EXIT_PROTOCOL &&
			    status <= PERFTEST_EXIT_TIMEOUT)
				goto done;
		}
done:
	if (client)
		ret = worst(ret, wmt_client_close(client));
	wmt_report_table_end(stdout, o->wide);
	ret = worst(ret, write_outputs(o, rows, n, !wmt_interrupted));
	if (wmt_interrupted) {
		fprintf(stderr,
			"ib_write_mt: interrupted: %u row(s) done, reported as an incomplete run\n",
			n);
		ret = EXIT_INTERRUPTED;
	}
out:
	free(rows);
	return ret;
}

static void interrupted(int sig)
{
	(void)sig;
	wmt_interrupted = 1;
}

/* the first Ctrl-C ends the run with the rows done; a second one kills */
static void on_interrupt(void)
{
	struct sigaction sa = { .sa_handler = interrupted,
				.sa_flags = SA_RESETHAND };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct ibv_device **list = NULL, *dev;
	struct wmt_options o;
	int ret;

	ret = wmt_options_parse(&o, argc, argv);
	if (ret >= 0)
		return ret;
	/* impossible combinations are told before anything runs */
	npoints = sweep_points(&o, points);
	if (o.role != ROLE_SERVER) {
		ret = check_layouts(points, npoints);
		if (ret)
			return ret;
	}
	ret = check_outputs(&o);
	if (ret)
		return ret;
	/* a peer that goes away must not kill us with SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	on_interrupt();
	/* libmlx5 reads it when the context opens */
	if (!o.blueflame)
		setenv("MLX5_SHUT_UP_BF", "1", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	dev = find_device(&o, &list);
	if (dev) /* the header and JSON name the device the run used */
		o.ib_dev = ibv_get_device_name(dev);
	if (!dev)
		ret = PERFTEST_EXIT_DEVICE;
	else if (o.role == ROLE_SERVER)
		ret = wmt_server_main(&o, dev);
	else
		ret = run_rows(&o, dev);
	if (list)
		ibv_free_device_list(list);
	return ret;
}
