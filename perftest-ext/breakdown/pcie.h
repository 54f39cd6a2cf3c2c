/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Bytes on the PCIe link for what the NIC counted per message (mlx5emu's
 * traffic records), beside the time components of model.h. Every TLP is
 * its payload plus a fixed overhead (header, sequence number, LCRC,
 * framing):
 *   MMIO     one posted write per 8-byte doorbell, one per 64-byte
 *            BlueFlame block (a write-combined block goes as one TLP);
 *   DMA read read requests of at most max_read_req bytes, answered by
 *            completions of at most cpl_size bytes each (the root
 *            complex's split, at most max_payload);
 *   DMA write posted writes of at most max_payload bytes.
 * WQE blocks are fetched in one read per doorbell (a post list lies
 * contiguous in the SQ), payload in one read per message, and each
 * message's payload and each CQE are written on their own. Flow control
 * and the link's own DLLPs are left out.
 */
#ifndef BD_PCIE_H
#define BD_PCIE_H

#include "model.h"

enum bd_pcie_param {
	BD_PCIE_MAX_PAYLOAD, /* MPS, bytes */
	BD_PCIE_MAX_READ_REQ, /* MRRS, bytes */
	BD_PCIE_CPL_SIZE, /* completion payload, bytes */
	BD_PCIE_WRITE_OVERHEAD, /* memory write TLP, bytes beside payload */
	BD_PCIE_READ_OVERHEAD, /* memory read request TLP, bytes */
	BD_PCIE_CPL_OVERHEAD, /* completion with data, beside payload */
	BD_PCIE_NPARAMS
};

struct bd_pcie {
	double v[BD_PCIE_NPARAMS];
	enum bd_source src[BD_PCIE_NPARAMS];
};

extern const struct bd_comp_info bd_pcie_info[BD_PCIE_NPARAMS];

/* what a message cost on the device, averaged over a run */
struct bd_pcie_counts {
	double bf_blocks; /* 64-byte BlueFlame blocks */
	double db; /* 8-byte doorbells */
	double fetched_bytes; /* WQE bytes read by DMA */
	double payload_read, payload_written;
	double cqes; /* 64 bytes each */
};

/* the link's bytes per message by kind, and in all */
struct bd_pcie_bytes {
	double mmio, wqe, payload_read, payload_written, cqe, total;
};

/* Gen3/4 x16 with 64-bit addresses: every value assumed */
void bd_pcie_defaults(struct bd_pcie *p);
int bd_pcie_lookup(const char *key);
void bd_pcie_model(const struct bd_pcie *p, const struct bd_pcie_counts *c,
		   struct bd_pcie_bytes *b);

#endif
