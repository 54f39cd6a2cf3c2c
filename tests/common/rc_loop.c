// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "rc_connect.h"
#include "rc_loop.h"

struct ibv_qp *rc_loop_create_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				 uint32_t depth)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = depth,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = 64,
		},
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &attr);
}

static void to_rts(struct ibv_qp *qp, uint16_t dlid, uint32_t dqpn)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	assert_int_equal(ibv_modify_qp(qp, &attr,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
			 0);

	assert_int_equal(rc_connect_rtr(qp, dlid, dqpn), 0);
	assert_int_equal(rc_connect_rts(qp), 0);
}

void rc_loop_connect(struct ibv_qp *a, struct ibv_qp *b)
{
	struct ibv_port_attr port;

	assert_int_equal(ibv_query_port(a->context, 1, &port), 0);
	to_rts(a, port.lid, b->qp_num);
	to_rts(b, port.lid, a->qp_num);
}
