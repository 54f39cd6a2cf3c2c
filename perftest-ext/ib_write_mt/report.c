// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The results as a table, JSON, CSV and a plot. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const role_names[] = {
	[ROLE_LOOPBACK] = "loopback",
	[ROLE_SERVER] = "server",
	[ROLE_CLIENT] = "client",
};

double wmt_row_mem_per_ep(const struct wmt_row *r)
{
	const struct wmt_usage *u = &r->usage;

	return (double)(u->qp_bytes + u->cq_bytes + u->buf_bytes +
			(uint64_t)u->uar_pages * 4096) /
	       (r->l.threads ? r->l.threads : 1);
}

void wmt_row_levels(const struct wmt_row *r, char *buf, size_t len)
{
	unsigned int lv;
	size_t off = 0;

	buf[0] = 0;
	for (lv = 1; lv <= 4 && off < len; lv++)
		if (r->usage.levels[lv])
			off += snprintf(buf + off, len - off, "%sL%u:%u",
					off ? " " : "", lv,
					r->usage.levels[lv]);
}

void wmt_row_td_granted(const struct wmt_row *r, char *buf, size_t len)
{
	unsigned int lv;
	size_t off = 0;

	buf[0] = 0;
	if (!r->usage.td_degraded)
		return;
	for (lv = 1; lv <= 3 && off < len; lv++)
		if (r->usage.td_granted[lv])
			off += snprintf(buf + off, len - off, "%s%u:%u",
					off ? " " : "", lv,
					r->usage.td_granted[lv]);
}

const char *wmt_swept(const struct wmt_options *o, enum wmt_sweep what,
		      unsigned int value, char *buf, size_t len)
{
	if (o->sweep == what && value > wmt_sweep_first(o))
		snprintf(buf, len, "%u..%u", wmt_sweep_first(o), value);
	else
		snprintf(buf, len, "%u", value);
	return buf;
}

/* the compact table fits 120 columns; --wide has every figure */
#define WIDTH_COMPACT 114
#define WIDTH_WIDE 216

static void line(FILE *f, bool wide)
{
	int i;

	for (i = 0; i < (wide ? WIDTH_WIDE : WIDTH_COMPACT); i++)
		fputc('-', f);
	fputc('\n', f);
}

bool wmt_emulated(void)
{
	return getenv("MLX5EMU_UAR") != NULL;
}

const char wmt_emulated_note[] =
	"emulated rates measure the emulator's software NIC, not a device; the resources (contexts, QPs, UAR pages, memory) are the device's";

void wmt_report_header(FILE *f, const struct wmt_options *o)
{
	char run[48], thr[24], pl[24], cq[24], size[24];

	if (o->duration)
		snprintf(run, sizeof(run), "%u s", o->duration);
	else
		snprintf(run, sizeof(run), "%" PRIu64 " per thread", o->iters);
	line(f, o->wide);
	fputs("                    RDMA_Write multithreaded message rate (ib_write_mt)\n",
	      f);
	fprintf(f, " Device          : %s%s\n", o->ib_dev ? o->ib_dev : "?",
		wmt_emulated() ? " (emulated by mlx5emu)" : "");
	if (wmt_emulated())
		fputs(" Note            : emulated rates measure the emulator's software NIC, not a device;\n"
		      "                   the resources (contexts, QPs, UAR pages, memory) are the device's\n",
		      f);
	fprintf(f,
		" Connection type : RC\t\tUsing %s\n"
		" TX depth        : %u\t\tPost list  : %s\n"
		" CQ moderation   : %s\t\tInline size: %u\n"
		" BlueFlame       : %s\t\tWarm up    : %s\n"
		" Threads         : %s\t\t%s: %s\n"
		" Message size    : %s bytes\n",
		role_names[o->role], o->tx_depth,
		wmt_swept(o, SWEEP_POSTLIST, o->post_list, pl, sizeof(pl)),
		wmt_swept(o, SWEEP_UNSIGNALED, o->cq_mod, cq, sizeof(cq)),
		o->inline_size, o->blueflame ? "on" : "off (MLX5_SHUT_UP_BF=1)",
		o->warm_up ? "on" : "off",
		wmt_swept(o, SWEEP_THREADS, o->threads, thr, sizeof(thr)),
		o->duration ? "Duration   " : "Iterations ", run,
		wmt_swept(o, SWEEP_SIZE, o->size, size, sizeof(size)));
	if (o->repeat > 1)
		fprintf(f,
			" Repeats         : %u runs per row: the median rate, min and max below it\n",
			o->repeat);
	fputs(" UAR pages: maps = allocated (/proc/self/maps), used = rung by a QP (mlx5dv bf.reg),\n"
	      "            emu = mlx5emu stat; levels: threads per mapping level (man ib_write_mt)\n",
	      f);
	line(f, o->wide);
}

/*
 * The default table fits 120 columns: with --doorbell the doorbell
 * columns take the place of the resources (--wide has both).
 */
