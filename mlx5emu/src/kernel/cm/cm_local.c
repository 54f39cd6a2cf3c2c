// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The one-host CM transport: a port is an abstract unix seqpacket socket
 * "\0mlx5emu-cm.<uid>.<fabric>.<ps>.<port>", so the kernel frees it when
 * its holder dies and a port is taken at most once per fabric, like the
 * kernel's port spaces. A connection is a seqpacket pair: messages keep
 * their boundaries and their order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "verbs/mlx5emu.h"
#include "cm_transport.h"

/* the kernel's ephemeral range (ip_local_port_range's default) */
#define CM_PORT_LOW 32768
#define CM_PORT_HIGH 60999

static socklen_t port_name(struct sockaddr_un *sun, uint16_t ps, uint16_t port)
{
	int n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
		     "mlx5emu-cm.%u.%s.%u.%u", (unsigned int)getuid(),
		     emu_cfg.fabric, ps, port);
	if (n >= (int)sizeof(sun->sun_path) - 1)
		n = sizeof(sun->sun_path) - 2;
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

static int new_socket(void)
{
	int fd = emu_libc.socket(
		AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

static int bind_port(int fd, uint16_t ps, uint16_t port)
{
	struct sockaddr_un sun;
	socklen_t len = port_name(&sun, ps, port);

	if (emu_libc.bind(fd, (struct sockaddr *)&sun, len))
		return -errno;
	return 0;
}

int cm_tr_reserve(uint16_t ps, uint16_t *port)
{
	unsigned int span = CM_PORT_HIGH - CM_PORT_LOW + 1, i, first;
	int fd, ret;

	emu_init();
	fd = new_socket();
	if (fd < 0)
		return fd;
	if (*port) {
		ret = bind_port(fd, ps, *port);
		goto out;
	}
	first = (unsigned int)random() % span;
	for (i = 0, ret = -EADDRINUSE; i < span && ret == -EADDRINUSE; i++) {
		uint16_t p = CM_PORT_LOW + (first + i) % span;

		ret = bind_port(fd, ps, p);
		if (!ret)
			*port = p;
	}
out:
	if (ret) {
		emu_libc.close(fd);
		return ret;
	}
	return fd;
}

int cm_tr_listen(int fd, int backlog)
{
	return listen(fd, backlog) ? -errno : 0;
}

int cm_tr_connect(uint16_t ps, uint16_t port)
{
	struct sockaddr_un sun;
	socklen_t len = port_name(&sun, ps, port);
	int fd = new_socket();

	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&sun, len)) {
		int err = errno;

		emu_libc.close(fd);
		/* no such name: nobody holds the port */
		return err == ENOENT ? -ECONNREFUSED : -err;
	}
	return fd;
}

int cm_tr_accept(int fd)
{
	int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	return c < 0 ? -errno : c;
}

int cm_tr_send(int fd, const struct cm_msg *m)
{
	ssize_t n = emu_libc.sendto(fd, m, sizeof(*m), MSG_NOSIGNAL, NULL, 0);

	return n == (ssize_t)sizeof(*m) ? 0 : n < 0 ? -errno : -EIO;
}

int cm_tr_recv(int fd, struct cm_msg *m)
{
	ssize_t n =
		emu_libc.recvfrom(fd, m, sizeof(*m), MSG_DONTWAIT, NULL, NULL);

	if (n < 0)
		return errno == EAGAIN ? -EAGAIN : 0;
	/* a short message is a broken peer: treat it as gone */
	return n == (ssize_t)sizeof(*m) ? 1 : 0;
}

void cm_tr_close(int fd)
{
	if (fd >= 0)
		emu_libc.close(fd);
}
