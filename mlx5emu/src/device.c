// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The emulated HCAs: configuration from the launcher's environment, the
 * attributes QUERY_DEVICE / QUERY_PORT answer, and the device-wide number
 * spaces (HW UAR indices here; QPN/CQN/mkey tables live in the objects'
 * files but are owned by the device).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mlx5emu.h"

struct emu_config emu_cfg = {
	.ndevices = 1,
	.nports = 1,
	.uar_mode = EMU_UAR_DYNAMIC,
	.transport = EMU_TRANSPORT_WRITE,
	.uars_per_page = 1,
	.dyn_bfregs = 1024,
	.trace_fd = -1,
};

struct emu_device emu_devices[EMU_MAX_DEVICES];

static unsigned int env_uint(const char *name, unsigned int def,
			     unsigned int min, unsigned int max)
{
	const char *v = getenv(name);
	unsigned long n;
	char *end;

	if (!v || !*v)
		return def;
	n = strtoul(v, &end, 0);
	if (*end || n < min || n > max) {
		fprintf(stderr, "mlx5emu: ignoring %s=%s (want %u..%u)\n", name,
			v, min, max);
		return def;
	}
	return n;
}

static void parse_env(void)
{
	const char *v;

	emu_cfg.model = emu_model_default();
	v = getenv("MLX5EMU_MODEL");
	if (v && *v) {
		emu_cfg.model = emu_model_find(v);
		if (!emu_cfg.model) {
			fprintf(stderr, "mlx5emu: unknown model %s\n", v);
			emu_cfg.model = emu_model_default();
		}
	}
	emu_cfg.ndevices = env_uint("MLX5EMU_DEVICES", 1, 1, EMU_MAX_DEVICES);
	emu_cfg.nports = env_uint("MLX5EMU_PORTS", 1, 1, EMU_MAX_PORTS);
	v = getenv("MLX5EMU_UAR");
	if (v && !strcmp(v, "static"))
		emu_cfg.uar_mode = EMU_UAR_STATIC;
	v = getenv("MLX5EMU_TRANSPORT");
	if (v && !strcmp(v, "ioctl"))
		emu_cfg.transport = EMU_TRANSPORT_IOCTL;
	emu_cfg.uars_per_page = env_uint("MLX5EMU_UARS_PER_PAGE", 1, 1, 16);
	if (emu_cfg.uar_mode == EMU_UAR_STATIC)
		emu_cfg.uars_per_page = 1;
	emu_cfg.dyn_bfregs =
		env_uint("MLX5EMU_DYN_BFREGS", 1024, 0, EMU_MAX_BFREGS * 4);
	emu_cfg.uar_limit = env_uint("MLX5EMU_UAR_LIMIT", 0, 0, 1 << 20);
	/* the function's UARs (its BAR size), shared by all contexts */
	emu_cfg.uar_id_end =
		EMU_FIRST_UAR_ID +
		env_uint("MLX5EMU_DEVICE_UARS",
			 emu_cfg.model->max_uars - EMU_FIRST_UAR_ID, 1,
			 emu_cfg.model->max_uars - EMU_FIRST_UAR_ID);

	v = getenv("MLX5EMU_NETLINK");
	emu_cfg.netlink = !v || strcmp(v, "0");
	v = getenv("MLX5EMU_TRACE");
	if (v && *v && strcmp(v, "0")) {
		if (!strcmp(v, "1") || !strcmp(v, "stderr"))
			emu_cfg.trace_fd = fcntl(2, F_DUPFD_CLOEXEC, 100);
		else
			emu_cfg.trace_fd =
				open(v,
				     O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
				     0644);
	}
	v = getenv("MLX5EMU_STAT_DIR");
	if (v)
		snprintf(emu_cfg.stat_dir, sizeof(emu_cfg.stat_dir), "%s", v);
}

