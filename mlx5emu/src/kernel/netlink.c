// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA netlink (NETLINK_RDMA), as ib_core's nldev answers it: device and
 * port dumps, the uverbs char device lookup and the system attributes.
 * The application's socket is one end of an AF_UNIX datagram pair; every
 * answer is written as one datagram into the other end, so poll(), blocking
 * and MSG_PEEK/MSG_TRUNC behave as the kernel's socket does. The
 * interposer routes bind, getsockname, setsockopt, the send and recv
 * calls and close here.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>

#include "verbs/mlx5emu.h"

#define NL_BUF 4096
#define MLX5_IB_UVERBS_ABI 1 /* the provider ABI mlx5_ib reports */

struct emu_netlink {
	int peer; /* we write answers here; the app reads the other end */
	uint32_t portid;
	bool bound;
};

/* One answer being built: a sequence of netlink messages. */
struct nl_reply {
	struct emu_netlink *nl;
	const struct nlmsghdr *req;
	char buf[NL_BUF];
	size_t len;
	struct nlmsghdr *cur;
};

static void msg_begin(struct nl_reply *r, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(r->buf + r->len);

	memset(h, 0, NLMSG_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = r->req->nlmsg_seq;
	h->nlmsg_pid = r->nl->portid;
	h->nlmsg_len = NLMSG_HDRLEN;
	r->cur = h;
	r->len += NLMSG_HDRLEN;
}

static void put_attr(struct nl_reply *r, uint16_t type, const void *data,
		     size_t len)
{
	struct nlattr *a = (struct nlattr *)(r->buf + r->len);
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (r->len + total > sizeof(r->buf))
		return; /* answers are a few hundred bytes at most */
	memset(a, 0, total);
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->len += total;
	r->cur->nlmsg_len += total;
}

static void put_u8(struct nl_reply *r, uint16_t type, uint8_t v)
{
	put_attr(r, type, &v, sizeof(v));
}

static void put_u32(struct nl_reply *r, uint16_t type, uint32_t v)
{
	put_attr(r, type, &v, sizeof(v));
}

static void put_u64(struct nl_reply *r, uint16_t type, uint64_t v)
{
	put_attr(r, type, &v, sizeof(v));
}

static void put_str(struct nl_reply *r, uint16_t type, const char *s)
{
	put_attr(r, type, s, strlen(s) + 1);
}

/* Each message goes out as its own datagram, as the kernel's skbs do. */
static void flush(struct nl_reply *r)
{
	size_t off = 0;

	while (off < r->len) {
		struct nlmsghdr *h = (struct nlmsghdr *)(r->buf + off);

		emu_libc.sendto(r->nl->peer, h, h->nlmsg_len, MSG_DONTWAIT,
				NULL, 0);
		off += NLMSG_ALIGN(h->nlmsg_len);
	}
	r->len = 0;
}

/* NLMSG_ERROR: err 0 is the ACK; only the request header is echoed. */
static void put_error(struct nl_reply *r, int err)
{
	struct nlmsgerr e = { .error = err, .msg = *r->req };

	msg_begin(r, NLMSG_ERROR, NLM_F_CAPPED);
	memcpy(r->buf + r->len, &e, sizeof(e));
	r->len += NLMSG_ALIGN(sizeof(e));
	r->cur->nlmsg_len += sizeof(e);
}

static void put_done(struct nl_reply *r)
{
	int zero = 0;

	msg_begin(r, NLMSG_DONE, NLM_F_MULTI);
	memcpy(r->buf + r->len, &zero, sizeof(zero));
	r->len += sizeof(zero);
	r->cur->nlmsg_len += sizeof(zero);
}

/* ------------------------------------------------------------------ */
/* the nldev commands                                                  */

struct nl_attrs {
	const struct nlattr *a[RDMA_NLDEV_ATTR_MAX];
};

static void parse_attrs(const struct nlmsghdr *h, struct nl_attrs *t)
{
	const char *p = NLMSG_DATA(h);
	size_t left = h->nlmsg_len - NLMSG_HDRLEN;

	memset(t, 0, sizeof(*t));
	while (left >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t step = NLA_ALIGN(a->nla_len);

		if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) < RDMA_NLDEV_ATTR_MAX)
			t->a[a->nla_type & NLA_TYPE_MASK] = a;
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
}

