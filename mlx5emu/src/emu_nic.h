/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The seam between the control path and the software NIC (src/nic/) with
 * its fabric (src/fabric/).
 */
#ifndef MLX5EMU_NIC_SEAM_H
#define MLX5EMU_NIC_SEAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "emu_verbs.h"

/*
 * nic_hooks.c: where the control path hands objects to the software NIC
 * (src/nic/). The defaults are weak no-ops so the control path stands alone;
 * the NIC provides the real ones. Each returns with the NIC quiescent for
 * that object: no CQE for a QP after its destroy or modify to RESET.
 * Called with the context's lock held, never with dev->lock.
 */
int emu_nic_cq_create(struct emu_cq *cq);
/* the NIC moves to the new ring (see nic/completer.c:nic_cq_resize) */
int emu_nic_cq_resize(struct emu_cq *cq, uint64_t buf_addr, uint32_t ncqe,
		      uint32_t cqe_size);
void emu_nic_cq_destroy(struct emu_cq *cq);
int emu_nic_qp_create(struct emu_qp *qp);
void emu_nic_qp_modify(struct emu_qp *qp);
void emu_nic_qp_destroy(struct emu_qp *qp);
void emu_nic_mr_destroy(struct emu_mr *mr);
int emu_nic_srq_create(struct emu_srq *srq);
void emu_nic_srq_modify(struct emu_srq *srq); /* the limit was armed */
void emu_nic_srq_destroy(struct emu_srq *srq);
/* extra lines of the process's attribution file */
void emu_nic_stat_write(FILE *f, int pid, struct emu_context *ctx);
/* QPNs unique per emulated device across processes */
uint32_t emu_fabric_qpn_base(void);
/* HW UAR indices unique per emulated device across processes */
bool emu_fabric_claim_uar(unsigned int dev, uint32_t id);
void emu_fabric_release_uar(unsigned int dev, uint32_t id);

/* lookups for the NIC; dev->lock must be held */
struct emu_qp *emu_qp_lookup(struct emu_device *dev, uint32_t qpn);
struct emu_cq *emu_cq_lookup(struct emu_device *dev, uint32_t cqn);
struct emu_mr *emu_mr_lookup(struct emu_device *dev, uint32_t key);

#endif
