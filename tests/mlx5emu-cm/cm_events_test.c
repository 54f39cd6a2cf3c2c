// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The events of the emulated rdma_cm as librdmacm reports them, both ends
 * in this process (the service thread plays the remote CM): a refused
 * connection is REJECTED with the consumer's reason and private data, a
 * port nobody listens on is REJECTED "invalid service ID" (UNREACHABLE
 * for UDP), an address no host answers for is ADDR_ERROR within the
 * resolution timeout, a disconnect reaches both sides, and clients past
 * a full listen backlog are let in once the listener takes them, and so
 * are 600 at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include <cmocka.h>
#include <rdma/rdma_cma.h>

#define CM_PORT 7471
#define RESOLVE_MS 2000

struct pair {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen, *client, *server;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static struct sockaddr_in addr_of(const char *ip, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };

	assert_int_equal(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
	return sin;
}

/* the next event, which must be `want`; returns its status */
static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		  struct rdma_cm_id **id, char *pdata, size_t pdata_len)
{
	struct rdma_cm_event *ev;
	int status;

	assert_int_equal(rdma_get_cm_event(ch, &ev), 0);
	if (ev->event != want)
		fail_msg("event %s, expected %s", rdma_event_str(ev->event),
			 rdma_event_str(want));
	status = ev->status;
	if (id)
		*id = ev->id;
	if (pdata && ev->param.conn.private_data_len >= pdata_len)
		memcpy(pdata, ev->param.conn.private_data, pdata_len);
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	return status;
}

static void resolve(struct pair *p, struct rdma_cm_id *id, uint16_t port)
{
	struct sockaddr_in dst = addr_of("127.0.0.1", port);

	assert_int_equal(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
					   RESOLVE_MS),
			 0);
	expect(p->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL, 0);
	assert_int_equal(rdma_resolve_route(id, RESOLVE_MS), 0);
	expect(p->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL, 0);
}

static void listen_on(struct pair *p, uint16_t port)
{
	struct sockaddr_in any = addr_of("0.0.0.0", port);

	assert_int_equal(rdma_create_id(p->ch, &p->listen, NULL, RDMA_PS_TCP),
			 0);
	assert_int_equal(rdma_bind_addr(p->listen, (struct sockaddr *)&any), 0);
	assert_int_equal(rdma_listen(p->listen, 4), 0);
}

static int setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->ch = rdma_create_event_channel();
	assert_non_null(p->ch);
	assert_int_equal(rdma_create_id(p->ch, &p->client, NULL, RDMA_PS_TCP),
			 0);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	if (p->server)
		rdma_destroy_id(p->server);
	if (p->client)
		rdma_destroy_id(p->client);
	if (p->listen)
		rdma_destroy_id(p->listen);
	rdma_destroy_event_channel(p->ch);
	free(p);
	return 0;
}

static void test_reject_gives_rejected(void **state)
{
	struct rdma_conn_param param = { .private_data = "hello",
					 .private_data_len = 6 };
	struct pair *p = *state;
	char got[8] = "";

	listen_on(p, CM_PORT);
	resolve(p, p->client, CM_PORT);
	assert_int_equal(rdma_connect(p->client, &param), 0);
	expect(p->ch, RDMA_CM_EVENT_CONNECT_REQUEST, &p->server, got, 6);
	assert_string_equal(got, "hello");
	assert_int_equal(rdma_reject(p->server, "nope", 5), 0);
	/* IB_CM_REJ_CONSUMER_DEFINED, with the rejecter's private data */
	assert_int_equal(expect(p->ch, RDMA_CM_EVENT_REJECTED, NULL, got, 5),
			 28);
	assert_string_equal(got, "nope");
}

static void test_no_listener_is_rejected(void **state)
{
	struct rdma_conn_param param = {};
	struct pair *p = *state;

	resolve(p, p->client, CM_PORT + 1);
	assert_int_equal(rdma_connect(p->client, &param), 0);
	/* IB_CM_REJ_INVALID_SERVICE_ID */
	assert_int_equal(expect(p->ch, RDMA_CM_EVENT_REJECTED, NULL, NULL, 0),
			 8);
}

static void test_foreign_address_is_addr_error(void **state)
{
	struct sockaddr_in dst = addr_of("192.0.2.1", CM_PORT);
	struct pair *p = *state;

	/* TEST-NET-1: no interface of this host has it */
	assert_int_equal(rdma_resolve_addr(p->client, NULL,
					   (struct sockaddr *)&dst, 200),
			 0);
	assert_int_equal(expect(p->ch, RDMA_CM_EVENT_ADDR_ERROR, NULL, NULL, 0),
			 -ETIMEDOUT);
}

static void test_udp_no_listener_is_unreachable(void **state)
{
	struct rdma_conn_param param = {};
	struct pair *p = *state;
	struct rdma_cm_id *ud;

	assert_int_equal(rdma_create_id(p->ch, &ud, NULL, RDMA_PS_UDP), 0);
	resolve(p, ud, CM_PORT + 2);
	assert_int_equal(rdma_connect(ud, &param), 0);
	assert_int_not_equal(
		expect(p->ch, RDMA_CM_EVENT_UNREACHABLE, NULL, NULL, 0), 0);
	rdma_destroy_id(ud);
}

