// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* ConnectX models: PCI identity and the limits QUERY_DEVICE reports. */
#include <string.h>

#include "model.h"

/* What every model shares: a 4X link and the same queue and key limits */
#define EMU_MODEL_COMMON_LIMITS                                                \
	.active_width = 2, .log_max_qp = 18, .log_max_qp_sz = 15,              \
	.log_max_cq = 24, .log_max_cq_sz = 22, .log_max_mkey = 24,             \
	.log_max_pd = 23, .log_max_ra_res_qp = 4, .log_max_ra_req_qp = 4,      \
	.max_sge = 30

static const struct emu_model models[] = {
	{
		.name = "cx4",
		.desc = "ConnectX-4",
		.pci_device = 0x1013,
		.pci_subsys = 0x0008,
		.hca_type = "MT4115",
		.board_id = "MT_2180110032",
		.fw_major = 12,
		.fw_minor = 28,
		.fw_sub = 2006,
		.active_speed = 32,
		.rate = "100 Gb/sec (4X EDR)",
		EMU_MODEL_COMMON_LIMITS,
		.max_uars = 8192,
	},
	{
		.name = "cx5",
		.desc = "ConnectX-5",
		.pci_device = 0x1017,
		.pci_subsys = 0x0007,
		.hca_type = "MT4119",
		.board_id = "MT_0000000008",
		.fw_major = 16,
		.fw_minor = 35,
		.fw_sub = 2000,
		.active_speed = 32,
		.rate = "100 Gb/sec (4X EDR)",
		EMU_MODEL_COMMON_LIMITS,
		.max_uars = 8192,
	},
	{
		.name = "cx6",
		.desc = "ConnectX-6",
		.pci_device = 0x101b,
		.pci_subsys = 0x0006,
		.hca_type = "MT4123",
		.board_id = "MT_0000000223",
		.fw_major = 20,
		.fw_minor = 39,
		.fw_sub = 1002,
		.active_speed = 64,
		.rate = "200 Gb/sec (4X HDR)",
		EMU_MODEL_COMMON_LIMITS,
		.max_uars = 16384,
	},
};

const struct emu_model *emu_model_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

const struct emu_model *emu_model_default(void)
{
	return &models[1];
}

/* Mellanox OUI 00:02:c9, host and device index in the low bits */
uint64_t emu_node_guid(unsigned int host, unsigned int dev_index)
{
	return 0x0002c90300e5a000ULL + ((uint64_t)host << 8) +
	       ((uint64_t)dev_index << 4);
}

/*
 * The processes of a host share its LIDs (a QPN names the process); the
 * hosts of a fabric have LIDs of their own, so an address handle or a
 * path names a host.
 */
uint16_t emu_port_lid(unsigned int host, unsigned int dev_index,
		      unsigned int nports, unsigned int port)
{
	return 1 + host * EMU_MAX_DEVICES * EMU_MAX_PORTS + dev_index * nports +
	       (port - 1);
}
