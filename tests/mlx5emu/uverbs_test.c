// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The emulated kernel edge without libibverbs: which libc entry points see
 * /dev/infiniband/uverbsN, and how malformed or unknown commands are
 * answered (uverbs_main.c / uverbs_ioctl.c rules).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/mlx5-abi.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "emu_test.h"
#include "raw_cmd.h"

#define CDEV RAW_CDEV

static void is_uverbs0(const struct stat *st)
{
	assert_true(S_ISCHR(st->st_mode));
	assert_int_equal(major(st->st_rdev), 231);
	assert_int_equal(minor(st->st_rdev), 192);
}

static void stat_family(void **state)
{
	int (*xstat)(int, const char *, struct stat *);
	int (*fxstat)(int, int, struct stat *);
	struct statx stx;
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(stat(CDEV, &st), 0);
	is_uverbs0(&st);
	assert_int_equal(lstat(CDEV, &st), 0);
	is_uverbs0(&st);
	assert_int_equal(fstatat(AT_FDCWD, CDEV, &st, 0), 0);
	is_uverbs0(&st);
	assert_int_equal(statx(AT_FDCWD, CDEV, 0, STATX_BASIC_STATS, &stx), 0);
	assert_true(S_ISCHR(stx.stx_mode));
	assert_int_equal(stx.stx_rdev_major, 231);
	assert_int_equal(stx.stx_rdev_minor, 192);
	/* devices that do not exist stay absent */
	assert_int_equal(stat("/dev/infiniband/uverbs7", &st), -1);
	assert_int_equal(errno, ENOENT);

	fd = open(CDEV, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	is_uverbs0(&st);
	assert_int_equal(fstatat(fd, "", &st, AT_EMPTY_PATH), 0);
	is_uverbs0(&st);
	/* binaries built against glibc < 2.33 call these */
	xstat = dlsym(RTLD_DEFAULT, "__xstat");
	fxstat = dlsym(RTLD_DEFAULT, "__fxstat");
	assert_non_null(xstat);
	assert_non_null(fxstat);
	assert_int_equal(xstat(1, CDEV, &st), 0);
	is_uverbs0(&st);
	assert_int_equal(fxstat(1, fd, &st), 0);
	is_uverbs0(&st);
	assert_int_equal(close(fd), 0);
	/* other files are untouched */
	assert_int_equal(stat("/", &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

static void open_family(void **state)
{
	int (*open_2)(const char *, int);
	unsigned int fds = emu_test_fd_count();
	int fd[4], i;

	(void)state;
	open_2 = dlsym(RTLD_DEFAULT, "__open_2");
	assert_non_null(open_2);
	fd[0] = open(CDEV, O_RDWR);
	fd[1] = open64(CDEV, O_RDWR | O_CLOEXEC);
	fd[2] = openat(AT_FDCWD, CDEV, O_RDWR);
	fd[3] = open_2(CDEV, O_RDWR);
	for (i = 0; i < 4; i++)
		assert_true(fd[i] >= 0);
	assert_true(fcntl(fd[1], F_GETFD) & FD_CLOEXEC);
	assert_int_equal(emu_test_fd_count(), fds + 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(close(fd[i]), 0);
	assert_int_equal(emu_test_fd_count(), fds);
	assert_int_equal(open("/dev/infiniband/uverbs7", O_RDWR), -1);
	assert_int_equal(errno, ENOENT);
}

/*
 * RDMA netlink is emulated (edge_test checks what it answers and its
 * refusal under --netlink=off); other netlink families are the host's.
 */
static void netlink(void **state)
{
	int fd;

	(void)state;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 20);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	assert_true(fd >= 0);
	close(fd);
}

static void write_rules(void **state)
{
	struct get_context_resp resp;
	uint32_t pd_resp[2];
	struct alloc_pd_cmd pd = raw_alloc_pd_cmd(pd_resp);
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		uint64_t pad;
	} unknown = {
		.hdr = { .command = IB_USER_VERBS_CMD_CREATE_XSRQ,
			 .in_words = sizeof(unknown) / 4 },
	};
	struct ib_uverbs_ex_query_device_resp qresp;
	struct ex_query_device_cmd exq = raw_ex_query_device_cmd(&qresp);
	char buf[8];
	int fd;

	(void)state;
	fd = open(CDEV, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	/* nothing but GET_CONTEXT before GET_CONTEXT */
	assert_int_equal(write(fd, &pd, sizeof(pd)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(raw_get_context(fd, &resp), 0);
	assert_true(resp.core.async_fd > 2);
	assert_true(resp.core.num_comp_vectors >= 1);
	assert_int_equal(resp.drv.bf_reg_size, 512);
	assert_int_equal(resp.drv.cache_line_size, 64);
	assert_int_equal(resp.drv.cqe_version, 1);
	if (emu_test_static_mode())
		assert_int_equal(resp.drv.tot_bfregs, 16);
	else
		assert_int_equal(resp.drv.tot_bfregs, 0);
	/* one ucontext per file */
	assert_int_equal(raw_get_context(fd, &resp), EINVAL);

	/* in_words must match the byte count */
	assert_int_equal(write(fd, &pd, sizeof(pd) - 4), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(write(fd, &pd, sizeof(pd)), sizeof(pd));
	/* a verb the device does not have */
	assert_int_equal(write(fd, &unknown, sizeof(unknown)), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	/* extended header reserved field */
	exq.ex.cmd_hdr_reserved = 1;
	assert_int_equal(write(fd, &exq, sizeof(exq)), -1);
	assert_int_equal(errno, EINVAL);
	exq.ex.cmd_hdr_reserved = 0;
	assert_int_equal(write(fd, &exq, sizeof(exq)), sizeof(exq));
	assert_int_equal(qresp.base.vendor_id, 0x02c9);
	assert_int_equal(qresp.response_length, sizeof(qresp));
	/* the cdev has no read() */
	assert_int_equal(read(fd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	close(resp.core.async_fd);
	assert_int_equal(close(fd), 0);
}

static void ioctl_rules(void **state)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr[1];
	} cmd = {
		.hdr = { .length = sizeof(cmd),
			 .object_id = 0,
			 .method_id = 0,
			 .num_attrs = 1,
			 .driver_id = 1 },
		.attr = { { .attr_id = 2,
			    .len = 4,
			    .flags = UVERBS_ATTR_F_MANDATORY } },
	};
	const char *transport = getenv("MLX5EMU_TRANSPORT");
	bool ioctl_transport = transport && !strcmp(transport, "ioctl");
	int fd = open(CDEV, O_RDWR | O_CLOEXEC);
	int probe;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ioctl(fd, 0x1234, NULL), -1);
	assert_int_equal(errno, ENOTTY);
	/* INVOKE_WRITE probe: ENOTTY (W) or EPROTONOSUPPORT (H) keep
	 * libibverbs on write(); with --transport=ioctl the method exists and
	 * refuses a command without its core attributes */
	if (ioctl_transport)
		probe = EINVAL;
	else
		probe = emu_test_static_mode() ? ENOTTY : EPROTONOSUPPORT;
	assert_int_equal(ioctl(fd, RDMA_VERBS_IOCTL, &cmd), -1);
	assert_int_equal(errno, probe);
	if (ioctl_transport || !emu_test_static_mode()) {
		cmd.hdr.length -= 8;
		assert_int_equal(ioctl(fd, RDMA_VERBS_IOCTL, &cmd), -1);
		assert_int_equal(errno, EINVAL);
		cmd.hdr.length += 8;
		cmd.hdr.driver_id = 2;
		assert_int_equal(ioctl(fd, RDMA_VERBS_IOCTL, &cmd), -1);
		assert_int_equal(errno, EINVAL);
		cmd.hdr.driver_id = 1;
		cmd.hdr.reserved1 = 1;
		assert_int_equal(ioctl(fd, RDMA_VERBS_IOCTL, &cmd), -1);
		assert_int_equal(errno, EPROTONOSUPPORT);
		cmd.hdr.reserved1 = 0;
		/* a method the device does not have: per-verb fallback */
		cmd.hdr.object_id = UVERBS_OBJECT_DM;
		cmd.hdr.method_id = UVERBS_METHOD_DM_ALLOC;
		assert_int_equal(ioctl(fd, RDMA_VERBS_IOCTL, &cmd), -1);
		assert_int_equal(errno, EPROTONOSUPPORT);
	}
	/* no UAR can be mapped before GET_CONTEXT */
	assert_true(mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, 0) ==
		    MAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(close(fd), 0);
}

/* a fork() child holds the parent's file but cannot drive its context */
static void fork_child(void **state)
{
	struct get_context_resp resp;
	uint32_t pd_resp[2];
	struct alloc_pd_cmd pd = raw_alloc_pd_cmd(pd_resp);
	int fd, status;
	pid_t child;

	(void)state;
	fd = open(CDEV, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(raw_get_context(fd, &resp), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		int ok = write(fd, &pd, sizeof(pd)) == -1 && errno == EIO;

		ok &= close(fd) == 0;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* the parent's context is untouched */
	assert_int_equal(write(fd, &pd, sizeof(pd)), sizeof(pd));
	close(resp.core.async_fd);
	assert_int_equal(close(fd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stat_family), cmocka_unit_test(open_family),
		cmocka_unit_test(netlink),     cmocka_unit_test(write_rules),
		cmocka_unit_test(ioctl_rules), cmocka_unit_test(fork_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
