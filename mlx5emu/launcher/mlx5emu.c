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

#include "model.h"

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
		"\n"
		"run options:\n"
		"  --model=cx4|cx5|cx6     device model (default cx5)\n"
		"  --devices=N             number of HCAs, 1..%d (default 1)\n"
		"  --ports=N               ports per HCA, 1..%d (default 1)\n"
		"  --uar=static|dynamic    static: legacy bfregs + ALLOC_WC pages\n"
		"                          (write-only kernel, profile W);\n"
		"                          dynamic: UAR objects (profile H, default)\n"
		"  --transport=write|ioctl core commands via write() (default)\n"
		"                          or via the ioctl INVOKE_WRITE method of\n"
		"                          current kernels (native ioctl methods\n"
		"                          are not provided yet)\n"
		"  --uars-per-page=N       dynamic: 4 KB UARs per UAR object\n"
		"  --dyn-bfregs=N          static: num_dyn_bfregs per context\n"
		"                          (default 1024 = 512 ALLOC_WC pages)\n"
		"  --uar-limit=N           HW UARs a context may hold (0 = no limit)\n"
		"  --device-uars=N         HW UARs of the whole device (default: the\n"
		"                          model's, 8192 or 16384)\n"
		"  --fabric=NAME           the fabric to join (default: inherited\n"
		"                          MLX5EMU_FABRIC, else \"default\"); only\n"
		"                          processes on one fabric see each other\n"
		"  --trace[=FILE]          log every command (default: stderr)\n"
		"  --stat-dir=DIR          keep attribution records in DIR\n"
		"  --netlink=on|off        answer RDMA netlink sockets (default on);\n"
		"                          off: refused, libibverbs reads sysfs\n"
		"\n"
		"stat options:\n"
		"  --dir=DIR     attribution directory (default $MLX5EMU_STAT_DIR)\n"
		"  --pid=PID     only that process\n"
		"  --machine     print the raw key=value records\n"
		"  --json        the same records as a JSON array\n",
		EMU_MAX_DEVICES, EMU_MAX_PORTS);
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

static unsigned int parse_uint(const char *opt, const char *v, unsigned int min,
			       unsigned int max)
{
	unsigned long n;
	char *end;

	n = strtoul(v, &end, 0);
	if (!*v || *end || n < min || n > max) {
		fprintf(stderr, "mlx5emu: %s wants %u..%u, got '%s'\n", opt,
			min, max, v);
		exit(2);
	}
	return n;
}

/* v must be one of a, b: "mlx5emu: OPT is A or B" and exit 2 otherwise */
static const char *parse_choice(const char *opt, const char *v, const char *a,
				const char *b)
{
	if (strcmp(v, a) && strcmp(v, b)) {
		fprintf(stderr, "mlx5emu: %s is %s or %s\n", opt, a, b);
		exit(2);
	}
	return v;
}

