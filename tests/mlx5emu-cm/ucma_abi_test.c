// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Malformed rdma_cm commands, written straight to the emulated
 * /dev/infiniband/rdma_cm: each fails with the errno of the kernel's
 * ucma.c (EINVAL, ENOSPC, ENOENT, EFAULT, ENOSYS, EAGAIN) and never
 * takes the process down.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <rdma/rdma_user_cm.h>

static int cm_fd;
/* an address no mapping covers, volatile so the compiler cannot see it */
static void *volatile unmapped = (void *)8;

/* the header and a command body of `in` bytes; resp bytes of answer room */
struct cmd {
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t body[512];
};

static int send_cmd(uint32_t op, const void *body, uint16_t in, uint16_t out)
{
	struct cmd c = { .hdr = { .cmd = op, .in = in, .out = out } };
	ssize_t n;

	memcpy(c.body, body, in);
	n = write(cm_fd, &c, sizeof(c.hdr) + in);
	if (n < 0)
		return -errno;
	assert_int_equal(n, sizeof(c.hdr) + in);
	return 0;
}

static uint32_t create_id(uint16_t ps)
{
	struct rdma_ucm_create_id_resp resp = { .id = ~0U };
	struct rdma_ucm_create_id c = { .uid = 1,
					.response = (uintptr_t)&resp,
					.ps = ps };

	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c),
				  sizeof(resp)),
			 0);
	return resp.id;
}

static void destroy_id(uint32_t id)
{
	struct rdma_ucm_destroy_id_resp resp;
	struct rdma_ucm_destroy_id c = { .response = (uintptr_t)&resp,
					 .id = id };

	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_DESTROY_ID, &c, sizeof(c),
				  sizeof(resp)),
			 0);
}

static int setup(void **state)
{
	(void)state;
	cm_fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC);
	return cm_fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	return close(cm_fd);
}

static void test_cdev_looks_like_the_kernels(void **state)
{
	struct stat st;
	char b;

	(void)state;
	assert_int_equal(fstat(cm_fd, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), 10); /* a misc device */
	/* ucma has no read method */
	assert_int_equal(read(cm_fd, &b, 1), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_bad_headers(void **state)
{
	struct rdma_ucm_cmd_hdr hdr = { .cmd = RDMA_USER_CM_CMD_CREATE_ID,
					.in = 200 };

	(void)state;
	/* shorter than the header */
	assert_int_equal(write(cm_fd, &hdr, 3), -1);
	assert_int_equal(errno, EINVAL);
	/* the header promises more than was written */
	assert_int_equal(write(cm_fd, &hdr, sizeof(hdr)), -1);
	assert_int_equal(errno, EINVAL);
	/* the header itself unreadable (hidden from the compiler's check) */
	assert_int_equal(write(cm_fd, unmapped, sizeof(hdr)), -1);
	assert_int_equal(errno, EFAULT);
	/* no such command, and one that is not there */
	assert_int_equal(send_cmd(99, &hdr, 0, 0), -EINVAL);
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_JOIN_MCAST, &hdr, 0, 0),
			 -ENOSYS);
}

static void test_create_id_checks(void **state)
{
	struct rdma_ucm_create_id_resp resp;
	struct rdma_ucm_create_id c = { .response = (uintptr_t)&resp,
					.ps = RDMA_PS_TCP };

	(void)state;
	/* no room for the answer */
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 2),
			 -ENOSPC);
	/* an unknown port space */
	c.ps = 0x77;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c),
				  sizeof(resp)),
			 -EINVAL);
	/* an answer pointer into nothing */
	c.ps = RDMA_PS_TCP;
	c.response = 16;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c),
				  sizeof(resp)),
			 -EFAULT);
}

static void test_unknown_ids(void **state)
{
	struct rdma_ucm_destroy_id_resp resp;
	struct rdma_ucm_destroy_id d = { .response = (uintptr_t)&resp,
					 .id = 12345 };
	struct rdma_ucm_listen l = { .id = 12345 };
	uint32_t id = create_id(RDMA_PS_TCP);

	(void)state;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d),
				  sizeof(resp)),
			 -ENOENT);
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_LISTEN, &l, sizeof(l), 0),
			 -ENOENT);
	destroy_id(id);
	/* destroyed: gone for good */
	d.id = id;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d),
				  sizeof(resp)),
			 -ENOENT);
}

