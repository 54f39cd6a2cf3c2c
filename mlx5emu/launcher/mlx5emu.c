// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mlx5emu: run a program on the emulated ConnectX device, or show what the
 * emulated devices of running/finished programs hold.
 *
 *   mlx5emu run [options] -- COMMAND [ARGS...]
 *   mlx5emu stat [--dir=DIR] [--pid=PID] [--machine]
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

#include "fabric/peers.h"
#include "model.h"
#include "option.h"

#ifndef MLX5EMU_LIBDIR
#define MLX5EMU_LIBDIR "/usr/lib/mlx5emu"
#endif
#define LIBNAME "libmlx5emu.so"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mlx5emu run [OPTIONS] -- COMMAND [ARGS...]\n"
		"       mlx5emu stat [--dir=DIR] [--pid=PID] [--machine|--json]\n"
		"\n"
		"Runs COMMAND on an emulated mlx5 (ConnectX) device: the staged\n"
		"libibverbs and libmlx5 find mlx5_0.. through a generated sysfs\n"
		"tree and an LD_PRELOAD emulation of /dev/infiniband/uverbsN.\n"
		"\n");
	emu_option_usage(f);
	fprintf(f,
		"\n"
		"stat options:\n"
		"  --dir=DIR     attribution directory (default $MLX5EMU_STAT_DIR)\n"
		"  --pid=PID     only that process\n"
		"  --machine     print the raw key=value records\n"
		"  --json        the same records as a JSON array\n");
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void find_library(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (getenv("MLX5EMU_LIBRARY")) {
		snprintf(buf, len, "%s", getenv("MLX5EMU_LIBRARY"));
		return;
	}
	/* <prefix>/bin/mlx5emu -> <prefix>/lib/mlx5emu/libmlx5emu.so */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		snprintf(buf, len, "%s/lib/mlx5emu/" LIBNAME,
			 dirname(dirname(exe)));
		if (!access(buf, R_OK))
			return;
	}
	snprintf(buf, len, "%s/" LIBNAME, MLX5EMU_LIBDIR);
}

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/*
 * `run`'s options into given[] (NULL: not given); returns the index of
 * COMMAND in argv, or -1 with the exit status in *status.
 */
static int parse_run_options(int argc, char **argv, const char **given,
			     int *status)
{
	struct option longopts[EMU_NOPTIONS + 2] = {};
	unsigned int i, n = 0, val;
	char want[160];
	int c;

	for (i = 0; i < EMU_NOPTIONS; i++) {
		const struct emu_option *o = &emu_options[i];

		if (!o->name)
			continue;
		longopts[n].name = o->name;
		longopts[n].has_arg = o->flags & EMU_OPTF_OPTIONAL_ARG ?
					      optional_argument :
					      required_argument;
		longopts[n++].val = 256 + i;
	}
	longopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	*status = 2;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		const struct emu_option *o;
		const char *v;

		if (c == 'h') {
			usage(stdout);
			*status = 0;
			return -1;
		}
		if (c < 256) {
			usage(stderr);
			return -1;
		}
		o = &emu_options[c - 256];
		v = optarg ? optarg : o->implied;
		if (emu_option_parse(o, v, &val, want, sizeof(want))) {
			fprintf(stderr, "mlx5emu: --%s wants %s, got '%s'\n",
				o->name, want, v);
			return -1;
		}
		given[c - 256] = v;
	}
	if (optind >= argc) {
		usage(stderr);
		return -1;
	}
	return optind;
}

/* a number (or on|off: 1|0) option's value: as given, else its default */
static unsigned int run_uint(const char **given, enum emu_opt_id id)
{
	const struct emu_option *o = &emu_options[id];
	const char *v = given[id] ? given[id] : o->def;
	unsigned int n = 0;
	char want[64];

	if (v)
		emu_option_parse(o, v, &n, want, sizeof(want));
	return n;
}

/*
 * The environment of COMMAND: every option's variable (the library reads
 * it with the same table), numbers in decimal and on|off as 1|0. Not
 * given: the default, unset without one, or the inherited value.
 */
static void export_options(const char **given)
{
	unsigned int i;
	char num[32];

	for (i = 0; i < EMU_NOPTIONS; i++) {
		const struct emu_option *o = &emu_options[i];
		const char *v = given[i] ? given[i] : o->def;

		if (!o->name || (!given[i] && (o->flags & EMU_OPTF_INHERIT)))
			continue;
		if (!v) {
			unsetenv(o->var);
			continue;
		}
		if (o->kind == EMU_OPT_UINT || o->kind == EMU_OPT_BOOL) {
			snprintf(num, sizeof(num), "%u", run_uint(given, i));
			v = num;
		}
		setenv(o->var, v, 1);
	}
}

