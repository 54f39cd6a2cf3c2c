// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What an id knows, as ucma.c's QUERY options and INIT_QP_ATTR answer it:
 * addresses, the path record in the SA's wire format, GIDs, and the QP
 * attributes of each transition (cm.c: cm_init_qp_{init,rtr,rts}_attr).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "ucma.h"

static void addr_head(const struct ucma_id *id,
		      struct rdma_ucm_query_addr_resp *r)
{
	if (!id->has_dev)
		return;
	r->node_guid = htobe64(emu_devices[0].node_guid);
	r->port_num = 1;
	r->pkey = htobe16(0xffff);
	r->ibdev_index = emu_devices[0].index;
}

static int query_addr(const struct ucma_id *id, void *out, size_t out_len)
{
	struct rdma_ucm_query_addr_resp *r = out;

	if (out_len < sizeof(*r))
		return -ENOSPC;
	memset(r, 0, sizeof(*r));
	addr_head(id, r);
	r->src_size = ucma_addr_size((const struct sockaddr *)&id->src);
	r->dst_size = ucma_addr_size((const struct sockaddr *)&id->dst);
	memcpy(&r->src_addr, &id->src, r->src_size);
	memcpy(&r->dst_addr, &id->dst, r->dst_size);
	return sizeof(*r);
}

static void gid_addr(struct ucma_sockaddr_ib *sib, const uint8_t *gid)
{
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB_FAMILY;
	sib->sib_pkey = htobe16(0xffff);
	memcpy(sib->sib_addr, gid, 16);
}

static int query_gid(const struct ucma_id *id, void *out, size_t out_len)
{
	struct rdma_ucm_query_addr_resp *r = out;
	struct ucma_sockaddr_ib sib;
	struct cm_end local;

	if (out_len < sizeof(*r))
		return -ENOSPC;
	memset(r, 0, sizeof(*r));
	addr_head(id, r);
	ucma_local_end(&local);
	gid_addr(&sib, local.gid);
	memcpy(&r->src_addr, &sib, sizeof(sib));
	gid_addr(&sib, id->remote_known ? id->remote.gid : local.gid);
	memcpy(&r->dst_addr, &sib, sizeof(sib));
	r->src_size = sizeof(sib);
	r->dst_size = sizeof(sib);
	return sizeof(*r);
}

/* ib_sa_pack_path(): the 64-byte PathRecord of the SA, big endian */
static void pack_path(const struct ib_user_path_rec *p, uint8_t *raw)
{
	uint32_t word = be32toh(p->flow_label) << 8 | p->hop_limit;

	memset(raw, 0, 64);
	memcpy(raw + 8, p->dgid, 16);
	memcpy(raw + 24, p->sgid, 16);
	memcpy(raw + 40, &p->dlid, 2);
	memcpy(raw + 42, &p->slid, 2);
	word = htobe32(word);
	memcpy(raw + 44, &word, 4);
	raw[48] = p->traffic_class;
	raw[49] = (uint8_t)(p->reversible << 7 | p->numb_path);
	memcpy(raw + 50, &p->pkey, 2);
	raw[53] = p->sl & 0xf;
	raw[54] = (uint8_t)(p->mtu_selector << 6 | p->mtu);
	raw[55] = (uint8_t)(p->rate_selector << 6 | p->rate);
	raw[56] = (uint8_t)(p->packet_life_time_selector << 6 |
			    p->packet_life_time);
	raw[57] = p->preference;
}

static int query_path(struct ucma_id *id, void *out, size_t out_len)
{
	struct rdma_ucm_query_path_resp *r = out;
	struct rdma_ucm_query_route_resp route;

	if (out_len < sizeof(*r))
		return -ENOSPC;
	memset(r, 0, sizeof(*r));
	ucma_query_route(id, &route, sizeof(route));
	if (route.num_paths &&
	    out_len >= sizeof(*r) + sizeof(struct ib_path_rec_data)) {
		r->num_paths = 1;
		r->path_data[0].flags =
			IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL;
		pack_path(&route.ib_route[0],
			  (uint8_t *)r->path_data[0].path_rec);
		return sizeof(*r) + sizeof(struct ib_path_rec_data);
	}
	return sizeof(*r);
}