static void create_qp(struct pair *p, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	if (!p->pd) {
		p->pd = ibv_alloc_pd(id->verbs);
		assert_non_null(p->pd);
		p->cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
		assert_non_null(p->cq);
	}
	attr.send_cq = attr.recv_cq = p->cq;
	assert_int_equal(rdma_create_qp(id, p->pd, &attr), 0);
}

static void test_connect_and_disconnect(void **state)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .retry_count = 7 };
	struct pair *p = *state;

	listen_on(p, CM_PORT + 3);
	resolve(p, p->client, CM_PORT + 3);
	create_qp(p, p->client);
	assert_int_equal(rdma_connect(p->client, &param), 0);
	expect(p->ch, RDMA_CM_EVENT_CONNECT_REQUEST, &p->server, NULL, 0);
	create_qp(p, p->server);
	assert_int_equal(rdma_accept(p->server, &param), 0);
	/* librdmacm turns the REP into ESTABLISHED; the RTU gives ours */
	expect(p->ch, RDMA_CM_EVENT_ESTABLISHED, NULL, NULL, 0);
	expect(p->ch, RDMA_CM_EVENT_ESTABLISHED, NULL, NULL, 0);
	assert_int_equal(p->client->qp->state, IBV_QPS_RTS);
	assert_int_equal(rdma_disconnect(p->client), 0);
	expect(p->ch, RDMA_CM_EVENT_DISCONNECTED, NULL, NULL, 0);
	expect(p->ch, RDMA_CM_EVENT_DISCONNECTED, NULL, NULL, 0);
	rdma_destroy_qp(p->client);
	rdma_destroy_qp(p->server);
	ibv_destroy_cq(p->cq);
	ibv_dealloc_pd(p->pd);
}

#define BACKLOG_CLIENTS 20
#define MANY_CLIENTS 600

/*
 * n clients at once against a listener with the given backlog: every
 * connection is established on both sides, and nothing else happens.
 */
static void connect_many(struct pair *p, uint16_t port, int n, int backlog)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1,
					 .retry_count = 7 };
	struct sockaddr_in any = addr_of("0.0.0.0", port);
	struct rdma_cm_id **client = calloc(n, sizeof(*client));
	struct rdma_cm_id **server = calloc(n, sizeof(*server));
	struct rdma_cm_event *ev;
	int i, nserver = 0, established = 0;

	assert_non_null(client);
	assert_non_null(server);
	assert_int_equal(rdma_create_id(p->ch, &p->listen, NULL, RDMA_PS_TCP),
			 0);
	assert_int_equal(rdma_bind_addr(p->listen, (struct sockaddr *)&any), 0);
	assert_int_equal(rdma_listen(p->listen, backlog), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(rdma_create_id(p->ch, &client[i], NULL,
						RDMA_PS_TCP),
				 0);
		resolve(p, client[i], port);
		create_qp(p, client[i]);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(rdma_connect(client[i], &param), 0);
	while (established < 2 * n) {
		assert_int_equal(rdma_get_cm_event(p->ch, &ev), 0);
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			assert_true(nserver < n);
			server[nserver] = ev->id;
			create_qp(p, ev->id);
			assert_int_equal(rdma_accept(server[nserver++], &param),
					 0);
		} else if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			established++;
		} else {
			fail_msg("event %s status %d after %d established",
				 rdma_event_str(ev->event), ev->status,
				 established);
		}
		assert_int_equal(rdma_ack_cm_event(ev), 0);
	}
	for (i = 0; i < n; i++) {
		rdma_destroy_qp(client[i]);
		rdma_destroy_qp(server[i]);
		rdma_destroy_id(client[i]);
		rdma_destroy_id(server[i]);
	}
	free(client);
	free(server);
	ibv_destroy_cq(p->cq);
	ibv_dealloc_pd(p->pd);
}

/*
 * Twenty clients at once against a backlog of one: the REQs a full
 * listener cannot take are dropped and sent again, as the kernel's CM
 * does, so every connection is established and none is REJECTED.
 */
static void test_full_backlog_is_retried(void **state)
{
	connect_many(*state, CM_PORT + 4, BACKLOG_CLIENTS, 1);
}

/*
 * Six hundred connections in one process: 1,200 ids and as many sockets,
 * more than a poll set of 1,024 watched; every one is established on both
 * sides (issue 37, D8: 422 of the passive ids were).
 */
static void test_many_connections(void **state)
{
	struct rlimit rl;

	/* under valgrind 1,200 ids take minutes, and it keeps fds of its own */
	if (RUNNING_ON_VALGRIND)
		skip();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 4 * MANY_CLIENTS)
		skip();
	rl.rlim_cur = 4 * MANY_CLIENTS;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	connect_many(*state, CM_PORT + 5, MANY_CLIENTS, 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reject_gives_rejected,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_listener_is_rejected,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_foreign_address_is_addr_error, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_udp_no_listener_is_unreachable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_and_disconnect,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_backlog_is_retried,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_connections, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
