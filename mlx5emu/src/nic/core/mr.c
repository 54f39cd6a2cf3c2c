// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory protection as the HCA's MPT enforces it: the key must name a live
 * MR with that exact key byte, in the QP's PD, granting the access, and the
 * range must lie inside the MR. Only then is a host address handed out.
 */
#include "nic.h"

static bool in_range(const struct nic_mr *mr, uint64_t addr, uint32_t len)
{
	return addr >= mr->iova && addr - mr->iova <= mr->length &&
	       len <= mr->length - (addr - mr->iova);
}

/* the MPT lookup, through the QP's one-entry cache */
static int lookup(struct nic_qp *qp, struct nic_mr_cache *c, uint32_t key,
		  bool remote, struct nic_mr *mr)
{
	struct nic_dev *dev = qp->dev;

	if (c->valid && c->gen == dev->mr_gen &&
	    (remote ? c->mr.rkey : c->mr.lkey) == key) {
		*mr = c->mr;
		return 0;
	}
	if (dev->ops->mr_lookup(dev, key, mr))
		return -1;
	c->mr = *mr;
	c->gen = dev->mr_gen;
	c->valid = true;
	return 0;
}

int nic_mr_local(struct nic_qp *qp, uint32_t lkey, uint64_t addr, uint32_t len,
		 uint32_t access, uint8_t **va)
{
	struct nic_mr mr;

	if (lkey == NIC_INVALID_LKEY ||
	    lookup(qp, &qp->lcache, lkey, false, &mr) || mr.lkey != lkey ||
	    mr.pdn != qp->pdn || (mr.access & access) != access ||
	    !in_range(&mr, addr, len))
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	*va = mr.va + (addr - mr.iova);
	return 0;
}

int nic_mr_remote(struct nic_qp *qp, uint32_t rkey, uint64_t addr, uint32_t len,
		  uint32_t access, uint8_t **va)
{
	struct nic_mr mr;

	/* IBA 9.4.3: a zero-length RDMA checks no key */
	if (!len) {
		*va = NULL;
		return 0;
	}
	if ((qp->access & access) != access ||
	    lookup(qp, &qp->rcache, rkey, true, &mr) || mr.rkey != rkey ||
	    mr.pdn != qp->pdn || (mr.access & access) != access ||
	    !in_range(&mr, addr, len))
		return MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
	*va = mr.va + (addr - mr.iova);
	return 0;
}
