// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* PCIe transactions and bytes for the NIC's per-message counts (pcie.h). */
#include <math.h>
#include <string.h>

#include "pcie.h"

const struct bd_comp_info bd_pcie_info[BD_PCIE_NPARAMS] = {
	[BD_PCIE_MAX_PAYLOAD] = { "pcie-mps", "max payload size (bytes)" },
	[BD_PCIE_MAX_READ_REQ] = { "pcie-mrrs",
				   "max read request size (bytes)" },
	[BD_PCIE_CPL_SIZE] = { "pcie-cpl", "completion payload (bytes)" },
	[BD_PCIE_WRITE_OVERHEAD] = { "pcie-mwr-overhead",
				     "memory write TLP overhead (bytes)" },
	[BD_PCIE_READ_OVERHEAD] = { "pcie-mrd-overhead",
				    "read request TLP (bytes)" },
	[BD_PCIE_CPL_OVERHEAD] = { "pcie-cpl-overhead",
				   "completion TLP overhead (bytes)" },
};

/*
 * 4-DW headers (16 bytes) for requests with 64-bit addresses, 3-DW (12)
 * for completions, plus 2 bytes of sequence number, 4 of LCRC and 2 of
 * framing; 256-byte MPS, 512-byte MRRS, completions split at 64 bytes
 * as root complexes commonly do.
 */
static const double defaults[BD_PCIE_NPARAMS] = {
	[BD_PCIE_MAX_PAYLOAD] = 256,  [BD_PCIE_MAX_READ_REQ] = 512,
	[BD_PCIE_CPL_SIZE] = 64,      [BD_PCIE_WRITE_OVERHEAD] = 24,
	[BD_PCIE_READ_OVERHEAD] = 24, [BD_PCIE_CPL_OVERHEAD] = 20,
};

void bd_pcie_defaults(struct bd_pcie *p)
{
	int i;

	for (i = 0; i < BD_PCIE_NPARAMS; i++) {
		p->v[i] = defaults[i];
		p->src[i] = BD_SRC_ASSUMED;
	}
}

int bd_pcie_lookup(const char *key)
{
	int i;

	for (i = 0; i < BD_PCIE_NPARAMS; i++)
		if (!strcmp(bd_pcie_info[i].key, key))
			return i;
	return -1;
}

/* n bytes read in one go: requests, then completions with the data */
static double dma_read(const struct bd_pcie *p, double n)
{
	double cpl = fmin(p->v[BD_PCIE_CPL_SIZE], p->v[BD_PCIE_MAX_PAYLOAD]);

	if (n <= 0)
		return 0;
	return ceil(n / p->v[BD_PCIE_MAX_READ_REQ]) *
		       p->v[BD_PCIE_READ_OVERHEAD] +
	       ceil(n / cpl) * p->v[BD_PCIE_CPL_OVERHEAD] + n;
}

/* n bytes written in one go */
static double dma_write(const struct bd_pcie *p, double n)
{
	if (n <= 0)
		return 0;
	return ceil(n / p->v[BD_PCIE_MAX_PAYLOAD]) *
		       p->v[BD_PCIE_WRITE_OVERHEAD] +
	       n;
}

void bd_pcie_model(const struct bd_pcie *p, const struct bd_pcie_counts *c,
		   struct bd_pcie_bytes *b)
{
	double wr = p->v[BD_PCIE_WRITE_OVERHEAD];

	b->mmio = c->db * (wr + 8) + c->bf_blocks * (wr + 64);
	/* one read per doorbell: the list it rang, contiguous */
	b->wqe = c->db > 0 ? c->db * dma_read(p, c->fetched_bytes / c->db) : 0;
	b->payload_read = dma_read(p, c->payload_read);
	b->payload_written = dma_write(p, c->payload_written);
	b->cqe = c->cqes * dma_write(p, 64);
	b->total = b->mmio + b->wqe + b->payload_read + b->payload_written +
		   b->cqe;
}
