// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A small verbs program, as a project under test might have: an RC QP
 * connected to itself writes a buffer into another with RDMA WRITE, and
 * the bytes are checked. Built against whatever libibverbs is installed
 * (the distribution's), run under `mlx5emu run`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define LEN 4096

static int fail(const char *what)
{
	perror(what);
	return 1;
}

static int connect_self(struct ibv_qp *qp, uint16_t lid)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
				 .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.ah_attr.dlid = lid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qa = { .cap = { 4, 4, 1, 1 },
				       .qp_type = IBV_QPT_RC };
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	char *buf;
	int i, n;

	if (!list || !list[0])
		return fail("no RDMA device");
	ctx = ibv_open_device(list[0]);
	if (!ctx || ibv_query_port(ctx, 1, &port))
		return fail("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	buf = calloc(2, LEN);
	if (!pd || !cq || !buf)
		return fail("resources");
	mr = ibv_reg_mr(pd, buf, 2 * LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	qa.send_cq = qa.recv_cq = cq;
	qp = mr ? ibv_create_qp(pd, &qa) : NULL;
	if (!qp || connect_self(qp, port.lid))
		return fail("the QP");
	for (i = 0; i < LEN; i++)
		buf[i] = (char)(i * 7 + 1);
	sge = (struct ibv_sge){ (uintptr_t)buf, LEN, mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)buf + LEN;
	wr.wr.rdma.rkey = mr->rkey;
	if (ibv_post_send(qp, &wr, &bad))
		return fail("ibv_post_send");
	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		;
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "completion: %s\n",
			n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		return 1;
	}
	if (memcmp(buf, buf + LEN, LEN)) {
		fprintf(stderr, "the written bytes differ\n");
		return 1;
	}
	printf("hello_verbs: %s wrote %d bytes to itself\n",
	       ibv_get_device_name(list[0]), LEN);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	return 0;
}
