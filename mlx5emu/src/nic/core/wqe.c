// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Reading WQEs out of the rings libmlx5 writes. Everything here is
 * untrusted input: every length is checked against the ring and the WQE
 * size before it is used, so a corrupt WQE yields an error code, never an
 * access outside the ring.
 */
#include <string.h>

#include "nic.h"

/* The 16-byte unit k of the WQE that starts at basic block bb. */
static const uint8_t *sq_unit(const struct nic_qp *qp, uint32_t bb, uint32_t k)
{
	uint32_t units = qp->sq_bbs * (NIC_BB / 16);

	return qp->sq + (((bb * (NIC_BB / 16)) + k) & (units - 1)) * 16;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/* Copy len inline bytes that start at byte off of unit k; they may wrap. */
static void copy_inline(const struct nic_qp *qp, uint32_t bb, uint32_t k,
			uint32_t off, uint8_t *dst, uint32_t len)
{
	while (len) {
		const uint8_t *u = sq_unit(qp, bb, k);
		uint32_t n = 16 - off;

		if (n > len)
			n = len;
		memcpy(dst, u + off, n);
		dst += n;
		len -= n;
		off = 0;
		k++;
	}
}

#define WQE_OP_ERR MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR
#define WQE_LEN_ERR MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR

/*
 * The control segment, read once through struct mlx5_wqe_ctrl_seg: the
 * counter it carries must be idx and the QPN ours; ds counts its 16-byte
 * units, and the WQE must fit in the ring.
 */
static int parse_ctrl(const struct nic_qp *qp, const uint8_t *unit,
		      uint16_t idx, struct nic_wqe *w)
{
	struct mlx5_wqe_ctrl_seg c;
	uint32_t v, ds;

	memcpy(&c, unit, sizeof(c));
	v = be32toh(c.opmod_idx_opcode);
	w->opcode = v & 0xff;
	if (((v >> 8) & 0xffff) != idx)
		return WQE_OP_ERR;
	v = be32toh(c.qpn_ds);
	ds = v & 0xff;
	if ((v >> 8) != qp->qpn || !ds || ds > NIC_MAX_DS)
		return WQE_OP_ERR;
	w->ds = ds;
	w->nbb = (ds * 16 + NIC_BB - 1) / NIC_BB;
	if (w->nbb > qp->sq_bbs) {
		w->nbb = 1;
		return WQE_OP_ERR;
	}
	w->fm_ce_se = c.fm_ce_se;
	memcpy(&w->imm, &c.imm, 4);
	w->op = nic_opcode(w->opcode);
	return w->op ? 0 : WQE_OP_ERR;
}

/* struct mlx5_wqe_raddr_seg, at unit *k */
static int parse_raddr(const struct nic_qp *qp, uint32_t bb, uint32_t *k,
		       struct nic_wqe *w)
{
	const uint8_t *r;

	if (*k >= w->ds)
		return WQE_OP_ERR;
	r = sq_unit(qp, bb, (*k)++);
	w->raddr = rd64(r);
	w->rkey = rd32(r + 8);
	return 0;
}

/* mlx5_wqe_av, a datagram's address: 16 bytes, 48 with the extended bit */
static int parse_av(const struct nic_qp *qp, uint32_t bb, uint32_t *k,
		    struct nic_wqe *w)
{
	const uint8_t *av;
	uint32_t units;

	if (*k >= w->ds)
		return WQE_OP_ERR;
	av = sq_unit(qp, bb, *k);
	w->ud_qkey = rd32(av);
	w->ud_dqpn = rd32(av + 8);
	w->ud_dlid = rd32(av + 12) & 0xffff;
	units = (w->ud_dqpn & MLX5_EXTENDED_UD_AV) ? 3 : 1;
	w->ud_dqpn &= 0xffffff;
	if (*k + units > w->ds)
		return WQE_OP_ERR;
	*k += units;
	return 0;
}

/* struct mlx5_wqe_atomic_seg, at unit *k */
static int parse_atomic(const struct nic_qp *qp, uint32_t bb, uint32_t *k,
			struct nic_wqe *w)
{
	const uint8_t *a;

	if (*k >= w->ds)
		return WQE_OP_ERR;
	a = sq_unit(qp, bb, (*k)++);
	w->swap_add = rd64(a);
	w->compare = rd64(a + 8);
	return 0;
}

/*
 * Inline and pointer segments from unit k on, in any order and mix (UCX's
 * am_zcopy puts an inline header before pointers): each is executed in
 * turn, an inline one taking ALIGN(4 + len, 16) bytes. *total: the bytes
 * they carry.
 */
static int parse_data(const struct nic_qp *qp, uint32_t bb, uint32_t k,
		      struct nic_wqe *w, uint64_t *total)
{
	while (k < w->ds) {
		const uint8_t *d = sq_unit(qp, bb, k);
		uint32_t bc = rd32(d);
		struct nic_sge *sge = &w->sge[w->nsge];

		if (bc & MLX5_INLINE_SEG) {
			uint32_t len = bc & ~MLX5_INLINE_SEG;
			uint64_t units = (4 + (uint64_t)len + 15) / 16;

			if (k + units > w->ds || (w->op->flags & NIC_OPF_READ))
				return WQE_OP_ERR;
			copy_inline(qp, bb, k, 4, w->inl_data + w->inl_len,
				    len);
			k += units;
			if (!len)
				continue;
			sge->addr = w->inl_len;
			sge->len = len;
			sge->lkey = 0;
			w->inl_mask |= 1ull << w->nsge++;
			w->inl_len += len;
			*total += len;
			continue;
		}
		k++;
		if (!bc)
			continue;
		sge->len = bc;
		sge->lkey = rd32(d + 4);
		sge->addr = rd64(d + 8);
		w->nsge++;
		*total += bc;
	}
	return 0;
}

/* what the opcode and the transport allow the message to carry */
static int check_length(const struct nic_qp *qp, const struct nic_wqe *w,
			uint64_t total)
{
	if (!(w->op->flags & (NIC_OPF_PAYLOAD | NIC_OPF_READ)) && total)
		return WQE_OP_ERR;
	if (total > (1u << 31))
		return WQE_LEN_ERR;
	if ((w->op->flags & NIC_OPF_ATOMIC) && total != 8)
		return WQE_LEN_ERR;
	if (nic_qp_transport(qp)->max_msg &&
	    total > nic_qp_transport(qp)->max_msg)
		return WQE_LEN_ERR;
	return 0;
}

int nic_wqe_parse(const struct nic_qp *qp, uint16_t idx, struct nic_wqe *w)
{
	uint32_t bb = idx & (qp->sq_bbs - 1);
	uint64_t total = 0;
	uint32_t k = 1; /* the unit after the control segment */
	int err;

	w->idx = idx;
	w->nsge = 0;
	w->len = 0;
	w->inl_mask = 0;
	w->inl_len = 0;
	w->raddr = 0;
	w->rkey = 0;
	w->swap_add = w->compare = 0;
	w->ud_qkey = w->ud_dqpn = 0;
	w->ud_dlid = 0;
	w->nbb = 1;
	err = parse_ctrl(qp, sq_unit(qp, bb, 0), idx, w);
	if (!err && (w->op->flags & NIC_OPF_RADDR))
		err = parse_raddr(qp, bb, &k, w);
	if (!err && !(w->op->transports & (1u << qp->type)))
		err = WQE_OP_ERR;
	if (!err && !nic_qp_transport(qp)->connected)
		err = parse_av(qp, bb, &k, w);
	if (!err && (w->op->flags & NIC_OPF_ATOMIC))
		err = parse_atomic(qp, bb, &k, w);
	if (!err)
		err = parse_data(qp, bb, k, w, &total);
	if (!err)
		err = check_length(qp, w, total);
	if (!err)
		w->len = total;
	return err;
}

int nic_scatter_parse(const uint8_t *wqe, uint32_t size, struct nic_sge *sge,
		      uint32_t *nsge)
{
	uint32_t i, n = 0;

	for (i = 0; i < size / 16 && i < NIC_MAX_SGE; i++) {
		const uint8_t *d = wqe + i * 16;
		uint32_t lkey = rd32(d + 4);
		uint32_t bc = rd32(d);

		if (lkey == NIC_INVALID_LKEY)
			break;
		if (bc & MLX5_INLINE_SEG)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		if (!bc)
			continue;
		sge[n].len = bc;
		sge[n].lkey = lkey;
		sge[n].addr = rd64(d + 8);
		n++;
	}
	*nsge = n;
	return 0;
}

int nic_recv_wqe_parse(const struct nic_qp *qp, uint16_t idx,
		       struct nic_sge *sge, uint32_t *nsge)
{
	uint32_t stride = 1u << qp->rq_shift;

	return nic_scatter_parse(qp->rq + (size_t)(idx & (qp->rq_cnt - 1)) *
						  stride,
				 stride, sge, nsge);
}
