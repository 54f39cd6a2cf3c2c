/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ConnectX models the emulator can pose as, shared by the preload library
 * (limits answered by QUERY_DEVICE) and the launcher (the sysfs tree).
 */
#ifndef MLX5EMU_MODEL_H
#define MLX5EMU_MODEL_H

#include <stdint.h>

#define EMU_MAX_DEVICES 8
#define EMU_MAX_PORTS 2
#define EMU_CDEV_MAJOR 231
#define EMU_CDEV_MINOR_BASE 192
#define EMU_VENDOR_ID 0x02c9 /* IEEE OUI reported by QUERY_DEVICE */
#define EMU_PCI_VENDOR 0x15b3
#define EMU_GID_TBL_LEN 128 /* 8 << gid_table_size of a ConnectX-5 */

struct emu_model {
	const char *name; /* option value: cx4, cx5, cx6 */
	const char *desc;
	uint16_t pci_device;
	uint16_t pci_subsys;
	const char *hca_type;
	const char *board_id;
	uint16_t fw_major, fw_minor, fw_sub;
	uint8_t active_speed; /* IB_SPEED_EDR = 32, HDR = 64 */
	uint8_t active_width; /* 4X = 2 */
	const char *rate; /* sysfs ports/N/rate */
	uint8_t log_max_qp;
	uint8_t log_max_qp_sz;
	uint8_t log_max_cq;
	uint8_t log_max_cq_sz;
	uint8_t log_max_mkey;
	uint8_t log_max_pd;
	uint8_t log_max_ra_res_qp;
	uint8_t log_max_ra_req_qp;
	uint32_t max_uars; /* HW UARs of the function (BAR size) */
	uint32_t max_sge;
};

const struct emu_model *emu_model_find(const char *name);
const struct emu_model *emu_model_default(void);
/* host: the index in --peers (0 on a fabric of one host) */
uint64_t emu_node_guid(unsigned int host, unsigned int dev_index);
uint16_t emu_port_lid(unsigned int host, unsigned int dev_index,
		      unsigned int nports, unsigned int port);

/*
 * Where the emulated PCI functions sit in sysfs: HCA N is function N of
 * bus 0x81 behind a root port of its own domain-0 root complex.
 */
#define EMU_SYSFS_PCI_PARENT "devices/pci0000:80/0000:80:01.0"
#define EMU_SYSFS_PCI_FMT "/0000:81:00.%u"

/* launcher/sysfs.c: the tree libibverbs reads through SYSFS_PATH */
int emu_sysfs_write(const char *root, const struct emu_model *model,
		    unsigned int host, unsigned int ndevices,
		    unsigned int nports);

#endif
