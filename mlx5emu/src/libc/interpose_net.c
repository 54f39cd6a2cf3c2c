// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA netlink sockets (netlink.c) behind the socket calls; --netlink=off
 * refuses them.
 */
#include <errno.h>
#include <sys/socket.h>

#include "verbs/mlx5emu.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

int socket(int domain, int type, int protocol)
{
	emu_libc_init();
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		emu_init();
		if (emu_cfg.netlink)
			return emu_netlink_socket(type);
		/* libibverbs then falls back to sysfs */
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return emu_libc.socket(domain, type, protocol);
}

static struct emu_netlink *netlink_fd(int fd)
{
	emu_libc_init();
	return emu_fd_get(fd, EMU_FD_NETLINK);
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_bind(nl, addr, len) :
		    emu_libc.bind(fd, addr, len);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_getsockname(nl, addr, len) :
		    emu_libc.getsockname(fd, addr, len);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_setsockopt(nl, fd, level, name, val, len) :
		    emu_libc.setsockopt(fd, level, name, val, len);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_send_buf(nl, buf, len) :
		    emu_libc.sendto(fd, buf, len, flags, to, tolen);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct emu_netlink *nl = netlink_fd(fd);

	return nl ? emu_netlink_send(nl, msg) :
		    emu_libc.sendmsg(fd, msg, flags);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	return netlink_fd(fd) ? emu_netlink_recv(fd, msg, flags) :
				emu_libc.recvmsg(fd, msg, flags);
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
		 struct sockaddr *from, socklen_t *fromlen)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (!netlink_fd(fd))
		return emu_libc.recvfrom(fd, buf, len, flags, from, fromlen);
	msg.msg_name = from;
	msg.msg_namelen = fromlen ? *fromlen : 0;
	n = emu_netlink_recv(fd, &msg, flags);
	if (n >= 0 && fromlen)
		*fromlen = msg.msg_namelen;
	return n;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}
