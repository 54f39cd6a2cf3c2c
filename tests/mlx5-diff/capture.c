// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

#define MLX5_SEND_WQE_BB 64
/* the device's CQE is the last 64 bytes of a CQE slot */
#define CQE_OP_OWN_FROM_END 1
#define CQE_INVALID_OPCODE 0xf
/*
 * The NIC swaps a ring's first 8 bytes to zero, and keeps its BlueFlame
 * mark in the next 8 (mlx5emu/README.md, traffic records), putting it
 * back when it takes a ring: never compare them, never touch them.
 */
#define BF_RING_BYTES 16
#define BF_MAX_SIZE 4096
/* dbrec[0] of a CQ: the consumer index the device reads */
#define CQ_SET_CI 0

static unsigned long flip_at; /* 1-based basic block to corrupt, 0: none */
static unsigned long flip_wc_at; /* 1-based completion to corrupt */
static unsigned long wcs_printed;
static unsigned long bbs_printed;
/* the largest WQE: 63 16-byte units, in 16 basic blocks */
#define MAX_WQE (16 * MLX5_SEND_WQE_BB)
/* of the send WQE printed last: which bytes are read, over how many */
static uint8_t last_read[MAX_WQE + BF_MAX_SIZE];
static uint32_t last_size;

void capture_flip_from_env(void)
{
	const char *s = getenv("MLX5_DIFF_FLIP");

	flip_at = s ? strtoul(s, NULL, 10) : 0;
	s = getenv("MLX5_DIFF_FLIP_WC");
	flip_wc_at = s ? strtoul(s, NULL, 10) : 0;
}

uint64_t capture_wc_flip(void)
{
	return ++wcs_printed == flip_wc_at;
}

/* each byte of p, or ".." where mask (if not NULL) says it is not read */
static void print_hex_mask(FILE *out, const uint8_t *p, size_t len,
			   const uint8_t *mask)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!mask || mask[i])
			fprintf(out, "%02x", p[i]);
		else
			fputs("..", out);
	}
}

/*
 * Which bytes of the send WQE at counter i the device reads (read[j] 1),
 * over its basic blocks (returned). It reads ds 16-byte units; of those
 * not the control segment's imm, but for the opcodes that carry one, nor
 * a fetch-and-add's compare operand (after the control and remote address
 * segments of an RC WQE), which libmlx5 does not write; and of an inline
 * segment (MLX5_INLINE_SEG, the WQE's last) only its byte_count bytes.
 * The rest holds whatever the SQ held: a refused WR's bytes too.
 */
static uint32_t wqe_read_mask(const uint8_t *sq, uint32_t count, uint16_t i,
			      uint8_t *read)
{
	const uint8_t *ctrl = sq + (size_t)(i & (count - 1)) * MLX5_SEND_WQE_BB;
	uint32_t ds = ctrl[7] & 0x3f, total = ds ? ds * 16 : MLX5_SEND_WQE_BB;
	uint32_t n = (total + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB, u, j;
	uint8_t w[MAX_WQE];

	for (j = 0; j < n; j++)
		memcpy(w + j * MLX5_SEND_WQE_BB,
		       sq + (size_t)((i + j) & (count - 1)) * MLX5_SEND_WQE_BB,
		       MLX5_SEND_WQE_BB);
	memset(read, 0, n * MLX5_SEND_WQE_BB);
	memset(read, 1, total);
	switch (ctrl[3]) {
	case MLX5_OPCODE_SEND_INVAL:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
	case MLX5_OPCODE_SEND_IMM:
		break;
	case MLX5_OPCODE_ATOMIC_FA:
		memset(read + 40, 0, 8);
		/* fallthrough */
	default:
		memset(read + 12, 0, 4);
	}
	for (u = 1; u < ds; u++) {
		uint32_t word, len;

		memcpy(&word, w + u * 16, 4);
		word = be32toh(word);
		len = word & ~MLX5_INLINE_SEG;
		if (!(word & MLX5_INLINE_SEG) || u + (4 + len + 15) / 16 != ds)
			continue;
		memset(read + u * 16 + 4 + len, 0, total - (u * 16 + 4 + len));
		break;
	}
	return n * MLX5_SEND_WQE_BB;
}

int capture_qp_open(struct capture_qp *c, struct ibv_qp *qp, bool bf_relative)
{
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &c->dv } };

	memset(c, 0, sizeof(*c));
	if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP))
		return -1;
	c->sq_pi = be32toh(c->dv.dbrec[MLX5_SND_DBR]);
	c->rq_pi = be32toh(c->dv.dbrec[MLX5_RCV_DBR]);
	c->bf_relative = bf_relative;
	c->bf_first = -1;
	return c->dv.bf.size > BF_MAX_SIZE ? -1 : 0;
}

/*
 * The WQEs from counter `from` up to `to` of a ring of stride-byte WQEs
 * (the SQ's basic blocks, or the RQ's WQEs), in ring order; of a send WQE
 * only the bytes the device reads (wqe_read_mask). Only send basic blocks
 * count for MLX5_DIFF_FLIP.
 */
