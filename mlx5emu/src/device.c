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
#include "option.h"

/* filled by parse_env() */
struct emu_config emu_cfg = {
	.trace_fd = -1,
};

struct emu_device emu_devices[EMU_MAX_DEVICES];

/*
 * Option id from the environment: its value (option.h), the string in
 * *str; the default when unset, empty or not a value of the option.
 */
static unsigned int env_option(enum emu_opt_id id, const char **str)
{
	const struct emu_option *o = &emu_options[id];
	const char *v = getenv(o->var);
	unsigned int n = 0;
	char want[64];

	if (v && *v) {
		if (!emu_option_parse(o, v, &n, want, sizeof(want)))
			goto out;
		fprintf(stderr, "mlx5emu: ignoring %s=%s (want %s)\n", o->var,
			v, want);
	}
	v = o->def;
	if (v)
		emu_option_parse(o, v, &n, want, sizeof(want));
out:
	if (str)
		*str = v;
	return n;
}

/* the function's UARs (its BAR size), shared by all contexts */
static unsigned int env_device_uars(void)
{
	unsigned int max = emu_cfg.model->max_uars - EMU_FIRST_UAR_ID;
	unsigned int n = env_option(EMU_OPTION_DEVICE_UARS, NULL);

	if (n > max) {
		fprintf(stderr, "mlx5emu: ignoring %s=%u (want 1..%u)\n",
			emu_options[EMU_OPTION_DEVICE_UARS].var, n, max);
		n = 0;
	}
	return n ? n : max;
}

/* MLX5EMU_FAULT_*: a spec that does not parse was refused above */
static void parse_fault_env(struct emu_fault_cfg *f)
{
	const char *v;
	char err[64];

	env_option(EMU_OPTION_FAULT_DROP, &v);
	if (v)
		emu_fault_sel_parse(v, &f->drop, err, sizeof(err));
	env_option(EMU_OPTION_FAULT_DELAY, &v);
	if (v)
		emu_fault_sel_parse(v, &f->delay, err, sizeof(err));
	f->delay_us = env_option(EMU_OPTION_FAULT_DELAY_US, NULL);
	f->seed = env_option(EMU_OPTION_FAULT_SEED, NULL);
	f->timeout_us = env_option(EMU_OPTION_FAULT_TIMEOUT_US, NULL);
	f->cq_overrun = env_option(EMU_OPTION_FAULT_CQ_OVERRUN, NULL);
	env_option(EMU_OPTION_FAULT_PORT_DOWN, &v);
	f->port_down =
		v && !emu_fault_window_parse(v, &f->port_at_ms, &f->port_dur_ms,
					     err, sizeof(err));
	f->on = f->drop.kind || f->delay.kind || f->timeout_us ||
		f->cq_overrun || f->port_down;
}

/*
 * MLX5EMU_PEERS: the hosts of the fabric and which one this is. A list
 * that cannot be used here (the launcher refuses it first) leaves the
 * fabric to this host, said once.
 */
static void parse_peers_env(void)
{
	const char *list = getenv(emu_options[EMU_OPTION_PEERS].var);
	const char *secret;
	char err[160];

	if (!list || !*list)
		return;
	env_option(EMU_OPTION_FABRIC_SECRET, &secret);
	if (fabric_peers_parse(list, &emu_cfg.peers, err, sizeof(err)) ||
	    fabric_peers_find_self(
		    &emu_cfg.peers,
		    getenv(emu_options[EMU_OPTION_HOST_INDEX].var), err,
		    sizeof(err)) ||
	    (!secret && snprintf(err, sizeof(err), "no %s",
				 emu_options[EMU_OPTION_FABRIC_SECRET].var))) {
		fprintf(stderr, "mlx5emu: %s: %s; the fabric is this host's\n",
			emu_options[EMU_OPTION_PEERS].var, err);
		memset(&emu_cfg.peers, 0, sizeof(emu_cfg.peers));
		return;
	}
	snprintf(emu_cfg.fabric_secret, sizeof(emu_cfg.fabric_secret), "%s",
		 secret);
}

