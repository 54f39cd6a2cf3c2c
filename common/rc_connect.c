// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The one RC bring-up (address, INIT, RTR, RTS) of every tool, benchmark and
 * test.
 */
#include <errno.h>
#include <string.h>

#include "rc_connect.h"

int rc_port_addr(struct ibv_context *ctx, unsigned int port, int gid_index,
		 struct rc_addr *out)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = ibv_query_port(ctx, port, &pa);
	if (ret)
		return ret;
	if (pa.state != IBV_PORT_ACTIVE)
		return ENETDOWN;
	out->lid = pa.lid;
	out->mtu = pa.active_mtu;
	if (gid_index >= 0 || pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		ret = ibv_query_gid(ctx, port, gid_index < 0 ? 0 : gid_index,
				    &gid);
		if (ret)
			return ret;
		memcpy(out->gid, gid.raw, sizeof(out->gid));
		out->use_gid = 1;
	}
	return 0;
}

int rc_qp_init(struct ibv_qp *qp, unsigned int port, unsigned int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = port,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
}

int rc_qp_rtr(struct ibv_qp *qp, unsigned int port, int gid_index,
	      const struct rc_addr *local, const struct rc_addr *remote)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = remote->mtu < local->mtu ? remote->mtu : local->mtu,
		.dest_qp_num = remote->qpn,
		.rq_psn = remote->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.dlid = remote->lid,
			.port_num = port,
		},
	};

	if (remote->use_gid) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.grh.sgid_index = gid_index < 0 ? 0 : gid_index;
		memcpy(a.ah_attr.grh.dgid.raw, remote->gid, 16);
	}
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				     IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
}

int rc_qp_rts(struct ibv_qp *qp, const struct rc_addr *local)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = local->psn,
		.max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

int rc_qp_connect(struct ibv_qp *qp, unsigned int port, int gid_index,
		  const struct rc_addr *local, const struct rc_addr *remote)
{
	int ret = rc_qp_rtr(qp, port, gid_index, local, remote);

	return ret ? ret : rc_qp_rts(qp, local);
}

int rc_connect_pair(struct ibv_qp *a, struct ibv_qp *b, unsigned int port,
		    unsigned int access)
{
	struct rc_addr addr_a, addr_b;
	int ret;

	ret = rc_port_addr(a->context, port, -1, &addr_a);
	if (!ret)
		ret = rc_port_addr(b->context, port, -1, &addr_b);
	if (ret)
		return ret;
	addr_a.qpn = a->qp_num;
	addr_b.qpn = b->qp_num;
	ret = rc_qp_init(a, port, access);
	if (!ret)
		ret = rc_qp_init(b, port, access);
	if (!ret)
		ret = rc_qp_connect(a, port, -1, &addr_a, &addr_b);
	if (!ret)
		ret = rc_qp_connect(b, port, -1, &addr_b, &addr_a);
	return ret;
}