static bool get_u32(const struct nl_attrs *t, int type, uint32_t *v)
{
	const struct nlattr *a = t->a[type];

	if (!a || a->nla_len < NLA_HDRLEN + sizeof(*v))
		return false;
	memcpy(v, (const char *)a + NLA_HDRLEN, sizeof(*v));
	return true;
}

static struct emu_device *attr_dev(const struct nl_attrs *t)
{
	uint32_t idx;

	if (!get_u32(t, RDMA_NLDEV_ATTR_DEV_INDEX, &idx) ||
	    idx >= emu_cfg.ndevices)
		return NULL;
	return &emu_devices[idx];
}

static void fill_dev(struct nl_reply *r, struct emu_device *dev)
{
	const struct emu_model *m = emu_cfg.model;
	char fw[32];

	snprintf(fw, sizeof(fw), "%u.%u.%04u", m->fw_major, m->fw_minor,
		 m->fw_sub);
	put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, dev->index);
	put_str(r, RDMA_NLDEV_ATTR_DEV_NAME, dev->name);
	/* in a GET answer the port index is the number of ports */
	put_u32(r, RDMA_NLDEV_ATTR_PORT_INDEX, emu_cfg.nports);
	put_u64(r, RDMA_NLDEV_ATTR_CAP_FLAGS, 0);
	put_str(r, RDMA_NLDEV_ATTR_FW_VERSION, fw);
	put_u64(r, RDMA_NLDEV_ATTR_NODE_GUID, dev->node_guid);
	put_u64(r, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, dev->node_guid);
	put_u8(r, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, RDMA_NODE_IB_CA);
	put_u8(r, RDMA_NLDEV_ATTR_DEV_DIM, 0);
	put_str(r, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "ib");
}

static void fill_port(struct nl_reply *r, struct emu_device *dev,
		      unsigned int port)
{
	struct ib_uverbs_query_port_resp pr;

	emu_query_port(dev, port, &pr);
	put_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, dev->index);
	put_str(r, RDMA_NLDEV_ATTR_DEV_NAME, dev->name);
	put_u32(r, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	put_u64(r, RDMA_NLDEV_ATTR_CAP_FLAGS, pr.port_cap_flags);
	put_u64(r, RDMA_NLDEV_ATTR_SUBNET_PREFIX, 0xfe80000000000000ULL);
	put_u32(r, RDMA_NLDEV_ATTR_LID, pr.lid);
	put_u32(r, RDMA_NLDEV_ATTR_SM_LID, pr.sm_lid);
	put_u8(r, RDMA_NLDEV_ATTR_LMC, pr.lmc);
	put_u8(r, RDMA_NLDEV_ATTR_PORT_STATE, pr.state);
	put_u8(r, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, pr.phys_state);
}

static int cmd_get(struct nl_reply *r, const struct nl_attrs *t, bool dump)
{
	uint16_t type = r->req->nlmsg_type;
	struct emu_device *dev;
	unsigned int i;

	if (!dump) {
		dev = attr_dev(t);
		if (!dev)
			return -EINVAL;
		msg_begin(r, type, 0);
		fill_dev(r, dev);
		return 0;
	}
	for (i = 0; i < emu_cfg.ndevices; i++) {
		msg_begin(r, type, NLM_F_MULTI);
		fill_dev(r, &emu_devices[i]);
	}
	return 0;
}

static int cmd_port_get(struct nl_reply *r, const struct nl_attrs *t, bool dump)
{
	uint16_t type = r->req->nlmsg_type;
	struct emu_device *dev = attr_dev(t);
	unsigned int port;
	uint32_t p;

	if (!dev)
		return -EINVAL;
	if (!dump) {
		if (!get_u32(t, RDMA_NLDEV_ATTR_PORT_INDEX, &p) || !p ||
		    p > emu_cfg.nports)
			return -EINVAL;
		msg_begin(r, type, 0);
		fill_port(r, dev, p);
		return 0;
	}
	for (port = 1; port <= emu_cfg.nports; port++) {
		msg_begin(r, type, NLM_F_MULTI);
		fill_port(r, dev, port);
	}
	return 0;
}