static void parse_env(void)
{
	const char *v;

	env_option(EMU_OPTION_MODEL, &v);
	emu_cfg.model = emu_model_find(v);
	emu_cfg.ndevices = env_option(EMU_OPTION_DEVICES, NULL);
	emu_cfg.nports = env_option(EMU_OPTION_PORTS, NULL);
	/* the choices are listed in the order of the enums */
	emu_cfg.uar_mode = env_option(EMU_OPTION_UAR, NULL);
	emu_cfg.transport = env_option(EMU_OPTION_TRANSPORT, NULL);
	emu_cfg.uars_per_page = env_option(EMU_OPTION_UARS_PER_PAGE, NULL);
	if (emu_cfg.uar_mode == EMU_UAR_STATIC)
		emu_cfg.uars_per_page = 1;
	emu_cfg.dyn_bfregs = env_option(EMU_OPTION_DYN_BFREGS, NULL);
	emu_cfg.uar_limit = env_option(EMU_OPTION_UAR_LIMIT, NULL);
	emu_cfg.uar_id_end = EMU_FIRST_UAR_ID + env_device_uars();
	emu_cfg.netlink = env_option(EMU_OPTION_NETLINK, NULL);
	env_option(EMU_OPTION_TRACE, &v);
	if (v && *v && strcmp(v, "0")) {
		if (!strcmp(v, "1") || !strcmp(v, "stderr"))
			emu_cfg.trace_fd = fcntl(2, F_DUPFD_CLOEXEC, 100);
		else
			emu_cfg.trace_fd =
				open(v,
				     O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
				     0644);
	}
	env_option(EMU_OPTION_STAT_DIR, &v);
	if (v)
		snprintf(emu_cfg.stat_dir, sizeof(emu_cfg.stat_dir), "%s", v);
	env_option(EMU_OPTION_FABRIC, &v);
	snprintf(emu_cfg.fabric, sizeof(emu_cfg.fabric), "%s",
		 v ? v : emu_option_default(&emu_options[EMU_OPTION_FABRIC]));
	emu_cfg.nic_spin = env_option(EMU_OPTION_NIC, NULL) == EMU_NIC_SPIN;
	emu_cfg.nic_idle_us = env_option(EMU_OPTION_NIC_IDLE_US, NULL);
	emu_cfg.nic_sched = env_option(EMU_OPTION_NIC_SCHED, NULL);
	emu_cfg.nic_budget = env_option(EMU_OPTION_NIC_BUDGET, NULL);
	emu_cfg.max_qp = env_option(EMU_OPTION_MAX_QP, NULL);
	emu_cfg.maps_query = env_option(EMU_OPTION_MAPS_QUERY, NULL);
	emu_cfg.doorbell_trap = env_option(EMU_OPTION_DOORBELL_TRAP, NULL);
	parse_fault_env(&emu_cfg.fault);
	parse_peers_env();
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
		dev->node_guid = emu_node_guid(emu_cfg.peers.self, i);
		for (p = 1; p <= emu_cfg.nports; p++) {
			dev->port[p - 1].lid = emu_port_lid(
				emu_cfg.peers.self, i, emu_cfg.nports, p);
			dev->port[p - 1].state = 4; /* IB_PORT_ACTIVE */
		}
		pthread_mutex_init(&dev->lock, NULL);
		emu_list_init(&dev->contexts);
		dev->uar_hint = EMU_FIRST_UAR_ID;
		dev->qps.cyclic = true;
		dev->qps.limit = emu_cfg.max_qp;
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
	for (i = 0; i < ARRAY_SIZE(speeds); i++)
		if (speeds[i].code == m->active_speed &&
		    m->active_width < sizeof(lanes))
			break;
	if (i == ARRAY_SIZE(speeds))
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