/* the byte count to copy out, or -errno */
int ucma_query(struct ucma_id *id, uint32_t option, void *resp, size_t out_len)
{
	switch (option) {
	case RDMA_USER_CM_QUERY_ADDR:
		return query_addr(id, resp, out_len);
	case RDMA_USER_CM_QUERY_PATH:
		return query_path(id, resp, out_len);
	case RDMA_USER_CM_QUERY_GID:
		return query_gid(id, resp, out_len);
	default:
		return -ENOSYS;
	}
}

/* ------------------------------------------------------------------ */
/* INIT_QP_ATTR                                                        */

static int ud_attr(const struct ucma_id *id, uint32_t state,
		   struct ib_uverbs_qp_attr *a)
{
	switch (state) {
	case 1: /* INIT */
		a->qp_attr_mask = CM_QP_STATE | CM_QP_PKEY_INDEX | CM_QP_PORT |
				  CM_QP_QKEY;
		a->qkey = id->ps == RDMA_PS_IPOIB ? 0 : CM_UDP_QKEY;
		return 0;
	case 2: /* RTR */
		a->qp_attr_mask = CM_QP_STATE;
		return 0;
	case 3: /* RTS */
		a->qp_attr_mask = CM_QP_STATE | CM_QP_SQ_PSN;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * Before the exchange only INIT is known (cma_ib_init_qp_attr); after it,
 * each side's limits are the other's offer, as cm.c keeps them.
 */
static int rc_attr(const struct ucma_id *id, uint32_t state,
		   struct ib_uverbs_qp_attr *a)
{
	const struct cm_end *r = &id->remote;

	if (state == 1) {
		a->qp_attr_mask = CM_QP_STATE | CM_QP_ACCESS_FLAGS |
				  CM_QP_PKEY_INDEX | CM_QP_PORT;
		if (id->remote_known)
			a->qp_access_flags = 2 | (r->init_depth ? 4 | 8 : 0);
		return 0;
	}
	if (!id->remote_known || (state != 2 && state != 3))
		return -EINVAL;
	if (state == 2) {
		a->qp_attr_mask = CM_QP_STATE | CM_QP_AV | CM_QP_PATH_MTU |
				  CM_QP_DEST_QPN | CM_QP_RQ_PSN |
				  CM_QP_MAX_DEST_RD_ATOMIC |
				  CM_QP_MIN_RNR_TIMER;
		a->ah_attr.dlid = r->lid;
		a->ah_attr.port_num = 1;
		a->path_mtu = 5; /* IB_MTU_4096 */
		a->dest_qp_num = r->qpn;
		a->rq_psn = r->psn;
		a->max_dest_rd_atomic = r->init_depth;
		return 0;
	}
	a->qp_attr_mask = CM_QP_STATE | CM_QP_SQ_PSN | CM_QP_TIMEOUT |
			  CM_QP_RETRY_CNT | CM_QP_RNR_RETRY |
			  CM_QP_MAX_QP_RD_ATOMIC;
	a->sq_psn = id->local.psn;
	a->timeout = id->timeout_set ? id->ack_timeout : CM_ACK_TIMEOUT;
	a->retry_cnt = id->local.retry;
	a->rnr_retry = r->rnr_retry;
	a->max_rd_atomic = r->resp_res;
	return 0;
}

int ucma_init_qp_attr(struct ucma_id *id, uint32_t state,
		      struct ib_uverbs_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = state;
	a->port_num = 1;
	int ret;

	if (id->qp_type == 4 /* IB_QPT_UD */)
		ret = ud_attr(id, state, a);
	else
		ret = rc_attr(id, state, a);
	emu_trace(
		"ucma: id %u init_qp_attr %u mask 0x%x dlid %u dqpn 0x%x rq_psn 0x%x sq_psn 0x%x rd %u/%u access 0x%x -> %d",
		id->handle, state, a->qp_attr_mask, a->ah_attr.dlid,
		a->dest_qp_num, a->rq_psn, a->sq_psn, a->max_rd_atomic,
		a->max_dest_rd_atomic, a->qp_access_flags, ret);
	return ret;
}