/* what the emulated processes find besides the options */
static void export_run(const char *lib, const char *sys, const char *stat)
{
	char preload[2 * PATH_MAX], self[PATH_MAX];
	ssize_t n;

	if (getenv("LD_PRELOAD") && *getenv("LD_PRELOAD"))
		snprintf(preload, sizeof(preload), "%s:%s", lib,
			 getenv("LD_PRELOAD"));
	else
		snprintf(preload, sizeof(preload), "%s", lib);
	setenv("SYSFS_PATH", sys, 1);
	setenv("LD_PRELOAD", preload, 1);
	setenv("MLX5EMU_STAT_DIR", stat, 1);
	/* so scripts under the launcher can call `$MLX5EMU stat` */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		setenv("MLX5EMU", self, 1);
	}
	/*
	 * libmlx5's Sandy Bridge check reads the real
	 * /sys/class/infiniband/<dev>/device/local_cpus unless told: the
	 * emulated device is local to every CPU.
	 */
	if (!getenv("MLX5_LOCAL_CPUS")) {
		char mask[32 * 9] = "";
		int i;

		for (i = 0; i < 32; i++)
			strcat(mask, i ? ",ffffffff" : "ffffffff");
		setenv("MLX5_LOCAL_CPUS", mask, 1);
	}
}

/* COMMAND's exit status, or 128 + the signal that ended it */
static int run_child(char **argv)
{
	struct sigaction sa = { .sa_handler = forward };
	int status;

	child = fork();
	if (child < 0) {
		perror("mlx5emu: fork");
		return 1;
	}
	if (!child) {
		execvp(argv[0], argv);
		fprintf(stderr, "mlx5emu: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR) {
			status = 1 << 8;
			break;
		}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * With --peers (or MLX5EMU_PEERS inherited): this host's index, which its
 * LIDs and GUIDs carry; -1, said on stderr, when the list does not name
 * this host or the secret is missing. 0 on a fabric of one host.
 */
static int run_host_index(const char **given)
{
	const struct emu_option *o = &emu_options[EMU_OPTION_FABRIC_SECRET];
	const char *list = given[EMU_OPTION_PEERS] ?: getenv("MLX5EMU_PEERS");
	const char *index =
		given[EMU_OPTION_HOST_INDEX] ?: getenv("MLX5EMU_HOST_INDEX");
	const char *secret = getenv(o->var);
	struct fabric_peers peers;
	unsigned int n;
	char err[160];

	if (!list || !*list)
		return 0;
	if (fabric_peers_parse(list, &peers, err, sizeof(err)) ||
	    fabric_peers_find_self(&peers, index, err, sizeof(err))) {
		fprintf(stderr, "mlx5emu: --peers: %s\n", err);
		return -1;
	}
	if (!secret || emu_option_parse(o, secret, &n, err, sizeof(err))) {
		fprintf(stderr,
			"mlx5emu: --peers needs %s: %u..%u characters that every host is given\n",
			o->var, o->min, o->max);
		return -1;
	}
	return peers.self;
}

static int cmd_run(int argc, char **argv)
{
	const char *given[EMU_NOPTIONS] = {};
	const char *tmpdir = getenv("TMPDIR"), *uar, *stat_dir;
	char tmpl[PATH_MAX], sys[PATH_MAX + 8], stat[PATH_MAX + 8];
	char lib[PATH_MAX];
	int cmd, status, ret, host;

	cmd = parse_run_options(argc, argv, given, &status);
	if (cmd < 0)
		return status;
	host = run_host_index(given);
	if (host < 0)
		return 2;
	uar = given[EMU_OPTION_UAR] ? given[EMU_OPTION_UAR] : "";
	if (run_uint(given, EMU_OPTION_UARS_PER_PAGE) > 1 &&
	    !strcmp(uar, "static")) {
		fprintf(stderr,
			"mlx5emu: --uars-per-page needs --uar=dynamic (static pages are one system page)\n");
		return 2;
	}

	snprintf(tmpl, sizeof(tmpl), "%s/mlx5emu.XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmpl)) {
		perror("mlx5emu: mkdtemp");
		return 1;
	}
	snprintf(sys, sizeof(sys), "%s/sys", tmpl);
	stat_dir = given[EMU_OPTION_STAT_DIR];
	if (stat_dir)
		snprintf(stat, sizeof(stat), "%s", stat_dir);
	else
		snprintf(stat, sizeof(stat), "%s/stat", tmpl);
	ret = emu_sysfs_write(
		sys,
		emu_model_find(given[EMU_OPTION_MODEL] ?:
				       emu_options[EMU_OPTION_MODEL].def),
		host, run_uint(given, EMU_OPTION_DEVICES),
		run_uint(given, EMU_OPTION_PORTS));
	if (!ret && mkdir(stat, 0755) && errno != EEXIST)
		ret = -errno;
	if (ret) {
		fprintf(stderr, "mlx5emu: cannot write %s: %s\n", tmpl,
			strerror(-ret));
		nftw(tmpl, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		return 1;
	}

	find_library(lib, sizeof(lib));
	export_options(given);
	export_run(lib, sys, stat);
	status = run_child(argv + cmd);
	nftw(tmpl, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return status;
}

/* ------------------------------------------------------------------ */

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
	char a[64], b[64], c[64], d[64], e[64], f[64], g[64];

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

static int cmd_stat(int argc, char **argv)
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
			usage(stdout);
			return 0;
		default:
			usage(stderr);
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

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1);
	fprintf(stderr, "mlx5emu: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