/* rdma_cm is not a per-device client: no device index needed */
static int cmd_get_chardev_ucma(struct nl_reply *r)
{
	const char *name;
	uint64_t cdev, abi;

	ucma_netlink_chardev(&cdev, &abi, &name);
	msg_begin(r, r->req->nlmsg_type, 0);
	put_u64(r, RDMA_NLDEV_ATTR_CHARDEV, cdev);
	put_u64(r, RDMA_NLDEV_ATTR_CHARDEV_ABI, abi);
	put_str(r, RDMA_NLDEV_ATTR_CHARDEV_NAME, name);
	return 0;
}

static int cmd_get_chardev(struct nl_reply *r, const struct nl_attrs *t)
{
	const struct nlattr *a = t->a[RDMA_NLDEV_ATTR_CHARDEV_TYPE];
	struct emu_device *dev = attr_dev(t);
	unsigned int minor;
	char name[16];

	if (!a)
		return -EINVAL;
	if (a->nla_len == NLA_HDRLEN + sizeof("rdma_cm") &&
	    !memcmp((const char *)a + NLA_HDRLEN, "rdma_cm", sizeof("rdma_cm")))
		return cmd_get_chardev_ucma(r);
	/* the uverbs and rdma_cm clients are emulated (no umad) */
	if (a->nla_len != NLA_HDRLEN + sizeof("uverbs") ||
	    memcmp((const char *)a + NLA_HDRLEN, "uverbs", sizeof("uverbs")))
		return -EOPNOTSUPP;
	if (!dev)
		return -EINVAL;
	minor = EMU_CDEV_MINOR_BASE + dev->index;
	snprintf(name, sizeof(name), "uverbs%u", dev->index);
	msg_begin(r, r->req->nlmsg_type, 0);
	/* huge_encode_dev() */
	put_u64(r, RDMA_NLDEV_ATTR_CHARDEV,
		(EMU_CDEV_MAJOR & 0xfff) << 8 | (minor & 0xff) |
			(uint64_t)(minor & ~0xffU) << 12);
	put_u64(r, RDMA_NLDEV_ATTR_CHARDEV_ABI, MLX5_IB_UVERBS_ABI);
	put_str(r, RDMA_NLDEV_ATTR_CHARDEV_NAME, name);
	put_u32(r, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, RDMA_DRIVER_MLX5);
	return 0;
}

static int cmd_sys_get(struct nl_reply *r)
{
	msg_begin(r, r->req->nlmsg_type, 0);
	put_u8(r, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1); /* shared */
	/* the NIC reads the parent's pages: fork() never disturbs them */
	put_u8(r, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1);
	return 0;
}

static void handle(struct emu_netlink *nl, const struct nlmsghdr *h)
{
	struct nl_reply *r;
	struct nl_attrs t;
	bool dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	int err;

	if (!(h->nlmsg_flags & NLM_F_REQUEST) || h->nlmsg_type < NLMSG_MIN_TYPE)
		return;
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	r->nl = nl;
	r->req = h;
	parse_attrs(h, &t);
	if (RDMA_NL_GET_CLIENT(h->nlmsg_type) != RDMA_NL_NLDEV) {
		err = -EOPNOTSUPP;
	} else {
		switch (RDMA_NL_GET_OP(h->nlmsg_type)) {
		case RDMA_NLDEV_CMD_GET:
			err = cmd_get(r, &t, dump);
			break;
		case RDMA_NLDEV_CMD_PORT_GET:
			err = cmd_port_get(r, &t, dump);
			break;
		case RDMA_NLDEV_CMD_GET_CHARDEV:
			dump = false;
			err = cmd_get_chardev(r, &t);
			break;
		case RDMA_NLDEV_CMD_SYS_GET:
			dump = false;
			err = cmd_sys_get(r);
			break;
		default:
			err = -EOPNOTSUPP;
		}
	}
	if (err) {
		r->len = 0;
		put_error(r, err);
	} else if (dump) {
		put_done(r); /* a dump is never ACKed */
	} else if (h->nlmsg_flags & NLM_F_ACK) {
		put_error(r, 0);
	}
	flush(r);
	free(r);
}

/* ------------------------------------------------------------------ */
/* the socket calls                                                    */

