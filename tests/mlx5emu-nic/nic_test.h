/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The NIC core on plain memory (nic_test.c): WQEs are written the way
 * libmlx5 writes them, CQEs are read the way its poll_cq reads them. Each
 * nic_*_test.c file is one group of tests on this harness.
 */
#ifndef MLX5EMU_NIC_TEST_H
#define MLX5EMU_NIC_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nic.h"

#define NMR 8

struct env {
	struct nic_dev dev;
	struct nic_mr mr[NMR];
	unsigned int nmr;
	struct nic_qp qp[2];
	struct nic_cq cq[2];
	uint32_t dbrec[2][2], cqdb[2][2];
	uint16_t sq_pi[2], rq_pi[2];
	uint32_t cq_ci[2];
	unsigned int events, qp_events;
	int last_qp_event;
};

/* one send WQE as the test describes it */
struct post {
	uint8_t opcode;
	bool signaled, solicited;
	uint32_t imm;
	uint64_t raddr;
	uint32_t rkey;
	const struct nic_sge *sge;
	unsigned int nsge;
	const void *inl;
	uint32_t inl_len;
	int force_ds; /* != 0: write this ds instead, < 0: ds 0 */
	bool atomic;
	uint64_t swap_add, compare;
	bool ud, ud_ext; /* datagram segment, 16 or 48 bytes */
	uint32_t ud_dqpn, ud_qkey;
	uint16_t ud_dlid;
};

/* a peer in "another process": requests queue up, answered later */
struct remote_peer {
	bool on;
	bool unreachable; /* its requests go nowhere (NIC_LOST) */
	unsigned int n;
	uint32_t psn[64], epoch[64];
	struct nic_pkt pkt[64];
};

extern struct remote_peer remote_peer;
extern const struct nic_dev_ops t_ops_remote;

#define SRQ_WQES 8
#define SRQ_STRIDE 32

extern unsigned int srq_events;

struct nic_mr *add_mr(struct env *e, size_t len, uint32_t access, uint32_t pdn);
void cq_arm(struct env *e, int c, bool solicited);
void expect_err(struct env *e, int c, uint8_t opcode, uint8_t syndrome,
		uint16_t counter);
struct post inline_write(const struct nic_mr *dst, const uint64_t *v);
void make_ud(struct env *e, uint32_t qkey);
struct mlx5_cqe64 *cq_poll(struct env *e, int c);
struct mlx5_cqe64 *poll_cqe(struct env *e, int c);
void sq_post(struct env *e, int q, const struct post *p);
void post_recv(struct env *e, int q, const struct nic_sge *sge,
	       unsigned int nsge);
unsigned int post_run(struct env *e, const struct post *p);
void env_revive(struct env *e);
void sq_ring(struct env *e, int q);
unsigned int run_sq(struct env *e);
struct post send_of(const struct nic_sge *s);
void srq_attach(struct env *e, struct nic_srq *srq, uint32_t *db,
		const uint16_t *next);
void srq_post(struct nic_srq *srq, uint32_t *db, uint16_t idx,
	      const struct nic_sge *sge);
struct post ud_send(const struct nic_sge *s, uint32_t dqpn, uint16_t dlid,
		    uint32_t qkey, bool ext);
int env_setup(void **state);
int env_teardown(void **state);

/* the groups: each runs its tests on a fresh env, returns failures */
int nic_rc_tests(void);
int nic_errors_tests(void);
int nic_cq_tests(void);
int nic_srq_tests(void);
int nic_ud_uc_tests(void);
int nic_peer_lost_tests(void);

#endif
