// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The kernel edge as programs other than libibverbs meet it: access() on
 * the cdev, /sys/class/infiniband read by its literal path, and RDMA
 * netlink spoken directly and through iproute2's rdma tool.
 *
 *   edge_test            everything (netlink on, the launcher's default)
 *   edge_test off        under --netlink=off: NETLINK_RDMA is refused
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>

#define PCI_DIR "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0"

static void access_cdev(void **state)
{
	(void)state;
	assert_int_equal(access("/dev/infiniband/uverbs0", R_OK | W_OK), 0);
	assert_int_equal(faccessat(AT_FDCWD, "/dev/infiniband/uverbs0",
				   R_OK | W_OK, 0),
			 0);
	assert_int_equal(euidaccess("/dev/infiniband/uverbs0", F_OK), 0);
	/* crw-rw-rw-: nobody may execute it */
	assert_int_equal(access("/dev/infiniband/uverbs0", X_OK), -1);
	assert_int_equal(errno, EACCES);
	/* a device that is not emulated is the host's business */
	assert_int_equal(access("/dev/infiniband/uverbs7", F_OK), -1);
	assert_int_equal(errno, ENOENT);
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static void sysfs_layout(void **state)
{
	char buf[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	(void)state;
	/* class/infiniband/mlx5_0 links into the PCI function */
	n = readlink("/sys/class/infiniband/mlx5_0", buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	assert_string_equal(buf, "../../devices/pci0000:80/0000:80:01.0/"
				 "0000:81:00.0/infiniband/mlx5_0");
	assert_non_null(realpath("/sys/class/infiniband/mlx5_0/device", buf));
	assert_string_equal(buf, PCI_DIR);
	n = readlink("/sys/class/infiniband_verbs/uverbs0", buf,
		     sizeof(buf) - 1);
	assert_true(n > 0);

	/* vendor and device where UCX reads them */
	read_file("/sys/class/infiniband/mlx5_0/device/vendor", buf,
		  sizeof(buf));
	assert_string_equal(buf, "0x15b3");
	read_file(PCI_DIR "/device", buf, sizeof(buf));
	assert_string_equal(buf, "0x1017");
	read_file(PCI_DIR "/infiniband/mlx5_0/ports/1/pkeys/0", buf,
		  sizeof(buf));
	assert_string_equal(buf, "0xffff");

	fd = open("/sys/class/infiniband_verbs/uverbs0/dev", O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	assert_string_equal(buf, "231:192\n");
	close(fd);
	assert_int_equal(stat("/sys/class/infiniband/mlx5_0/node_guid", &st),
			 0);
	assert_int_equal(lstat("/sys/class/infiniband/mlx5_0", &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(
		access("/sys/class/infiniband/mlx5_0/ports/1/lid", R_OK), 0);
	/* ls -l reads the label; an ENOENT here would be a missing entry */
	assert_true(lgetxattr("/sys/class/infiniband/mlx5_0",
			      "security.selinux", buf, sizeof(buf)) >= 0 ||
		    errno != ENOENT);
	/* only the emulated names are shadowed */
	assert_int_equal(stat("/sys/class/infiniband_mad_x", &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void sysfs_listing(void **state)
{
	DIR *d = opendir("/sys/class/infiniband");
	unsigned int n = 0;
	struct dirent *e;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		assert_string_equal(e->d_name, "mlx5_0");
		n++;
	}
	closedir(d);
	assert_int_equal(n, 1);
}

/* ------------------------------------------------------------------ */
/* netlink, byte by byte                                               */

struct nl_req {
	struct nlmsghdr h;
	char attrs[64];
};

static void add_attr(struct nl_req *r, uint16_t type, const void *data,
		     size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + r->h.nlmsg_len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->h.nlmsg_len += NLA_ALIGN(a->nla_len);
}

static void nl_send(int fd, struct nl_req *r, unsigned int op, uint16_t flags,
		    uint32_t seq)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	r->h.nlmsg_len = r->h.nlmsg_len ?: NLMSG_HDRLEN;
	r->h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	r->h.nlmsg_flags = NLM_F_REQUEST | flags;
	r->h.nlmsg_seq = seq;
	assert_int_equal(sendto(fd, r, r->h.nlmsg_len, 0,
				(struct sockaddr *)&kernel, sizeof(kernel)),
			 r->h.nlmsg_len);
}

/* one datagram; the sender must look like the kernel */
static struct nlmsghdr *nl_recv(int fd, char *buf, size_t len)
{
	struct sockaddr_nl from;
	socklen_t flen = sizeof(from);
	ssize_t n;

	n = recvfrom(fd, buf, len, 0, (struct sockaddr *)&from, &flen);
	assert_true(n >= (ssize_t)NLMSG_HDRLEN);
	assert_int_equal(flen, sizeof(from));
	assert_int_equal(from.nl_family, AF_NETLINK);
	assert_int_equal(from.nl_pid, 0);
	assert_true(NLMSG_OK((struct nlmsghdr *)buf, (size_t)n));
	return (struct nlmsghdr *)buf;
}

static const struct nlattr *find_attr(const struct nlmsghdr *h, uint16_t type)
{
	const char *p = NLMSG_DATA(h), *end = (const char *)h + h->nlmsg_len;

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_type == type)
			return a;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static uint64_t attr_uint(const struct nlmsghdr *h, uint16_t type)
{
	const struct nlattr *a = find_attr(h, type);
	uint64_t v = 0;

	assert_non_null(a);
	memcpy(&v, (const char *)a + NLA_HDRLEN, a->nla_len - NLA_HDRLEN);
	return v;
}

static const char *attr_str(const struct nlmsghdr *h, uint16_t type)
{
	const struct nlattr *a = find_attr(h, type);

	assert_non_null(a);
	return (const char *)a + NLA_HDRLEN;
}

static int open_nl(uint32_t *portid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(sa);
	int one = 1;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	assert_true(fd >= 0);
	assert_int_equal(setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one,
				    sizeof(one)),
			 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	memset(&sa, 0, sizeof(sa));
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	assert_int_equal(len, sizeof(sa));
	assert_int_equal(sa.nl_family, AF_NETLINK);
	assert_int_not_equal(sa.nl_pid, 0);
	*portid = sa.nl_pid;
	return fd;
}

static void netlink_dev_dump(void **state)
{
	struct nl_req r = {};
	struct nlmsghdr *h;
	char buf[8192];
	uint32_t portid;
	int fd = open_nl(&portid);

	(void)state;
	nl_send(fd, &r, RDMA_NLDEV_CMD_GET, NLM_F_DUMP | NLM_F_ACK, 7);
	/* the size of what is queued, as the kernel's MSG_TRUNC peek says */
	assert_true(recv(fd, buf, 1, MSG_PEEK | MSG_TRUNC) > 1);
	h = nl_recv(fd, buf, sizeof(buf));
	assert_int_equal(h->nlmsg_type,
			 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));
	assert_true(h->nlmsg_flags & NLM_F_MULTI);
	assert_int_equal(h->nlmsg_seq, 7);
	assert_int_equal(h->nlmsg_pid, portid);
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_DEV_INDEX), 0);
	assert_string_equal(attr_str(h, RDMA_NLDEV_ATTR_DEV_NAME), "mlx5_0");
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_PORT_INDEX), 1);
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_DEV_NODE_TYPE),
			 RDMA_NODE_IB_CA);
	assert_int_not_equal(attr_uint(h, RDMA_NLDEV_ATTR_NODE_GUID), 0);
	/* a dump ends with DONE, never an ACK */
	h = nl_recv(fd, buf, sizeof(buf));
	assert_int_equal(h->nlmsg_type, NLMSG_DONE);
	assert_int_equal(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(close(fd), 0);
}

static void netlink_chardev(void **state)
{
	uint32_t idx = 0, portid;
	struct nl_req r = {};
	struct nlmsghdr *h;
	char buf[8192];
	uint64_t cdev;
	int fd = open_nl(&portid);

	(void)state;
	r.h.nlmsg_len = NLMSG_HDRLEN;
	add_attr(&r, RDMA_NLDEV_ATTR_DEV_INDEX, &idx, sizeof(idx));
	add_attr(&r, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", 7);
	nl_send(fd, &r, RDMA_NLDEV_CMD_GET_CHARDEV, 0, 1);
	h = nl_recv(fd, buf, sizeof(buf));
	cdev = attr_uint(h, RDMA_NLDEV_ATTR_CHARDEV);
	/* huge_encode_dev(231:192) */
	assert_int_equal((cdev & 0xfff00) >> 8, 231);
	assert_int_equal((cdev & 0xff) | ((cdev >> 12) & 0xfff00), 192);
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_CHARDEV_ABI), 1);
	assert_string_equal(attr_str(h, RDMA_NLDEV_ATTR_CHARDEV_NAME),
			    "uverbs0");
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID),
			 RDMA_DRIVER_MLX5);

	/* umad is not emulated */
	memset(&r, 0, sizeof(r));
	r.h.nlmsg_len = NLMSG_HDRLEN;
	add_attr(&r, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "umad", 5);
	nl_send(fd, &r, RDMA_NLDEV_CMD_GET_CHARDEV, 0, 2);
	h = nl_recv(fd, buf, sizeof(buf));
	assert_int_equal(h->nlmsg_type, NLMSG_ERROR);
	assert_int_equal(((struct nlmsgerr *)NLMSG_DATA(h))->error,
			 -EOPNOTSUPP);
	close(fd);
}

