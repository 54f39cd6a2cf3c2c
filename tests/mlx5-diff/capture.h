/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the NIC reads, written as text lines: the WQEs a post added to a
 * send or receive queue, the doorbell records, the BlueFlame registers, and
 * the CQ's consumer index. Everything is read back from memory the
 * application shares with the device (mlx5dv_init_obj), after the call that
 * wrote it returned.
 */
#ifndef MLX5_DIFF_CAPTURE_H
#define MLX5_DIFF_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/mlx5dv.h>

/* one QP's queues as the device sees them, and what was last printed */
struct capture_qp {
	struct mlx5dv_qp dv;
	uint16_t sq_pi; /* SND_DBR at the last capture */
	uint16_t rq_pi; /* RCV_DBR at the last capture */
	bool bf_relative; /* BlueFlame halves printed from the first written */
	int bf_first; /* the half written first, -1 before */
};

/*
 * bf_relative: a QP of a thread domain. Its register is the TD's, and
 * which half of it the QP writes first depends on where the library
 * placed the TD and on what the register served before: the series places
 * TDs its own way (sharing levels), 65.0 its way, and the second TD of a
 * run was seen to start on the other half. The device takes either half;
 * the halves are compared from the first one written.
 */
int capture_qp_open(struct capture_qp *c, struct ibv_qp *qp, bool bf_relative);

/* Before a post: clears what the BlueFlame halves held. */
void capture_sq_begin(struct capture_qp *c);
/*
 * After a post: the send WQEs between the last doorbell record and the new
 * one, the record, and every BlueFlame half that changed.
 */
void capture_sq(FILE *out, struct capture_qp *c);
/* After a post_recv: the receive WQEs it added and RCV_DBR. */
void capture_rq(FILE *out, struct capture_qp *c);

struct capture_cq {
	struct mlx5dv_cq dv;
};

int capture_cq_open(struct capture_cq *c, struct ibv_cq *cq);
/* The CQ's SET_CI doorbell record, which the device reads. */
void capture_cq_ci(FILE *out, struct capture_cq *c);
/* Whether the CQE `ahead` places past consumer index ci is written. */
bool capture_cqe_ready(struct capture_cq *c, uint32_t ci, uint32_t ahead);

/*
 * The comparison's self-check: with MLX5_DIFF_FLIP=N, byte 5 of the Nth
 * send WQE basic block printed is printed with its low bit flipped; with
 * MLX5_DIFF_FLIP_WC=N, the low bit of the Nth completion's wr_id.
 */
void capture_flip_from_env(void);
/* what to XOR into the wr_id of the completion about to be printed */
uint64_t capture_wc_flip(void);

#endif
