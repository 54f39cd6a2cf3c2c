// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fabric's trust model: a process of the same user that connects to
 * another's fabric socket cannot make its NIC execute a request, unless
 * it proves a slot (its own listening socket), and then only for QPs of
 * that slot. The victim is this process, an RC pair in loopback with a
 * remotely writable MR; the forgers are forked children that never open
 * a device and speak fabric/wire.h by hand.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"
#include "rc_loop.h"
#include "wire.h"

#define WRITE_OPCODE 0x08 /* MLX5_OPCODE_RDMA_WRITE */
#define QPT_RC 2

struct victim {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint64_t mem;
	uint16_t lid;
};

static const char *fabric_name(void)
{
	const char *v = getenv("MLX5EMU_FABRIC");

	return v && *v ? v : "default";
}

static int connect_slot(int slot)
{
	struct sockaddr_un sa;
	char what[16];
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(what, sizeof(what), "%d", slot);
	len = fabric_sockaddr(&sa, getuid(), fabric_name(), what);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, len))
		_exit(10);
	return fd;
}

/* an RDMA WRITE of "forged!" into the victim's memory, as from qp a */
static void send_forged_write(int fd, const struct victim *v)
{
	struct {
		struct fabric_req req;
		char data[8];
	} f = {
		.req = {
			.type = FAB_REQ,
			.len = 8,
			.dest_qpn = v->b->qp_num,
			.src_qpn = v->a->qp_num,
			.dlid = v->lid,
			.slid = v->lid,
			.opcode = WRITE_OPCODE,
			.qp_type = QPT_RC,
			.raddr = (uintptr_t)&v->mem,
			.rkey = v->mr->rkey,
		},
		.data = "forged!",
	};

	if (write(fd, &f, sizeof(f)) != sizeof(f))
		_exit(11);
}

/* exit 0: the victim hung up; 1: it answered, so it executed the request */
static void __attribute__((noreturn)) await_verdict(int fd)
{
	struct fabric_resp resp;

	_exit(read(fd, &resp, sizeof(resp)) > 0 ? 1 : 0);
}

/* a process of the user with no slot: connects and writes at once */
static void forger_without_slot(const struct victim *v)
{
	int fd = connect_slot(fabric_qpn_slot(v->a->qp_num));

	send_forged_write(fd, v);
	await_verdict(fd);
}

/* a connection to the victim that binds a free slot and proves it */
static int connect_with_slot(const struct victim *v)
{
	struct fabric_hello hello = { FAB_HELLO, 0 };
	struct iovec iov = { &hello, sizeof(hello) };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl = {};
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	struct sockaddr_un sa;
	int own, fd;

	own = socket(AF_UNIX, SOCK_STREAM, 0);
	for (hello.slot = 0; hello.slot < 254; hello.slot++) {
		char what[16];
		socklen_t len;

		snprintf(what, sizeof(what), "%u", hello.slot);
		len = fabric_sockaddr(&sa, getuid(), fabric_name(), what);
		if (!bind(own, (struct sockaddr *)&sa, len))
			break;
	}
	if (hello.slot == 254 || listen(own, 1))
		_exit(12);
	fd = connect_slot(fabric_qpn_slot(v->a->qp_num));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &own, sizeof(int));
	if (sendmsg(fd, &msg, 0) != sizeof(hello))
		_exit(13);
	return fd;
}

/* one with a slot that speaks for the victim's QP a */
static void forger_with_slot(const struct victim *v)
{
	int fd = connect_with_slot(v);

	send_forged_write(fd, v);
	await_verdict(fd);
}

#define IDLE_CONNS 300

/* a process of the user that holds connections open and says nothing */
static void __attribute__((noreturn)) idler(const struct victim *v, int ready)
{
	int i;

	for (i = 0; i < IDLE_CONNS; i++)
		connect_slot(fabric_qpn_slot(v->a->qp_num));
	if (write(ready, "", 1) != 1)
		_exit(14);
	for (;;)
		pause();
}

/* exit 0: a peer that proved its slot is still connected after 1 s */
static void __attribute__((noreturn)) newcomer(const struct victim *v)
{
	int fd = connect_with_slot(v);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, 1000) == 0)
		_exit(0);
	_exit(read(fd, &c, 1) == 0 ? 1 : 2);
}

static void victim_open(struct victim *v)
{
	struct ibv_port_attr port;

	memset(v, 0, sizeof(*v));
	v->ctx = emu_test_open();
	v->pd = ibv_alloc_pd(v->ctx);
	assert_non_null(v->pd);
	v->cq = ibv_create_cq(v->ctx, 16, NULL, NULL, 0);
	assert_non_null(v->cq);
	v->a = rc_loop_create_qp(v->pd, v->cq, 4);
	v->b = rc_loop_create_qp(v->pd, v->cq, 4);
	assert_non_null(v->a);
	assert_non_null(v->b);
	rc_loop_connect(v->a, v->b);
	v->mr = ibv_reg_mr(v->pd, &v->mem, sizeof(v->mem),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(v->mr);
	assert_int_equal(ibv_query_port(v->ctx, 1, &port), 0);
	v->lid = port.lid;
	/* the QPNs carry the fabric slot this process holds */
	assert_true(fabric_qpn_slot(v->a->qp_num) >= 0);
}

static void victim_close(struct victim *v)
{
	ibv_dereg_mr(v->mr);
	ibv_destroy_qp(v->a);
	ibv_destroy_qp(v->b);
	ibv_destroy_cq(v->cq);
	ibv_dealloc_pd(v->pd);
	ibv_close_device(v->ctx);
}

static void run_forger(void (*forger)(const struct victim *))
{
	struct victim v;
	int status;
	pid_t pid;

	victim_open(&v);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		forger(&v);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	/* 1: the NIC answered the forged request */
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(v.mem, 0);
	victim_close(&v);
}

/*
 * 300 idle connections that never say hello fill the victim's table of
 * peers' connections; a peer that proves its slot afterwards still gets
 * in (issue 37, D7: it was hung up on).
 */
static void test_idle_connections_lock_no_peer_out(void **state)
{
	struct victim v;
	int status, ready[2];
	pid_t idle, pid;
	char c;

	(void)state;
	victim_open(&v);
	assert_int_equal(pipe(ready), 0);
	idle = fork();
	assert_true(idle >= 0);
	if (!idle)
		idler(&v, ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		newcomer(&v);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	kill(idle, SIGKILL);
	waitpid(idle, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	victim_close(&v);
}

static void test_no_slot_no_request(void **state)
{
	(void)state;
	run_forger(forger_without_slot);
}

static void test_a_slot_speaks_for_its_own_qps_only(void **state)
{
	(void)state;
	run_forger(forger_with_slot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_slot_no_request),
		cmocka_unit_test(test_a_slot_speaks_for_its_own_qps_only),
		cmocka_unit_test(test_idle_connections_lock_no_peer_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