static void setenv_uint(const char *name, unsigned int val)
{
	char num[32];

	snprintf(num, sizeof(num), "%u", val);
	setenv(name, num, 1);
}

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int cmd_run(int argc, char **argv)
{
	enum {
		O_MODEL = 256,
		O_DEVICES,
		O_PORTS,
		O_UAR,
		O_TRANSPORT,
		O_UPP,
		O_DYN,
		O_LIMIT,
		O_DEVUARS,
		O_FABRIC,
		O_TRACE,
		O_STATDIR,
		O_NETLINK
	};
	static const struct option opts[] = {
		{ "model", required_argument, NULL, O_MODEL },
		{ "devices", required_argument, NULL, O_DEVICES },
		{ "ports", required_argument, NULL, O_PORTS },
		{ "uar", required_argument, NULL, O_UAR },
		{ "transport", required_argument, NULL, O_TRANSPORT },
		{ "uars-per-page", required_argument, NULL, O_UPP },
		{ "dyn-bfregs", required_argument, NULL, O_DYN },
		{ "uar-limit", required_argument, NULL, O_LIMIT },
		{ "device-uars", required_argument, NULL, O_DEVUARS },
		{ "fabric", required_argument, NULL, O_FABRIC },
		{ "trace", optional_argument, NULL, O_TRACE },
		{ "stat-dir", required_argument, NULL, O_STATDIR },
		{ "netlink", required_argument, NULL, O_NETLINK },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const struct emu_model *model = emu_model_default();
	unsigned int devices = 1, ports = 1, upp = 1, dyn = 1024, limit = 0;
	unsigned int devuars = 0;
	const char *uar = "dynamic", *trace = NULL, *stat_dir = NULL;
	const char *transport = "write", *fabric = NULL, *netlink = "on";
	char self[PATH_MAX];
	ssize_t n;
	char tmpl[PATH_MAX], sys[PATH_MAX + 8], stat[PATH_MAX + 8];
	char lib[PATH_MAX], preload[2 * PATH_MAX];
	struct sigaction sa = { .sa_handler = forward };
	const char *tmpdir = getenv("TMPDIR");
	int c, status, ret;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case O_MODEL:
			model = emu_model_find(optarg);
			if (!model) {
				fprintf(stderr,
					"mlx5emu: unknown model '%s' (cx4, cx5, cx6)\n",
					optarg);
				return 2;
			}
			break;
		case O_DEVICES:
			devices = parse_uint("--devices", optarg, 1,
					     EMU_MAX_DEVICES);
			break;
		case O_PORTS:
			ports = parse_uint("--ports", optarg, 1, EMU_MAX_PORTS);
			break;
		case O_UAR:
			uar = parse_choice("--uar", optarg, "static",
					   "dynamic");
			break;
		case O_TRANSPORT:
			transport = parse_choice("--transport", optarg, "write",
						 "ioctl");
			break;
		case O_UPP:
			upp = parse_uint("--uars-per-page", optarg, 1, 16);
			break;
		case O_DYN:
			dyn = parse_uint("--dyn-bfregs", optarg, 0, 2048);
			break;
		case O_LIMIT:
			limit = parse_uint("--uar-limit", optarg, 0, 1 << 20);
			break;
		case O_DEVUARS:
			devuars = parse_uint("--device-uars", optarg, 1, 65000);
			break;
		case O_FABRIC:
			fabric = optarg;
			break;
		case O_TRACE:
			trace = optarg ? optarg : "stderr";
			break;
		case O_STATDIR:
			stat_dir = optarg;
			break;
		case O_NETLINK:
			netlink =
				parse_choice("--netlink", optarg, "on", "off");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (upp > 1 && !strcmp(uar, "static")) {
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
	snprintf(stat, sizeof(stat), "%s/stat", tmpl);
	if (stat_dir)
		snprintf(stat, sizeof(stat), "%s", stat_dir);
	ret = emu_sysfs_write(sys, model, devices, ports);
	if (!ret && mkdir(stat, 0755) && errno != EEXIST)
		ret = -errno;
	if (ret) {
		fprintf(stderr, "mlx5emu: cannot write %s: %s\n", tmpl,
			strerror(-ret));
		nftw(tmpl, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		return 1;
	}

	find_library(lib, sizeof(lib));
	if (getenv("LD_PRELOAD") && *getenv("LD_PRELOAD"))
		snprintf(preload, sizeof(preload), "%s:%s", lib,
			 getenv("LD_PRELOAD"));
	else
		snprintf(preload, sizeof(preload), "%s", lib);
	setenv("SYSFS_PATH", sys, 1);
	setenv("LD_PRELOAD", preload, 1);
	setenv("MLX5EMU_MODEL", model->name, 1);
	setenv_uint("MLX5EMU_DEVICES", devices);
	setenv_uint("MLX5EMU_PORTS", ports);
	setenv("MLX5EMU_UAR", uar, 1);
	setenv("MLX5EMU_TRANSPORT", transport, 1);
	setenv_uint("MLX5EMU_UARS_PER_PAGE", upp);
	setenv_uint("MLX5EMU_DYN_BFREGS", dyn);
	setenv_uint("MLX5EMU_UAR_LIMIT", limit);
	setenv("MLX5EMU_NETLINK", strcmp(netlink, "on") ? "0" : "1", 1);
	if (devuars)
		setenv_uint("MLX5EMU_DEVICE_UARS", devuars);
	else
		unsetenv("MLX5EMU_DEVICE_UARS");
	if (fabric)
		setenv("MLX5EMU_FABRIC", fabric, 1);
	if (trace)
		setenv("MLX5EMU_TRACE", trace, 1);
	else
		unsetenv("MLX5EMU_TRACE");
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

	child = fork();
	if (child < 0) {
		perror("mlx5emu: fork");
		return 1;
	}
	if (!child) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "mlx5emu: %s: %s\n", argv[optind],
			strerror(errno));
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
	nftw(tmpl, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
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

static void print_human(const char *line)
{
	char a[64], b[64], c[64], d[64], e[64], f[64], g[64];

	if (!strncmp(line, "process ", 8)) {
		printf("pid %s (%s)%s\n", field(line, "pid", a, sizeof(a)),
		       field(line, "comm", b, sizeof(b)),
		       strcmp(field(line, "exited", c, sizeof(c)), "1") ?
			       "" :
			       " exited");
	} else if (!strncmp(line, "context ", 8)) {
		printf("  context %s on %s, %s UARs: %s HW UARs held (tot_bfregs %s, static pages %s, num_dyn_bfregs %s)\n",
		       field(line, "ctx", a, sizeof(a)),
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
		char path[PATH_MAX + 256], line[1024];
		FILE *f;

		if (names[i]->d_name[0] == '.' ||
		    (pid && strcmp(pid, names[i]->d_name)))
			goto next;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		f = fopen(path, "r");
		if (!f)
			goto next;
		while (fgets(line, sizeof(line), f)) {
			/* the writer rewrites in place: stop at its end */
			if (!strncmp(line, "end ", 4))
				break;
			if (json)
				print_json(line, &first);
			else if (machine)
				fputs(line, stdout);
			else
				print_human(line);
		}
		fclose(f);
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
