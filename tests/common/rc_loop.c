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

void rc_loop_connect(struct ibv_qp *a, struct ibv_qp *b)
{
	assert_int_equal(rc_connect_pair(a, b, 1,
					 IBV_ACCESS_LOCAL_WRITE |
						 IBV_ACCESS_REMOTE_WRITE |
						 IBV_ACCESS_REMOTE_READ),
			 0);
}