int emu_netlink_socket(int type)
{
	int base = type & ~(SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct emu_netlink *nl;
	int sv[2];

	if (base != SOCK_RAW && base != SOCK_DGRAM) {
		errno = ESOCKTNOSUPPORT;
		return -1;
	}
	nl = calloc(1, sizeof(*nl));
	if (!nl) {
		errno = ENOMEM;
		return -1;
	}
	if (socketpair(AF_UNIX,
		       SOCK_DGRAM | (type & (SOCK_CLOEXEC | SOCK_NONBLOCK)), 0,
		       sv)) {
		free(nl);
		return -1;
	}
	if (sv[0] >= EMU_MAX_FDS) {
		emu_libc.close(sv[0]);
		emu_libc.close(sv[1]);
		free(nl);
		errno = EMFILE;
		return -1;
	}
	emu_libc.fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	nl->peer = sv[1];
	emu_fd_set(sv[0], EMU_FD_NETLINK, nl);
	return sv[0];
}

/* The kernel gives the first socket of a process its pid, then others. */
static uint32_t auto_portid(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static uint32_t n;
	static pid_t owner;
	uint32_t id;

	pthread_mutex_lock(&lock);
	if (owner != getpid()) {
		owner = getpid();
		n = 0;
	}
	id = n++ ? (uint32_t)(-4096 - (int32_t)n) : (uint32_t)owner;
	pthread_mutex_unlock(&lock);
	return id;
}

int emu_netlink_bind(struct emu_netlink *nl, const struct sockaddr *addr,
		     socklen_t len)
{
	const struct sockaddr_nl *sa = (const struct sockaddr_nl *)addr;

	if (!addr || len < sizeof(*sa) || sa->nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	if (nl->bound) {
		if (sa->nl_pid && sa->nl_pid != nl->portid) {
			errno = EINVAL;
			return -1;
		}
		return 0;
	}
	nl->portid = sa->nl_pid ? sa->nl_pid : auto_portid();
	nl->bound = true;
	return 0;
}

int emu_netlink_getsockname(struct emu_netlink *nl, struct sockaddr *addr,
			    socklen_t *len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_pid = nl->portid };

	if (!addr || !len) {
		errno = EFAULT;
		return -1;
	}
	memcpy(addr, &sa, *len < sizeof(sa) ? *len : sizeof(sa));
	*len = sizeof(sa);
	return 0;
}

int emu_netlink_setsockopt(struct emu_netlink *nl, int fd, int level, int name,
			   const void *val, socklen_t len)
{
	(void)nl;
	/* NETLINK_EXT_ACK, NETLINK_CAP_ACK, ...: accepted, answers are capped */
	if (level == SOL_NETLINK)
		return 0;
	return emu_libc.setsockopt(fd, level, name, val, len);
}

ssize_t emu_netlink_send(struct emu_netlink *nl, const struct msghdr *msg)
{
	const struct nlmsghdr *h;
	size_t total = 0, i, left;
	char *buf, *p;

	for (i = 0; i < msg->msg_iovlen; i++)
		total += msg->msg_iov[i].iov_len;
	buf = malloc(total ?: 1);
	if (!buf) {
		errno = ENOBUFS;
		return -1;
	}
	for (i = 0, p = buf; i < msg->msg_iovlen; i++) {
		memcpy(p, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		p += msg->msg_iov[i].iov_len;
	}
	if (!nl->bound) {
		nl->portid = auto_portid();
		nl->bound = true;
	}
	left = total;
	for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left);
	     h = NLMSG_NEXT(h, left))
		handle(nl, h);
	free(buf);
	return total;
}

/* The datagram comes from the pair; the sender shown is the kernel. */
/* write() and sendto() on the socket: one buffer */
ssize_t emu_netlink_send_buf(struct emu_netlink *nl, const void *buf,
			     size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	return emu_netlink_send(nl, &msg);
}

ssize_t emu_netlink_recv(int fd, struct msghdr *msg, int flags)
{
	struct sockaddr_nl *sa = msg->msg_name;
	socklen_t cap = msg->msg_namelen;
	struct msghdr m = *msg;
	ssize_t n;

	m.msg_name = NULL;
	m.msg_namelen = 0;
	n = emu_libc.recvmsg(fd, &m, flags);
	if (n < 0)
		return n;
	msg->msg_flags = m.msg_flags;
	msg->msg_controllen = m.msg_controllen;
	if (sa) {
		struct sockaddr_nl k = { .nl_family = AF_NETLINK };

		memcpy(sa, &k, cap < sizeof(k) ? cap : sizeof(k));
		msg->msg_namelen = sizeof(k);
	}
	return n;
}

void emu_netlink_close(struct emu_netlink *nl)
{
	emu_libc.close(nl->peer);
	free(nl);
}
