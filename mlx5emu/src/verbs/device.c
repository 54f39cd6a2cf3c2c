// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The emulated HCAs: the attributes QUERY_DEVICE / QUERY_PORT answer, and
 * the device-wide number spaces (HW UAR indices here; QPN/CQN/mkey tables
 * live in the objects' files but are owned by the device). Their
 * configuration is base/config.c's.
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

#define PORT_STATE_DOWN 1 /* IB_PORT_DOWN */
#define PORT_STATE_ACTIVE 4 /* IB_PORT_ACTIVE */
/* the kernel's enum ib_event_type, which libibverbs passes on as is */
#define EVENT_PORT_ACTIVE 9 /* IB_EVENT_PORT_ACTIVE */
#define EVENT_PORT_ERR 10 /* IB_EVENT_PORT_ERR */

struct emu_device emu_devices[EMU_MAX_DEVICES];

static void nic_comp_event(struct emu_cq *cq)
{
	if (cq->channel)
		emu_event_push_comp(cq->channel, cq);
}

static void nic_async_event(struct emu_uobj *uobj, uint32_t type)
{
	struct emu_context *ctx = uobj->ctx;

	if (ctx->async)
		emu_event_push_async(ctx->async, uobj, uobj->user_handle, type);
}

/* the async event of every port to every open context of dev */
static void port_event(struct emu_device *dev, uint32_t type)
{
	struct emu_event_file *files[64];
	unsigned int n = 0, i, p;
	struct emu_list *pos, *tmp;

	pthread_mutex_lock(&dev->lock);
	emu_list_for_each_safe(pos, tmp, &dev->contexts)
	{
		struct emu_context *ctx =
			container_of(pos, struct emu_context, node);
		struct emu_event_file *f =
			__atomic_load_n(&ctx->async, __ATOMIC_ACQUIRE);

		if (f && n < sizeof(files) / sizeof(files[0])) {
			emu_event_file_get(f);
			files[n++] = f;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < n; i++) {
		for (p = 1; p <= emu_cfg.nports; p++)
			emu_event_push_async(files[i], NULL, p, type);
		emu_event_file_put(files[i]);
	}
}

/*
 * Fault injection's port outage (nic/engine/fault_port.c): a link that
 * drops, as mlx5_ib reports it, DOWN in ibv_query_port and
 * IBV_EVENT_PORT_ERR to every context, then ACTIVE again
 */
static void nic_ports_set(bool up)
{
	unsigned int i, p;

	for (i = 0; i < emu_cfg.ndevices; i++) {
		for (p = 0; p < emu_cfg.nports; p++)
			__atomic_store_n(&emu_devices[i].port[p].state,
					 up ? PORT_STATE_ACTIVE :
					      PORT_STATE_DOWN,
					 __ATOMIC_RELAXED);
		port_event(&emu_devices[i],
			   up ? EVENT_PORT_ACTIVE : EVENT_PORT_ERR);
	}
}

static const struct emu_nic_host nic_host = {
	.devices = emu_devices,
	.qp_lookup = emu_qp_lookup,
	.mr_lookup = emu_mr_lookup,
	.comp_event = nic_comp_event,
	.async_event = nic_async_event,
	.ports_set = nic_ports_set,
	.stat_changed = emu_stat_changed,
};

static void init_once(void)
{
	unsigned int i, p;

	emu_config_init();
	for (i = 0; i < emu_cfg.ndevices; i++) {
		struct emu_device *dev = &emu_devices[i];

		dev->index = i;
		snprintf(dev->name, sizeof(dev->name), "mlx5_%u", i);
		dev->node_guid = emu_node_guid(emu_cfg.peers.self, i);
		for (p = 1; p <= emu_cfg.nports; p++) {
			dev->port[p - 1].lid = emu_port_lid(
				emu_cfg.peers.self, i, emu_cfg.nports, p);
			dev->port[p - 1].state = PORT_STATE_ACTIVE;
		}
		pthread_mutex_init(&dev->lock, NULL);
		emu_list_init(&dev->contexts);
		dev->uar_hint = EMU_FIRST_UAR_ID;
		dev->qps.cyclic = true;
		dev->qps.limit = emu_cfg.max_qp;
		dev->mkey_variant = 0x5a;
	}
	nic_set_host(&nic_host);
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
	/* what one process can have: its QPN slot (emu_param.h) */
	r->max_qp = (1U << m->log_max_qp) < emu_cfg.max_qp ?
			    1U << m->log_max_qp :
			    emu_cfg.max_qp;
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

/*
 * IB speed codes and widths (IB_SPEED_*, IB_WIDTH_*) to the unit of
 * QUERY_PORT_SPEED, 100 Mb/s (ibv_query_port_speed(3)): 1000 for 4X EDR
 */
int emu_port_speed(struct emu_device *dev, uint64_t port, uint64_t *speed)
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
	for (i = 0; i < ARRAY_SIZE(speeds); i++)
		if (speeds[i].code == m->active_speed &&
		    m->active_width < sizeof(lanes))
			break;
	if (i == ARRAY_SIZE(speeds))
		return -EINVAL;
	*speed = (uint64_t)speeds[i].lane_mbps * lanes[m->active_width] / 100;
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
		for (j = 0; j < n && emu_uar_claim(dev->index, i + j); j++)
			;
		if (j == n)
			break;
		while (j--)
			emu_uar_release(dev->index, i + j);
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
		emu_uar_release(dev->index, id + j);
	memset(dev->uar_used + id, 0, n);
	if (id < dev->uar_hint)
		dev->uar_hint = id;
	pthread_mutex_unlock(&dev->lock);
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * Does the NIC write into [addr, addr + len): an MR, or a CQ ring? Only
 * a buffer unmapped while registered can share an address with a UAR
 * page mapped later; such a page is never trapped (doorbell_trap.c), or
 * the NIC thread would fault on itself.
 */
bool emu_device_writes_into(uint64_t addr, uint64_t len)
{
	bool hit = false;
	unsigned int i;
	uint32_t id;

	for (i = 0; i < emu_cfg.ndevices && !hit; i++) {
		struct emu_device *dev = &emu_devices[i];

		pthread_mutex_lock(&dev->lock);
		for (id = 0; id < dev->mrs.nslots && !hit; id++) {
			struct emu_mr *mr = dev->mrs.slot[id];

			hit = mr && (void *)mr != (void *)dev &&
			      overlaps(addr, len, mr->start, mr->length);
		}
		for (id = 0; id < dev->cqs.nslots && !hit; id++) {
			struct emu_cq *cq = dev->cqs.slot[id];

			hit = cq && overlaps(addr, len, cq->buf_addr,
					     (uint64_t)cq->ncqe * cq->cqe_size);
		}
		pthread_mutex_unlock(&dev->lock);
	}
	return hit;
}