static void netlink_port_sys(void **state)
{
	uint32_t idx = 0, port = 1, portid;
	struct nl_req r = {};
	struct nlmsghdr *h;
	char buf[8192];
	int fd = open_nl(&portid);

	(void)state;
	r.h.nlmsg_len = NLMSG_HDRLEN;
	add_attr(&r, RDMA_NLDEV_ATTR_DEV_INDEX, &idx, sizeof(idx));
	add_attr(&r, RDMA_NLDEV_ATTR_PORT_INDEX, &port, sizeof(port));
	nl_send(fd, &r, RDMA_NLDEV_CMD_PORT_GET, NLM_F_ACK, 3);
	h = nl_recv(fd, buf, sizeof(buf));
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_PORT_INDEX), 1);
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_PORT_STATE), 4);
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_PORT_PHYS_STATE), 5);
	assert_int_equal(attr_uint(h, RDMA_NLDEV_ATTR_LID), 1);
	/* NLM_F_ACK on a plain request: the answer, then error 0 */
	h = nl_recv(fd, buf, sizeof(buf));
	assert_int_equal(h->nlmsg_type, NLMSG_ERROR);
	assert_int_equal(((struct nlmsgerr *)NLMSG_DATA(h))->error, 0);
	assert_int_equal(h->nlmsg_seq, 3);

	/* port 2 does not exist */
	port = 2;
	memset(&r, 0, sizeof(r));
	r.h.nlmsg_len = NLMSG_HDRLEN;
	add_attr(&r, RDMA_NLDEV_ATTR_DEV_INDEX, &idx, sizeof(idx));
	add_attr(&r, RDMA_NLDEV_ATTR_PORT_INDEX, &port, sizeof(port));
	nl_send(fd, &r, RDMA_NLDEV_CMD_PORT_GET, 0, 4);
	h = nl_recv(fd, buf, sizeof(buf));
	assert_int_equal(((struct nlmsgerr *)NLMSG_DATA(h))->error, -EINVAL);

	memset(&r, 0, sizeof(r));
	nl_send(fd, &r, RDMA_NLDEV_CMD_SYS_GET, 0, 5);
	h = nl_recv(fd, buf, sizeof(buf));
	assert_int_equal(attr_uint(h, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK), 1);

	/* resource tracking and the rest are not emulated */
	memset(&r, 0, sizeof(r));
	nl_send(fd, &r, RDMA_NLDEV_CMD_RES_GET, NLM_F_DUMP, 6);
	h = nl_recv(fd, buf, sizeof(buf));
	assert_int_equal(h->nlmsg_type, NLMSG_ERROR);
	assert_int_equal(((struct nlmsgerr *)NLMSG_DATA(h))->error,
			 -EOPNOTSUPP);
	close(fd);
}

