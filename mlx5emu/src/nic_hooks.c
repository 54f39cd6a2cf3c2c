// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Hand-off points from the control path to the software NIC. Weak no-op
 * defaults: without a NIC the device is a control-path-only HCA whose
 * queues never move.
 */
#include "mlx5emu.h"

__attribute__((weak)) int emu_nic_cq_create(struct emu_cq *cq)
{
	(void)cq;
	return 0;
}

__attribute__((weak)) int emu_nic_cq_resize(struct emu_cq *cq,
					    uint64_t buf_addr, uint32_t ncqe,
					    uint32_t cqe_size)
{
	(void)cq;
	(void)buf_addr;
	(void)ncqe;
	(void)cqe_size;
	return 0;
}

__attribute__((weak)) void emu_nic_cq_destroy(struct emu_cq *cq)
{
	(void)cq;
}

__attribute__((weak)) int emu_nic_qp_create(struct emu_qp *qp)
{
	(void)qp;
	return 0;
}

__attribute__((weak)) void emu_nic_qp_modify(struct emu_qp *qp)
{
	(void)qp;
}

__attribute__((weak)) void emu_nic_qp_destroy(struct emu_qp *qp)
{
	(void)qp;
}

__attribute__((weak)) void emu_nic_mr_destroy(struct emu_mr *mr)
{
	(void)mr;
}

__attribute__((weak)) int emu_nic_srq_create(struct emu_srq *srq)
{
	(void)srq;
	return 0;
}

__attribute__((weak)) void emu_nic_srq_modify(struct emu_srq *srq)
{
	(void)srq;
}

__attribute__((weak)) void emu_nic_srq_destroy(struct emu_srq *srq)
{
	(void)srq;
}

__attribute__((weak)) void emu_nic_stat_write(FILE *f, int pid,
					      struct emu_context *ctx)
{
	(void)f;
	(void)pid;
	(void)ctx;
}

__attribute__((weak)) bool emu_fabric_claim_uar(unsigned int dev, uint32_t id)
{
	(void)dev;
	(void)id;
	return true;
}

__attribute__((weak)) void emu_fabric_release_uar(unsigned int dev, uint32_t id)
{
	(void)dev;
	(void)id;
}

__attribute__((weak)) uint32_t emu_fabric_qpn_base(void)
{
	return EMU_FIRST_QPN;
}

struct emu_qp *emu_qp_lookup(struct emu_device *dev, uint32_t qpn)
{
	uint32_t base = emu_fabric_qpn_base();

	return qpn < base ? NULL : emu_table_get(&dev->qps, qpn - base);
}

struct emu_cq *emu_cq_lookup(struct emu_device *dev, uint32_t cqn)
{
	return emu_table_get(&dev->cqs, cqn);
}

/* mkey index 0 holds a placeholder (the device itself), never an MR */
struct emu_mr *emu_mr_lookup(struct emu_device *dev, uint32_t key)
{
	struct emu_mr *mr = emu_table_get(&dev->mrs, key >> 8);

	if (!mr || (void *)mr == (void *)dev || mr->lkey != key)
		return NULL;
	return mr;
}
