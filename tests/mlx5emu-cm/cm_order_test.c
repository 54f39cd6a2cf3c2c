// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A disconnect is reported after the completions that came before it. A
 * server process takes our SEND and disconnects at once, so its DREQ
 * follows the SEND's acknowledgement closely, on another socket. Our NIC
 * is busy meanwhile (a loopback stream of 8 MB RDMA WRITEs) and reads its
 * fabric input late. On the wire the acknowledgement comes first; so, when
 * DISCONNECTED is read, the SEND's successful completion must already be
 * in the CQ. Without that, libfabric's ofi_rxm flushed or lost its last
 * message at teardown.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <rdma/rdma_cma.h>

#include "rc_loop.h"

#define CM_PORT 7481
#define RESOLVE_MS 2000
#define BUSY_WRITES 256 /* of BUSY_LEN each, 0.1-0.3 s of NIC work */
#define BUSY_LEN (8 << 20)
#define MSG_LEN 64
#define WAIT_SEC 20
/* the window is a race: each round catches a late disconnect one time
 * in four or five */
#define ROUNDS 12

static struct sockaddr_in loopback(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	return sin;
}

/* the next event's type, or -1; *id is its id */
static int next_event(struct rdma_event_channel *ch, struct rdma_cm_id **id)
{
	struct rdma_cm_event *ev;
	int type;

	if (rdma_get_cm_event(ch, &ev))
		return -1;
	type = ev->event;
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
	return type;
}

/* one completion of cq, waiting up to WAIT_SEC; false on timeout */
static bool wait_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	time_t end = time(NULL) + WAIT_SEC;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)) && time(NULL) < end)
		;
	return n == 1;
}

/* what both ends ask rdma_create_qp() for: one message each way */
static struct ibv_qp_init_attr msg_qp_attr(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 1,
			 .max_recv_wr = 1,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return attr;
}

/* one connection: take one SEND, disconnect at once; 0 if done */
static int serve_one(struct rdma_event_channel *ch)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1 };
	struct ibv_qp_init_attr qpa;
	struct ibv_cq *cq;
	static char buf[MSG_LEN];
	struct ibv_recv_wr wr, *bad;
	struct rdma_cm_id *id;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	if (next_event(ch, &id) != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 2;
	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	qpa = msg_qp_attr(cq);
	if (!pd || !cq || rdma_create_qp(id, pd, &qpa))
		return 3;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return 4;
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	wr = (struct ibv_recv_wr){ .sg_list = &sge, .num_sge = 1 };
	if (ibv_post_recv(id->qp, &wr, &bad) || rdma_accept(id, &param))
		return 5;
	if (next_event(ch, NULL) != RDMA_CM_EVENT_ESTABLISHED)
		return 6;
	if (!wait_one(cq, &wc) || wc.status != IBV_WC_SUCCESS)
		return 7;
	if (rdma_disconnect(id) ||
	    next_event(ch, NULL) != RDMA_CM_EVENT_DISCONNECTED)
		return 8;
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	return 0;
}

/* the server process: ROUNDS connections; its exit status, 0 if done */
static int server(int ready_fd)
{
	struct sockaddr_in addr = loopback(CM_PORT);
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen;
	int i, ret = 0;

	if (!ch || rdma_create_id(ch, &listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen, (struct sockaddr *)&addr) ||
	    rdma_listen(listen, 1) || write(ready_fd, "", 1) != 1)
		return 1;
	for (i = 0; i < ROUNDS && !ret; i++)
		ret = serve_one(ch);
	rdma_destroy_id(listen);
	rdma_destroy_event_channel(ch);
	return ret;
}

/* keep our NIC busy with a stream of loopback writes to the MR's top */
static void post_busy_writes(struct ibv_qp *qp, struct ibv_mr *mr)
{
	struct ibv_sge sge = { (uintptr_t)mr->addr, BUSY_LEN, mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { (uintptr_t)mr->addr + BUSY_LEN, mr->rkey },
	};
	struct ibv_send_wr *bad;
	int i;

	for (i = 0; i < BUSY_WRITES; i++) {
		wr.send_flags = i == BUSY_WRITES - 1 ? IBV_SEND_SIGNALED : 0;
		assert_int_equal(ibv_post_send(qp, &wr, &bad), 0);
	}
}

static void disconnect_after_send(void)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .retry_count = 7 };
	struct sockaddr_in dst = loopback(CM_PORT);
	struct ibv_qp_init_attr qpa;
	struct ibv_cq *cq;
	static char msg[MSG_LEN] = "the last message";
	struct ibv_qp *busy_a, *busy_b;
	struct ibv_cq *busy_cq;
	struct rdma_event_channel *ch;
	struct ibv_send_wr wr, *bad;
	struct ibv_mr *mr, *busy_mr;
	struct rdma_cm_id *id;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_wc wc;
	void *busy_buf;

	ch = rdma_create_event_channel();
	assert_non_null(ch);
	assert_int_equal(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
					   RESOLVE_MS),
			 0);
	assert_int_equal(next_event(ch, NULL), RDMA_CM_EVENT_ADDR_RESOLVED);
	assert_int_equal(rdma_resolve_route(id, RESOLVE_MS), 0);
	assert_int_equal(next_event(ch, NULL), RDMA_CM_EVENT_ROUTE_RESOLVED);

	pd = ibv_alloc_pd(id->verbs);
	assert_non_null(pd);
	cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	assert_non_null(cq);
	qpa = msg_qp_attr(cq);
	assert_int_equal(rdma_create_qp(id, pd, &qpa), 0);
	mr = ibv_reg_mr(pd, msg, sizeof(msg), 0);
	assert_non_null(mr);

	busy_cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	assert_non_null(busy_cq);
	busy_a = rc_loop_create_qp(pd, busy_cq, BUSY_WRITES);
	busy_b = rc_loop_create_qp(pd, busy_cq, 1);
	assert_non_null(busy_a);
	assert_non_null(busy_b);
	rc_loop_connect(busy_a, busy_b);
	busy_buf = calloc(2, BUSY_LEN);
	assert_non_null(busy_buf);
	busy_mr = ibv_reg_mr(pd, busy_buf, 2 * BUSY_LEN,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(busy_mr);

	assert_int_equal(rdma_connect(id, &param), 0);
	assert_int_equal(next_event(ch, NULL), RDMA_CM_EVENT_ESTABLISHED);

	post_busy_writes(busy_a, busy_mr);
	sge = (struct ibv_sge){ (uintptr_t)msg, sizeof(msg), mr->lkey };
	wr = (struct ibv_send_wr){ .sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	assert_int_equal(ibv_post_send(id->qp, &wr, &bad), 0);

	/* the server got the SEND, so its acknowledgement came first */
	assert_int_equal(next_event(ch, NULL), RDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(ibv_poll_cq(cq, 1, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_SEND);

	assert_true(wait_one(busy_cq, &wc));
	assert_int_equal(wc.status, IBV_WC_SUCCESS);

	rdma_destroy_qp(id);
	ibv_destroy_qp(busy_a);
	ibv_destroy_qp(busy_b);
	ibv_dereg_mr(busy_mr);
	ibv_dereg_mr(mr);
	free(busy_buf);
	ibv_destroy_cq(busy_cq);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

static void test_disconnect_follows_completions(void **state)
{
	int ready[2], status, i;
	pid_t pid;
	char c;

	(void)state;
	/* before librdmacm opens anything here: a child keeps none of it */
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* a failed assertion here must not leave it waiting */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ready[0]);
		_exit(server(ready[1]));
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	for (i = 0; i < ROUNDS; i++)
		disconnect_after_send();
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disconnect_follows_completions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
