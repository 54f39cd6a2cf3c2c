// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mlx5emu run: write the sysfs tree of the emulated devices, export the
 * options and LD_PRELOAD, run the program and clean up after it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/peers.h"
#include "base/model.h"
#include "base/option.h"
#include "launcher.h"

#ifndef MLX5EMU_LIBDIR
#define MLX5EMU_LIBDIR "/usr/lib/mlx5emu"
#endif
#define LIBNAME "libmlx5emu.so"

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
static bool child_shares_group;

/*
 * A signal COMMAND already has must not be sent again: ib_write_mt, like
 * many tools, takes a second SIGINT as "stop now, write nothing". In a
 * shared group, the terminal's signals (SI_KERNEL) and those of a process
 * of the group (kill(0, sig)) went to COMMAND too. In its own group, only
 * we can have passed a signal on.
 */
static bool child_has_it(const siginfo_t *si)
{
	if (!child_shares_group)
		return false;
	if (si->si_code == SI_KERNEL)
		return true;
	return si->si_code == SI_USER && si->si_pid > 0 &&
	       getpgid(si->si_pid) == getpgrp();
}

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child > 0 && !child_has_it(si))
		kill(child, sig);
}

/* the launcher is the foreground job of its controlling terminal */
static bool tty_foreground(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	bool fg;

	if (fd < 0)
		return false;
	fg = tcgetpgrp(fd) == getpgrp();
	close(fd);
	return fg;
}

/*
 * On a terminal's foreground COMMAND stays in our group, so that Ctrl-C,
 * Ctrl-Z and its reads work as without us. Elsewhere (CI, a harness, a
 * background job) it gets a group of its own: a kill of our group then
 * reaches it once, through forward(), and dies with us on SIGKILL.
 */
static void child_group(pid_t parent)
{
	if (child_shares_group)
		return;
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(128 + SIGKILL);
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
			launcher_usage(stdout);
			*status = 0;
			return -1;
		}
		if (c < 256) {
			launcher_usage(stderr);
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
		launcher_usage(stderr);
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
	struct sigaction sa = { .sa_sigaction = forward,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	pid_t parent = getpid();
	int status;

	child_shares_group = tty_foreground();
	child = fork();
	if (child < 0) {
		perror("mlx5emu: fork");
		return 1;
	}
	if (!child) {
		child_group(parent);
		execvp(argv[0], argv);
		fprintf(stderr, "mlx5emu: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (!child_shares_group)
		setpgid(child, child);
	sigemptyset(&sa.sa_mask);
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

int cmd_run(int argc, char **argv)
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