static void init_once(void)
{
	unsigned int i, p;

	emu_libc_init();
	parse_env();
	for (i = 0; i < emu_cfg.ndevices; i++) {
		struct emu_device *dev = &emu_devices[i];

		dev->index = i;
		snprintf(dev->name, sizeof(dev->name), "mlx5_%u", i);
		dev->node_guid = emu_node_guid(i);
		for (p = 1; p <= emu_cfg.nports; p++) {
			dev->port[p - 1].lid =
				emu_port_lid(i, emu_cfg.nports, p);
			dev->port[p - 1].state = 4; /* IB_PORT_ACTIVE */
		}
		pthread_mutex_init(&dev->lock, NULL);
		emu_list_init(&dev->contexts);
		dev->uar_hint = EMU_FIRST_UAR_ID;
		dev->qps.cyclic = true;
		dev->mkey_variant = 0x5a;
	}
}

void emu_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init_once);
}

/* "/dev/infiniband/uverbsN" -> N, or -1 if that is not one of ours */
int emu_cdev_index(const char *path)
{
	static const char prefix[] = "/dev/infiniband/uverbs";
	unsigned long n;
	char *end;

	if (!path || strncmp(path, prefix, sizeof(prefix) - 1))
		return -1;
	path += sizeof(prefix) - 1;
	if (*path < '0' || *path > '9')
		return -1;
	n = strtoul(path, &end, 10);
	if (*end)
		return -1;
	emu_init();
	return n < emu_cfg.ndevices ? (int)n : -1;
}

dev_t emu_cdev_rdev(unsigned int index)
{
	return makedev(EMU_CDEV_MAJOR, EMU_CDEV_MINOR_BASE + index);
}

uint64_t emu_fw_ver(void)
{
	const struct emu_model *m = emu_cfg.model;

	return (uint64_t)m->fw_major << 32 | (uint64_t)m->fw_minor << 16 |
	       m->fw_sub;
}

enum {
	/* ib_verbs.h IB_DEVICE_* bits a plain RC-capable mlx5 reports */
	EMU_DEV_BAD_PKEY_CNTR = 1 << 1,
	EMU_DEV_BAD_QKEY_CNTR = 1 << 2,
	EMU_DEV_CHANGE_PHY_PORT = 1 << 5,
	EMU_DEV_PORT_ACTIVE_EVENT = 1 << 10,
	EMU_DEV_SYS_IMAGE_GUID = 1 << 11,
	EMU_DEV_RC_RNR_NAK_GEN = 1 << 12,
	EMU_ATOMIC_HCA = 1,
};

void emu_fill_query_device(struct emu_device *dev,
			   struct ib_uverbs_query_device_resp *r)
{
	const struct emu_model *m = emu_cfg.model;

	memset(r, 0, sizeof(*r));
	r->fw_ver = emu_fw_ver();
	r->node_guid = htobe64(dev->node_guid);
	r->sys_image_guid = htobe64(dev->node_guid);
	r->max_mr_size = ~0ULL;
	r->page_size_cap = ~(uint64_t)(EMU_ADAPTER_PAGE - 1);
	r->vendor_id = EMU_VENDOR_ID;
	r->vendor_part_id = m->pci_device;
	r->max_qp = 1U << m->log_max_qp;
	r->max_qp_wr = 1U << m->log_max_qp_sz;
	r->device_cap_flags = EMU_DEV_BAD_PKEY_CNTR | EMU_DEV_BAD_QKEY_CNTR |
			      EMU_DEV_CHANGE_PHY_PORT | EMU_DEV_SYS_IMAGE_GUID |
			      EMU_DEV_RC_RNR_NAK_GEN |
			      EMU_DEV_PORT_ACTIVE_EVENT;
	r->max_sge = m->max_sge;
	r->max_sge_rd = m->max_sge;
	r->max_cq = 1U << m->log_max_cq;
	r->max_cqe = (1U << m->log_max_cq_sz) - 1;
	r->max_mr = 1U << m->log_max_mkey;
	r->max_pd = 1U << m->log_max_pd;
	r->max_qp_rd_atom = 1U << m->log_max_ra_res_qp;
	r->max_qp_init_rd_atom = 1U << m->log_max_ra_req_qp;
	r->max_res_rd_atom = r->max_qp_rd_atom * r->max_qp;
	r->max_srq = 1U << m->log_max_qp;
	r->max_srq_wr = (1U << m->log_max_qp_sz) - 1;
	r->max_srq_sge = EMU_SRQ_MAX_SGE;
	/*
	 * mlx5_ib says HCA only for firmware in host-endian atomic mode: the
	 * NIC then adds and compares host-order values and answers in host
	 * order, which is what this NIC does.
	 */
	r->atomic_cap = EMU_ATOMIC_HCA;
	r->max_pkeys = 1;
	r->local_ca_ack_delay = 16;
	r->phys_port_cnt = emu_cfg.nports;
}

