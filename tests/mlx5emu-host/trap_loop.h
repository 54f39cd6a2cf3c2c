/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the doorbell trap's tests share: an RC pair in loopback whose QP a
 * rings a BlueFlame register, and whether that register's page is
 * write-protected (the trap armed: the NIC thread asleep).
 */
#ifndef TRAP_LOOP_H
#define TRAP_LOOP_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct loop {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint64_t buf[8]; /* a writes buf[0] into buf[4] */
	uintptr_t reg; /* the BlueFlame register a rings */
};

void loop_open(struct loop *l);
void loop_close(struct loop *l);
/*
 * 1 if the page holding addr is write-protected by a userfaultfd, 0 if
 * not, -1 if pagemap cannot say. Async-signal-safe.
 */
int loop_page_protected(uintptr_t addr);

#endif