static void print_wqes(FILE *out, bool send, const uint8_t *buf,
		       uint32_t stride, uint32_t count, uint16_t from,
		       uint16_t to)
{
	uint8_t copy[MLX5_SEND_WQE_BB];
	uint32_t at = 0;
	uint16_t i;

	for (i = from; i != to; i++) {
		uint32_t index = i & (count - 1);
		const uint8_t *wqe = buf + (size_t)index * stride;

		if (send && at == last_size) {
			last_size = wqe_read_mask(buf, count, i, last_read);
			at = 0;
		}
		if (send && ++bbs_printed == flip_at) {
			memcpy(copy, wqe, sizeof(copy));
			copy[5] ^= 1;
			wqe = copy;
		}
		fprintf(out, "  %s[%u] ", send ? "sq" : "rq", index);
		print_hex_mask(out, wqe, stride, send ? last_read + at : NULL);
		fputc('\n', out);
		at += send ? stride : 0;
	}
}

/*
 * The BlueFlame halves are cleared past the ring bytes before a post, so
 * that what holds non-zero bytes after it is what the post copied there:
 * the half and the 64-byte blocks written, whatever earlier users of the
 * register left in it. Only on the emulated device, whose NIC reads
 * nothing of a half but its ring bytes and mark: this rings nothing.
 */
void capture_sq_begin(struct capture_qp *c)
{
	uint32_t size = c->dv.bf.size, i;
	volatile uint64_t *reg = c->dv.bf.reg;

	for (i = BF_RING_BYTES; i < 2 * size; i += sizeof(*reg))
		if (i % size >= BF_RING_BYTES)
			reg[i / sizeof(*reg)] = 0;
}

/* a BlueFlame write copies the post's last WQE: last_read says its bytes */
static void capture_bf(FILE *out, struct capture_qp *c)
{
	uint32_t size = c->dv.bf.size, half, i, end;

	for (half = 0; half < 2; half++) {
		const volatile uint8_t *reg =
			(const volatile uint8_t *)c->dv.bf.reg + half * size;
		uint8_t copy[BF_MAX_SIZE];

		for (i = end = 0; i < size && i < BF_MAX_SIZE; i++) {
			copy[i] = reg[i];
			if (i >= BF_RING_BYTES && copy[i])
				end = i + 1;
		}
		if (!end)
			continue;
		end = (end + MLX5_SEND_WQE_BB - 1) & ~(MLX5_SEND_WQE_BB - 1);
		if (c->bf_first < 0)
			c->bf_first = half;
		fprintf(out, "  bf%u ",
			c->bf_relative ? half ^ (uint32_t)c->bf_first : half);
		if (end > last_size)
			memset(last_read + last_size, 0, end - last_size);
		print_hex_mask(out, copy + BF_RING_BYTES, end - BF_RING_BYTES,
			       last_read + BF_RING_BYTES);
		fputc('\n', out);
	}
}

void capture_sq(FILE *out, struct capture_qp *c)
{
	uint16_t pi = be32toh(c->dv.dbrec[MLX5_SND_DBR]);

	last_size = 0;
	print_wqes(out, true, c->dv.sq.buf, MLX5_SEND_WQE_BB, c->dv.sq.wqe_cnt,
		   c->sq_pi, pi);
	c->sq_pi = pi;
	fprintf(out, "  snd_dbr %u\n", pi);
	if (c->dv.bf.size)
		capture_bf(out, c);
}

void capture_rq(FILE *out, struct capture_qp *c)
{
	uint16_t pi = be32toh(c->dv.dbrec[MLX5_RCV_DBR]);

	print_wqes(out, false, c->dv.rq.buf, c->dv.rq.stride, c->dv.rq.wqe_cnt,
		   c->rq_pi, pi);
	c->rq_pi = pi;
	fprintf(out, "  rcv_dbr %u\n", pi);
}

int capture_srq_open(struct capture_srq *c, struct ibv_srq *srq)
{
	struct mlx5dv_obj obj = { .srq = { .in = srq, .out = &c->dv } };

	memset(c, 0, sizeof(*c));
	if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_SRQ))
		return -1;
	c->wqe_cnt = c->dv.tail + 1;
	return 0;
}

void capture_srq(FILE *out, struct capture_srq *c)
{
	const uint8_t *p = c->dv.buf;
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	size_t i;

	for (i = 0; i < (size_t)c->wqe_cnt * c->dv.stride; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	fprintf(out, "  srq_dbr %u wqes %#llx\n", be32toh(*c->dv.dbrec),
		(unsigned long long)h);
}

int capture_cq_open(struct capture_cq *c, struct ibv_cq *cq)
{
	struct mlx5dv_obj obj = { .cq = { .in = cq, .out = &c->dv } };

	memset(c, 0, sizeof(*c));
	return mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ);
}

void capture_cq_ci(FILE *out, struct capture_cq *c)
{
	fprintf(out, "  cq_set_ci %u\n",
		be32toh(c->dv.dbrec[CQ_SET_CI]) & 0xffffff);
}

bool capture_cqe_ready(struct capture_cq *c, uint32_t ci, uint32_t ahead)
{
	uint32_t index = ci + ahead;
	const volatile uint8_t *slot =
		(const uint8_t *)c->dv.buf +
		(size_t)(index & (c->dv.cqe_cnt - 1)) * c->dv.cqe_size;
	uint8_t op_own = slot[c->dv.cqe_size - CQE_OP_OWN_FROM_END];

	return (op_own >> 4) != CQE_INVALID_OPCODE &&
	       (op_own & 1) == !!(index & c->dv.cqe_cnt);
}
