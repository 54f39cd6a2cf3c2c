// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mlx5emu stat: the attribution records of running and finished programs
 * ($MLX5EMU_STAT_DIR/<pid>), as text, raw records or JSON.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/peers.h"
#include "base/model.h"
#include "base/option.h"
#include "launcher.h"

static const char *field(const char *line, const char *key, char *buf,
			 size_t len)
{
	size_t klen = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[klen] == '=') {
			size_t n;

			p += klen + 1;
			n = strcspn(p, " \n");
			if (n >= len)
				n = len - 1;
			memcpy(buf, p, n);
			buf[n] = 0;
			return buf;
		}
		p += klen;
	}
	buf[0] = 0;
	return buf;
}

/* "datagrams on mlx5_0: 5 delivered, dropped: no_wqe 3 qkey 1" */
static void print_datagrams(const char *line)
{
	char buf[1024], dev[64], delivered[32], *save, *tok;
	bool dropped = false;

	printf("  datagrams on %s: %s delivered",
	       field(line, "dev", dev, sizeof(dev)),
	       field(line, "delivered", delivered, sizeof(delivered)));
	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "\n")] = 0;
	strtok_r(buf, " ", &save);
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq || !strncmp(tok, "pid=", 4) ||
		    !strncmp(tok, "dev=", 4) ||
		    !strncmp(tok, "delivered=", 10) || !strcmp(eq, "=0"))
			continue;
		*eq = ' ';
		printf("%s %s", dropped ? "," : ", dropped:", tok);
		dropped = true;
	}
	printf("\n");
}

/* a process's records, up to its "end" (the writer rewrites in place) */
struct records {
	char **line;
	size_t n;
};

static int read_records(FILE *f, struct records *r)
{
	char buf[1024], **more;

	r->line = NULL;
	r->n = 0;
	while (fgets(buf, sizeof(buf), f) && strncmp(buf, "end ", 4)) {
		more = realloc(r->line, (r->n + 1) * sizeof(*r->line));
		if (!more)
			return -1;
		r->line = more;
		r->line[r->n] = strdup(buf);
		if (!r->line[r->n])
			return -1;
		r->n++;
	}
	return 0;
}

static void free_records(struct records *r)
{
	while (r->n)
		free(r->line[--r->n]);
	free(r->line);
}

/*
 * What a context does, from its records: its QPs rang doorbells (it sends:
 * an initiator), or it has QPs that rang none (they are written into: a
 * target, or a sender that has not started yet).
 */
static void print_role(const struct records *r, const char *ctx)
{
	unsigned long long rang = 0;
	unsigned int qps = 0;
	char v[64];
	size_t i;

	for (i = 0; i < r->n; i++) {
		const char *line = r->line[i];

		if (strcmp(field(line, "ctx", v, sizeof(v)), ctx))
			continue;
		if (!strncmp(line, "qp ", 3))
			qps++;
		else if (!strncmp(line, "ring ", 5))
			rang += strtoull(field(line, "count", v, sizeof(v)),
					 NULL, 10);
	}
	if (rang)
		printf(" (initiator: its QPs rang %llu doorbells)", rang);
	else if (qps)
		printf(" (target: its QPs rang no doorbell)");
}