/* iproute2's rdma tool runs under the launcher's environment too */
static void run_rdma(const char *args, const char *expect)
{
	char cmd[256], out[4096] = "";
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "rdma %s 2>&1", args);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	if (pclose(p) || !strstr(out, expect))
		fail_msg("rdma %s: want '%s' in:\n%s", args, expect, out);
}

static void rdma_tool(void **state)
{
	(void)state;
	run_rdma("link show -j", "\"ifname\":\"mlx5_0\",\"port\":1");
	run_rdma("link show", "state ACTIVE physical_state LINK_UP");
	run_rdma("dev show", "mlx5_0: node_type ca");
	run_rdma("system show", "copy-on-fork on");
}

static void netlink_off(void **state)
{
	(void)state;
	assert_int_equal(socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA), -1);
	assert_int_equal(errno, EPROTONOSUPPORT);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest on[] = {
		cmocka_unit_test(access_cdev),
		cmocka_unit_test(sysfs_layout),
		cmocka_unit_test(sysfs_listing),
		cmocka_unit_test(netlink_dev_dump),
		cmocka_unit_test(netlink_chardev),
		cmocka_unit_test(netlink_port_sys),
		cmocka_unit_test(rdma_tool),
	};
	const struct CMUnitTest off[] = {
		cmocka_unit_test(access_cdev),
		cmocka_unit_test(sysfs_layout),
		cmocka_unit_test(netlink_off),
	};

	if (argc > 1 && !strcmp(argv[1], "off"))
		return cmocka_run_group_tests(off, NULL, NULL);
	return cmocka_run_group_tests(on, NULL, NULL);
}