int emu_query_port(struct emu_device *dev, unsigned int port,
		   struct ib_uverbs_query_port_resp *r)
{
	const struct emu_model *m = emu_cfg.model;

	if (port < 1 || port > emu_cfg.nports)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->port_cap_flags = 0x2651e848;
	r->max_msg_sz = 1U << 30;
	r->gid_tbl_len = EMU_GID_TBL_LEN; /* only GID 0 is set */
	r->pkey_tbl_len = 1;
	r->lid = dev->port[port - 1].lid;
	r->sm_lid = 1;
	r->state = dev->port[port - 1].state;
	r->max_mtu = 5; /* IB_MTU_4096 */
	r->active_mtu = 5;
	r->max_vl_num = 4; /* VL0-7 */
	r->subnet_timeout = 18;
	r->active_width = m->active_width;
	r->active_speed = m->active_speed;
	r->phys_state = 5; /* LinkUp */
	r->link_layer = 1; /* IB_LINK_LAYER_INFINIBAND */
	return 0;
}

/* IB speed codes and widths (IB_SPEED_*, IB_WIDTH_*) to Mb/s */
int emu_port_speed_mbps(struct emu_device *dev, uint64_t port, uint64_t *mbps)
{
	static const struct {
		uint8_t code;
		uint32_t lane_mbps;
	} speeds[] = { { 1, 2500 },   { 2, 5000 },    { 4, 10000 },
		       { 8, 10000 },  { 16, 14000 },  { 32, 25000 },
		       { 64, 50000 }, { 128, 100000 } };
	static const uint8_t lanes[] = {
		[1] = 1, [2] = 4, [4] = 8, [8] = 12, [16] = 2
	};
	const struct emu_model *m = emu_cfg.model;
	unsigned int i;

	(void)dev;
	if (port < 1 || port > emu_cfg.nports)
		return -EINVAL;
	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == m->active_speed &&
		    m->active_width < sizeof(lanes))
			break;
	if (i == sizeof(speeds) / sizeof(speeds[0]))
		return -EINVAL;
	*mbps = (uint64_t)speeds[i].lane_mbps * lanes[m->active_width];
	return 0;
}

/* n contiguous HW UAR indices, or 0 when the function's BAR is full */
uint32_t emu_dev_alloc_uar_id(struct emu_device *dev, uint32_t n)
{
	uint32_t max = emu_cfg.uar_id_end, i, j, id = 0;

	pthread_mutex_lock(&dev->lock);
	if (!dev->uar_used) {
		dev->uar_used = calloc(emu_cfg.model->max_uars, 1);
		if (!dev->uar_used)
			goto out;
	}
	for (i = dev->uar_hint; i + n <= max; i++) {
		for (j = 0; j < n && !dev->uar_used[i + j]; j++)
			;
		if (j < n)
			continue;
		/* HW UAR indices are device-wide: other processes too */
		for (j = 0; j < n && fabric_claim_uar(dev->index, i + j); j++)
			;
		if (j == n)
			break;
		while (j--)
			fabric_release_uar(dev->index, i + j);
	}
	if (i + n > max)
		goto out;
	memset(dev->uar_used + i, 1, n);
	if (i == dev->uar_hint)
		dev->uar_hint = i + n;
	id = i;
out:
	pthread_mutex_unlock(&dev->lock);
	return id;
}

void emu_dev_free_uar_id(struct emu_device *dev, uint32_t id, uint32_t n)
{
	uint32_t j;

	pthread_mutex_lock(&dev->lock);
	for (j = 0; j < n; j++)
		fabric_release_uar(dev->index, id + j);
	memset(dev->uar_used + id, 0, n);
	if (id < dev->uar_hint)
		dev->uar_hint = id;
	pthread_mutex_unlock(&dev->lock);
}