static void print_human(const struct records *r, const char *line)
{
	char a[64], b[64], c[64], d[64], e[64], f[64], g[64], h[64], k[64];

	if (!strncmp(line, "process ", 8)) {
		printf("pid %s (%s)%s", field(line, "pid", a, sizeof(a)),
		       field(line, "comm", b, sizeof(b)),
		       strcmp(field(line, "state", c, sizeof(c)), "exited") ?
			       "" :
			       " exited");
		/* the NIC thread's scheduling class; other is the slow mode */
		field(line, "nic", d, sizeof(d));
		if (*d && strcmp(d, "none"))
			printf(", NIC thread %s%s", d,
			       strcmp(d, "other") ? "" : " (slow mode)");
		printf("\n");
	} else if (!strncmp(line, "context ", 8)) {
		printf("  context %s", field(line, "ctx", a, sizeof(a)));
		print_role(r, a);
		printf(" on %s, %s UARs: %s HW UARs held (tot_bfregs %s, static pages %s, num_dyn_bfregs %s)\n",
		       field(line, "dev", b, sizeof(b)),
		       field(line, "uar", c, sizeof(c)),
		       field(line, "uars", d, sizeof(d)),
		       field(line, "tot_bfregs", e, sizeof(e)),
		       field(line, "static_pages", f, sizeof(f)),
		       field(line, "num_dyn_bfregs", g, sizeof(g)));
		if (strcmp(field(line, "refused", a, sizeof(a)), "0") && *a)
			printf("    %s UAR requests refused, the last: %s\n", a,
			       field(line, "last_refused", b, sizeof(b)));
	} else if (!strncmp(line, "page ", 5)) {
		printf("    page %-8s %-8s via %-14s index %-4s mapped %s qps %s cqs %s%s\n",
		       field(line, "page_id", a, sizeof(a)),
		       field(line, "kind", b, sizeof(b)),
		       field(line, "how", c, sizeof(c)),
		       field(line, "index", d, sizeof(d)),
		       field(line, "mapped", e, sizeof(e)),
		       field(line, "qps", f, sizeof(f)),
		       field(line, "cqs", g, sizeof(g)),
		       strcmp(field(line, "destroyed", a, sizeof(a)), "1") ?
			       "" :
			       " (destroyed)");
	} else if (!strncmp(line, "qp ", 3)) {
		printf("    qp %-8s on page %s (uar %s) via %s",
		       field(line, "qpn", a, sizeof(a)),
		       field(line, "page_id", b, sizeof(b)),
		       field(line, "uar", c, sizeof(c)),
		       field(line, "how", d, sizeof(d)));
		field(line, "bfreg", e, sizeof(e));
		if (strcmp(e, "-1"))
			printf(", bfreg %s", e);
		printf("\n");
	} else if (!strncmp(line, "ring ", 5)) {
		/* doorbells the NIC saw: the real thread-to-uUAR mapping */
		printf("    ring qp %-8s on page %s slot %s: %s doorbells\n",
		       field(line, "qpn", a, sizeof(a)),
		       field(line, "page_id", b, sizeof(b)),
		       field(line, "slot", c, sizeof(c)),
		       field(line, "count", d, sizeof(d)));
	} else if (!strncmp(line, "traffic ", 8)) {
		/* what the NIC counted: MMIO writes, then its DMA */
		printf("    traffic qp %-8s: %s BlueFlame copies (%s blocks), %s doorbells; fetched %s of %s WQE blocks, payload %s read %s written, %s CQEs\n",
		       field(line, "qpn", a, sizeof(a)),
		       field(line, "bf", b, sizeof(b)),
		       field(line, "bf_blocks", c, sizeof(c)),
		       field(line, "db", d, sizeof(d)),
		       field(line, "fetched_bbs", e, sizeof(e)),
		       field(line, "wqe_bbs", f, sizeof(f)),
		       field(line, "payload_read", g, sizeof(g)),
		       field(line, "payload_written", h, sizeof(h)),
		       field(line, "cqes", k, sizeof(k)));
	} else if (!strncmp(line, "datagrams ", 10)) {
		print_datagrams(line);
	}
}

/* one record as a JSON object: numbers where the value is one */
static void print_json(const char *line, bool *first)
{
	char buf[1024], *save, *tok;

	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "\n")] = 0;
	tok = strtok_r(buf, " ", &save);
	if (!tok)
		return;
	printf("%s{\"record\":\"%s\"", *first ? "" : ",\n", tok);
	*first = false;
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '='), *end;
		unsigned long long v;

		if (!eq)
			continue;
		*eq++ = 0;
		v = strtoull(eq, &end, 0);
		if (*eq && !*end && *eq != '-')
			printf(",\"%s\":%llu", tok, v);
		else if (!strcmp(eq, "-1"))
			printf(",\"%s\":-1", tok);
		else
			printf(",\"%s\":\"%s\"", tok, eq);
	}
	printf("}");
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "machine", no_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *dir = getenv("MLX5EMU_STAT_DIR"), *pid = NULL;
	struct dirent **names;
	bool machine = false, json = false, first = true;
	int c, n, i;

	while ((c = getopt_long(argc, argv, "d:p:mjh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'p':
			pid = optarg;
			break;
		case 'm':
			machine = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			launcher_usage(stdout);
			return 0;
		default:
			launcher_usage(stderr);
			return 2;
		}
	}
	if (!dir) {
		fprintf(stderr,
			"mlx5emu stat: no --dir and no MLX5EMU_STAT_DIR (run it under 'mlx5emu run' or pass --dir)\n");
		return 2;
	}
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "mlx5emu stat: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (json)
		printf("[");
	for (i = 0; i < n; i++) {
		char path[PATH_MAX + 256];
		struct records r;
		size_t k;
		FILE *f;

		if (names[i]->d_name[0] == '.' ||
		    (pid && strcmp(pid, names[i]->d_name)))
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		f = fopen(path, "r");
		if (!f)
			goto next;
		if (read_records(f, &r))
			fprintf(stderr, "mlx5emu stat: %s: %s\n", path,
				strerror(ENOMEM));
		fclose(f);
		for (k = 0; k < r.n; k++) {
			if (json)
				print_json(r.line[k], &first);
			else if (machine)
				fputs(r.line[k], stdout);
			else
				print_human(&r, r.line[k]);
		}
		free_records(&r);
	next:
		free(names[i]);
	}
	free(names);
	if (json)
		printf("]\n");
	return 0;
}