static void test_bad_addresses_and_states(void **state)
{
	struct ib_uverbs_qp_attr attr;
	struct rdma_ucm_init_qp_attr q = { .response = (uintptr_t)&attr };
	struct rdma_ucm_resolve_route r = {};
	struct rdma_ucm_connect conn = {};
	struct rdma_ucm_bind b = {};
	uint32_t id = create_id(RDMA_PS_TCP);

	(void)state;
	b.id = id;
	b.addr.ss_family = AF_INET;
	b.addr_size = sizeof(struct sockaddr_in6); /* not AF_INET's size */
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_BIND, &b, sizeof(b), 0),
			 -EINVAL);
	/* not an address of this host */
	b.addr_size = sizeof(struct sockaddr_in);
	((struct sockaddr_in *)&b.addr)->sin_addr.s_addr =
		inet_addr("192.0.2.1");
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_BIND, &b, sizeof(b), 0),
			 -EADDRNOTAVAIL);
	/* no device yet: route, connect and QP attributes are refused */
	r.id = id;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_RESOLVE_ROUTE, &r, sizeof(r),
				  0),
			 -EINVAL);
	conn.id = id;
	conn.conn_param.valid = 1;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_CONNECT, &conn, sizeof(conn),
				  0),
			 -EINVAL);
	/* a connect shorter than its fixed part */
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_CONNECT, &conn, 8, 0),
			 -EINVAL);
	q.id = id;
	q.qp_state = 9;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_INIT_QP_ATTR, &q, sizeof(q),
				  sizeof(attr)),
			 -EINVAL);
	destroy_id(id);
}

static void test_get_event_nonblocking_and_bad_pointer(void **state)
{
	struct rdma_ucm_event_resp resp;
	struct rdma_ucm_get_event g = { .response = (uintptr_t)&resp };
	struct rdma_ucm_resolve_ip rip = {};
	uint32_t id = create_id(RDMA_PS_TCP);
	int flags = fcntl(cm_fd, F_GETFL);

	(void)state;
	assert_int_equal(fcntl(cm_fd, F_SETFL, flags | O_NONBLOCK), 0);
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g),
				  sizeof(resp)),
			 -EAGAIN);
	/* too little room for an event */
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), 8),
			 -ENOSPC);
	/* an event waits; a bad pointer leaves it there */
	rip.id = id;
	rip.dst_addr.sin6_family = AF_INET;
	((struct sockaddr_in *)&rip.dst_addr)->sin_addr.s_addr =
		htonl(INADDR_LOOPBACK);
	rip.timeout_ms = 1000;
	assert_int_equal(
		send_cmd(RDMA_USER_CM_CMD_RESOLVE_IP, &rip, sizeof(rip), 0), 0);
	g.response = 24;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g),
				  sizeof(resp)),
			 -EFAULT);
	g.response = (uintptr_t)&resp;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g),
				  sizeof(resp)),
			 0);
	assert_int_equal(resp.event, 0); /* RDMA_CM_EVENT_ADDR_RESOLVED */
	assert_int_equal(resp.id, id);
	assert_int_equal(fcntl(cm_fd, F_SETFL, flags), 0);
	destroy_id(id);
}

static uint32_t next_event(void)
{
	struct rdma_ucm_event_resp resp = {};
	struct rdma_ucm_get_event g = { .response = (uintptr_t)&resp };

	if (send_cmd(RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(resp)))
		return ~0U;
	return resp.event;
}

/* 0 if id reaches ROUTE_RESOLVED (the service thread's timer) */
static int resolve_route_event(uint32_t id)
{
	struct rdma_ucm_resolve_ip rip = { .id = id, .timeout_ms = 1000 };
	struct rdma_ucm_resolve_route rr = { .id = id, .timeout_ms = 1000 };

	rip.dst_addr.sin6_family = AF_INET;
	((struct sockaddr_in *)&rip.dst_addr)->sin_addr.s_addr =
		htonl(INADDR_LOOPBACK);
	if (send_cmd(RDMA_USER_CM_CMD_RESOLVE_IP, &rip, sizeof(rip), 0) ||
	    next_event() != 0 /* ADDR_RESOLVED */)
		return 4;
	if (send_cmd(RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0) ||
	    next_event() != 2 /* ROUTE_RESOLVED */)
		return 5;
	return 0;
}

/* a fork() child holds a copy of the fd: no commands, and its close
 * leaves the parent's ids alone */
static void test_fork_child_copy(void **state)
{
	struct rdma_ucm_listen l = {};
	uint32_t id = create_id(RDMA_PS_TCP);
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct rdma_ucm_destroy_id_resp resp;
		struct rdma_ucm_destroy_id d = { .response = (uintptr_t)&resp,
						 .id = id };

		if (send_cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d),
			     sizeof(resp)) != -EIO)
			_exit(1);
		if (close(cm_fd))
			_exit(2);
		/* its own file works, with a service thread of its own */
		cm_fd = open("/dev/infiniband/rdma_cm", O_RDWR);
		_exit(cm_fd < 0 ? 3 :
				  resolve_route_event(create_id(RDMA_PS_TCP)));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* still ours: it listens */
	l.id = id;
	assert_int_equal(send_cmd(RDMA_USER_CM_CMD_LISTEN, &l, sizeof(l), 0),
			 0);
	destroy_id(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cdev_looks_like_the_kernels),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_create_id_checks),
		cmocka_unit_test(test_unknown_ids),
		cmocka_unit_test(test_bad_addresses_and_states),
		cmocka_unit_test(test_get_event_nonblocking_and_bad_pointer),
		cmocka_unit_test(test_fork_child_copy),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
