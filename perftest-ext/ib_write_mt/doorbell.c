// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* --doorbell's levers and the emulated NIC's counts per message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doorbell.h"
#include "emu_stat.h"
#include "pcie.h"

static const char *const levers[2] = { "MLX5_SHUT_UP_BF",
				       "MLX5_POST_SEND_PREFER_BF" };

int wmt_doorbell_check(const struct wmt_options *o, char *why, size_t len)
{
	if (o->doorbell != DB_BF || o->post_list <= 1)
		return 0;
	snprintf(
		why, len,
		"libmlx5 rings a post list of %u with an 8-byte doorbell (BlueFlame takes single WRs only)",
		o->post_list);
	return PERFTEST_EXIT_UNAVAILABLE;
}

void wmt_doorbell_set(const struct wmt_options *o, struct wmt_doorbell_env *e)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		const char *v = getenv(levers[i]);

		e->had[i] = v != NULL;
		e->saved[i] = v ? strdup(v) : NULL;
	}
	if (o->doorbell == DB_DB) {
		setenv(levers[0], "1", 1);
	} else if (o->doorbell == DB_BF) {
		unsetenv(levers[0]);
		setenv(levers[1], "1", 1);
	}
}

void wmt_doorbell_restore(struct wmt_doorbell_env *e)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (e->had[i] && e->saved[i])
			setenv(levers[i], e->saved[i], 1);
		else
			unsetenv(levers[i]);
		free(e->saved[i]);
		e->saved[i] = NULL;
	}
}

void wmt_traffic_read(struct wmt_traffic *t)
{
	FILE *f = emu_stat_open(getpid());
	char line[1024];

	memset(t, 0, sizeof(*t));
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && !emu_stat_is(line, "end")) {
		if (!emu_stat_is(line, "traffic") || !strstr(line, " qpn=all"))
			continue;
		t->valid = true;
		t->bf = emu_stat_num(line, "bf", 0);
		t->bf_blocks = emu_stat_num(line, "bf_blocks", 0);
		t->db = emu_stat_num(line, "db", 0);
		t->fetched_bbs = emu_stat_num(line, "fetched_bbs", 0);
		t->payload_read = emu_stat_num(line, "payload_read", 0);
		t->payload_written = emu_stat_num(line, "payload_written", 0);
		t->cqes = emu_stat_num(line, "cqes", 0);
	}
	fclose(f);
}

#define DIFF(f) (c->d.f = after->f - before->f)

void wmt_doorbell_account(struct wmt_doorbell_counts *c,
			  const struct wmt_traffic *before,
			  const struct wmt_traffic *after, uint64_t posted)
{
	static const struct wmt_traffic zero;
	struct bd_pcie_counts pc;
	struct bd_pcie_bytes b;
	struct bd_pcie p;
	double n = posted;

	memset(c, 0, sizeof(*c));
	if (!after->valid || !posted)
		return;
	/* no record before the process opened its first device: nothing yet */
	if (!before->valid)
		before = &zero;
	c->counted = true;
	c->posted = posted;
	DIFF(bf);
	DIFF(bf_blocks);
	DIFF(db);
	DIFF(fetched_bbs);
	DIFF(payload_read);
	DIFF(payload_written);
	DIFF(cqes);
	c->mmio = (c->d.bf_blocks + c->d.db) / n;
	c->wqe_bytes = c->d.fetched_bbs * 64.0 / n;
	pc = (struct bd_pcie_counts){
		.bf_blocks = c->d.bf_blocks / n,
		.db = c->d.db / n,
		.fetched_bytes = c->wqe_bytes,
		.payload_read = c->d.payload_read / n,
		.payload_written = c->d.payload_written / n,
		.cqes = c->d.cqes / n,
	};
	bd_pcie_defaults(&p);
	bd_pcie_model(&p, &pc, &b);
	c->pcie_bytes = b.total;
}