void wmt_report_table_head(FILE *f, const struct wmt_options *o)
{
	if (!o->wide && o->doorbell_given) {
		fprintf(f,
			" %-15s %-11s %4s %-11s %9s %9s %-4s %6s %7s %7s %s\n",
			"#category", "point", "thr", "levels", "Mmsg/s",
			"MiB/s", "db", "MMIO", "WQE B", "PCIe B", "verified");
		fprintf(f, " %-15s %-11s %4s %-11s %9s %9s %-4s %6s %7s %7s\n",
			"", "", "", "", "", "", "", "/msg", "/msg", "/msg");
		return;
	}
	if (!o->wide) {
		fprintf(f,
			" %-15s %-11s %4s %-11s %9s %9s %4s %4s %4s %5s %5s %4s %7s %s\n",
			"#category", "point", "thr", "levels", "Mmsg/s",
			"MiB/s", "ctx", "cq", "qp", "UAR", "uUAR", "UAR",
			"mem/ep", "verified");
		fprintf(f,
			" %-15s %-11s %4s %-11s %9s %9s %4s %4s %4s %5s %5s %4s %7s\n",
			"", "", "", "", "", "", "", "", "", "maps", "used",
			"emu", "KiB");
		return;
	}
	fprintf(f,
		" %-16s %-12s %4s %-11s %11s %9s %9s | %4s %4s %4s %4s %4s %4s | %5s %5s %5s %5s %6s %4s | %7s %7s %7s | %-4s %6s %7s %7s | %s\n",
		"#category", "point", "thr", "levels", "#msgs", "Mmsg/s",
		"MiB/s", "ctx", "pd", "mr", "cq", "qp", "td", "UAR", "uUAR",
		"UAR", "uUAR", "wasted", "UAR", "QPbuf", "CQbuf", "mem/ep",
		"db", "MMIO", "WQE B", "PCIe B", "verified");
	fprintf(f,
		" %-16s %-12s %4s %-11s %11s %9s %9s | %29s | %-11s %-11s %6s %4s | %7s %7s %7s | %-4s %6s %7s %7s |\n",
		"", "", "", "(bf.reg)", "", "", "", "", "alloc(maps)",
		"used(bf.reg)", "uUAR", "emu", "KiB", "KiB", "KiB", "", "/msg",
		"/msg", "/msg");
}

/* under a row: the levels its TDs got, if not all the category's */
static void report_spread(FILE *f, const struct wmt_row *r)
{
	char granted[48];

	wmt_row_td_granted(r, granted, sizeof(granted));
	if (r->ran && granted[0])
		fprintf(f,
			"   td_granted %s (level:TDs; asked level %u, --td-fallback)\n",
			granted, r->l.td_level);
	if (r->ran && r->repeats > 1)
		fprintf(f,
			"   %u runs: Mmsg/s min %.3f, median %.3f, max %.3f\n",
			r->repeats, r->mmsgs_min, r->mmsgs, r->mmsgs_max);
}

/* the doorbell columns: counted on the emulated device, else n/a */
static void doorbell_cells(const struct wmt_row *r, char *buf, size_t len)
{
	const struct wmt_doorbell_counts *c = &r->dbc;

	if (!c->counted)
		snprintf(buf, len, "%-4s %6s %7s %7s",
			 wmt_doorbell_name(r->doorbell), "n/a", "n/a", "n/a");
	else
		snprintf(buf, len, "%-4s %6.3f %7.1f %7.1f",
			 wmt_doorbell_name(r->doorbell), c->mmio, c->wqe_bytes,
			 c->pcie_bytes);
}

void wmt_report_row(FILE *f, const struct wmt_row *r,
		    const struct wmt_options *o)
{
	const struct wmt_usage *u = &r->usage;
	char levels[64], emu[16], db[48];

	if (!r->ran) {
		fprintf(f, " %-15s %-11s %4u %s%s%s: %s\n", r->label, r->point,
			r->l.threads,
			r->doorbell == DB_AUTO ? "" :
						 wmt_doorbell_name(r->doorbell),
			r->doorbell == DB_AUTO ? "" : " ",
			r->status == PERFTEST_EXIT_UNAVAILABLE ? "UNAVAILABLE" :
								 "FAILED",
			r->reason);
		return;
	}
	wmt_row_levels(r, levels, sizeof(levels));
	if (u->emu_uars >= 0)
		snprintf(emu, sizeof(emu), "%d", u->emu_uars);
	else
		snprintf(emu, sizeof(emu), "-");
	doorbell_cells(r, db, sizeof(db));
	if (!o->wide && o->doorbell_given) {
		fprintf(f, " %-15s %-11s %4u %-11s %9.3f %9.2f %s %s\n",
			r->label, r->point, r->l.threads, levels, r->mmsgs,
			r->mbps, db, r->verified ? "yes" : r->reason);
		report_spread(f, r);
		return;
	}
	if (!o->wide) {
		fprintf(f,
			" %-15s %-11s %4u %-11s %9.3f %9.2f %4u %4u %4u %5u %5u %4s %7.1f %s\n",
			r->label, r->point, r->l.threads, levels, r->mmsgs,
			r->mbps, u->count[RES_CTX], u->count[RES_CQ],
			u->count[RES_QP], u->uar_pages, u->uuars_used, emu,
			wmt_row_mem_per_ep(r) / 1024,
			r->verified ? "yes" : r->reason);
		report_spread(f, r);
		return;
	}
	fprintf(f,
		" %-16s %-12s %4u %-11s %11" PRIu64
		" %9.3f %9.2f | %4u %4u %4u %4u %4u %4u | %5u %5u %5u %5u %6d %4s | %7.1f %7.1f %7.1f | %s | %s\n",
		r->label, r->point, r->l.threads, levels, r->msgs, r->mmsgs,
		r->mbps, u->count[RES_CTX], u->count[RES_PD], u->count[RES_MR],
		u->count[RES_CQ], u->count[RES_QP], u->tds, u->uar_pages,
		2 * u->uar_pages, u->pages_used, u->uuars_used,
		(int)(2 * u->uar_pages) - (int)u->uuars_used, emu,
		u->qp_bytes / 1024.0, u->cq_bytes / 1024.0,
		wmt_row_mem_per_ep(r) / 1024, db,
		r->verified ? "yes" : r->reason);
	report_spread(f, r);
}

void wmt_report_table_end(FILE *f, bool wide)
{
	line(f, wide);
}
