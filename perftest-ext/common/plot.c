// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Charts through gnuplot: the data file, the script and the run. */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"

extern char **environ;

const char *plot_terminal(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot)
		return NULL;
	/* noenhanced: titles and labels are tool and user text, never
	 * markup ("ib_write_mt" would lose its underscores to subscripts) */
	if (!strcasecmp(dot, ".svg"))
		return "svg dynamic noenhanced font 'sans,10'";
	if (!strcasecmp(dot, ".png"))
		return "pngcairo noenhanced font 'sans,9'";
	return NULL;
}

/* gnuplot string literal: single quotes, doubled inside */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

/* one row per label, the series of every panel one after another */
static int write_data(const struct plot_spec *spec, FILE *f)
{
	unsigned int i, p, s;

	for (i = 0; i < spec->nlabels; i++) {
		const char *l = spec->labels[i];

		for (; *l; l++)
			fputc(*l == '\t' || *l == '\n' ? ' ' : *l, f);
		if (spec->x)
			fprintf(f, "\t%.9g", spec->x[i]);
		for (p = 0; p < spec->npanels; p++)
			for (s = 0; s < spec->panels[p].nseries; s++) {
				double v = spec->panels[p].series[s].values[i];

				if (isfinite(v))
					fprintf(f, "\t%.9g", v);
				else
					fputs("\tNaN", f);
			}
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

/* Okabe and Ito's palette: told apart with every kind of colour blindness */
static const char *const colours[] = { "#0072B2", "#E69F00", "#009E73",
				       "#CC79A7", "#56B4E9", "#D55E00",
				       "#F0E442", "#000000" };

static int write_script(const struct plot_spec *spec, const char *term,
			const char *data, const char *out, FILE *f)
{
	unsigned int p, s, col = spec->x ? 3 : 2, i;

	fprintf(f, "set terminal %s size %u,440\n", term,
		380 * (spec->npanels ? spec->npanels : 1) + 120);
	fputs("set output ", f);
	put_quoted(f, out);
	fputs("\nset datafile separator '\\t'\nset datafile missing 'NaN'\n"
	      "set key below spacing 1.3\nset grid ytics\nset yrange [0:*]\n"
	      /* headroom: the highest point 10% under the top */
	      "set offsets 0, 0, graph 0.1, 0\n",
	      f);
	/* 8 colours; past them a dash and other markers: no two alike */
	for (i = 0; i < 3 * 8; i++)
		fprintf(f,
			"set linetype %u lc rgb '%s' lw 2 pt %u ps 1.2 dt %u\n",
			i + 1, colours[i % 8], i % 11 + 1, i / 8 + 1);
	if (spec->x)
		fprintf(f, "set style data linespoints\nset xtics nomirror\n%s",
			spec->logx ? "set logscale x 2\n" : "");
	else
		fputs("set style data histograms\n"
		      "set style histogram clustered gap 1\n"
		      "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
		      "set xtics rotate by -30 nomirror\n",
		      f);
	fprintf(f, "set multiplot layout 1,%u title ", spec->npanels);
	put_quoted(f, spec->title);
	fputc('\n', f);
	for (p = 0; p < spec->npanels; p++) {
		const struct plot_panel *panel = &spec->panels[p];

		fputs("set title ", f);
		put_quoted(f, panel->title);
		fputs("\nset ylabel ", f);
		put_quoted(f, panel->ylabel);
		fputs("\nset xlabel ", f);
		put_quoted(f, spec->xlabel);
		/* clear of the legend below it */
		fputs(" offset 0,0.6", f);
		/* a legend only where there is more than one series */
		fputs(panel->nseries > 1 ? "\nset key\n" : "\nunset key\n", f);
		fputs("plot ", f);
		for (s = 0; s < panel->nseries; s++, col++) {
			fputs(s ? ", '' " : "", f);
			if (!s)
				put_quoted(f, data);
			if (spec->x)
				fprintf(f, " using 2:%u title ", col);
			else
				fprintf(f, " using %u:xtic(1) title ", col);
			put_quoted(f, panel->series[s].name);
		}
		fputc('\n', f);
	}
	fputs("unset multiplot\n", f);
	return ferror(f) ? -1 : 0;
}

static int run_gnuplot(const char *script, char *err, size_t errlen)
{
	char *argv[] = { "gnuplot", (char *)script, NULL };
	int ret, status;
	pid_t pid;

	ret = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (ret) {
		snprintf(
			err, errlen,
			"cannot run gnuplot (%s); install Debian's gnuplot-nox",
			strerror(ret));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(err, errlen, "waitpid: %s", strerror(errno));
			return -1;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "gnuplot failed (status 0x%x)", status);
		return -1;
	}
	return 0;
}

/* a temporary file next to nothing else: $TMPDIR or /tmp */
static FILE *temp_file(char *name, size_t len, const char *what)
{
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(name, len, "%s/perftest-ext-%s.XXXXXX", dir ? dir : "/tmp",
		 what);
	fd = mkstemp(name);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(name);
	}
	return f;
}

int plot_render(const struct plot_spec *spec, const char *path, char *err,
		size_t errlen)
{
	char data[4096], script[4096];
	const char *term = plot_terminal(path);
	FILE *df, *sf = NULL;
	int ret = -1;

	if (!term) {
		snprintf(err, errlen,
			 "%s: the plot must be a .svg or .png file", path);
		return -1;
	}
	df = temp_file(data, sizeof(data), "data");
	if (!df) {
		snprintf(err, errlen, "temporary file: %s", strerror(errno));
		return -1;
	}
	sf = temp_file(script, sizeof(script), "plot");
	if (!sf) {
		snprintf(err, errlen, "temporary file: %s", strerror(errno));
		goto out_data;
	}
	if (write_data(spec, df) | write_script(spec, term, data, path, sf) |
	    fclose(df) | fclose(sf)) {
		df = sf = NULL;
		snprintf(err, errlen, "writing the plot input failed");
		goto out_script;
	}
	df = sf = NULL;
	ret = run_gnuplot(script, err, errlen);
	if (!ret && access(path, F_OK)) {
		snprintf(err, errlen, "gnuplot wrote no %s", path);
		ret = -1;
	}
out_script:
	if (sf)
		fclose(sf);
	unlink(script);
out_data:
	if (df)
		fclose(df);
	unlink(data);
	return ret;
}
