// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The hello: the first message on a connection says which slot it speaks
 * for, and proves it (fabric.c's header comment, wire.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fabric_loc.h"

bool fabric_same_user(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) &&
	       cred.uid == getuid();
}

/* ours: the first message on a connection we opened */
int fabric_send_hello(int fd)
{
	struct fabric_hello hello = { FAB_HELLO, fabric.slot };
	struct iovec iov = { &hello, sizeof(hello) };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl = {};
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fabric.listen_fd, sizeof(int));
	return emu_libc.sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) ==
			       sizeof(hello) ?
		       0 :
		       -1;
}

/* the socket passed is bound to slot's name in our fabric */
bool fabric_holds_slot(int fd, uint32_t slot)
{
	struct sockaddr_un want, got;
	socklen_t want_len, got_len = sizeof(got);

	if (slot >= FABRIC_MAX_SLOTS)
		return false;
	want_len = fabric_addr(&want, slot);
	return !emu_libc.getsockname(fd, (struct sockaddr *)&got, &got_len) &&
	       got_len == want_len && !memcmp(&got, &want, want_len);
}

/*
 * A peer's: read its hello and the socket that comes with it. 1 when c
 * now speaks for a slot, 0 when the hello is not there yet, -1 when it is
 * not a proof.
 */
int fabric_recv_hello(struct fabric_conn *c)
{
	struct fabric_hello hello = {};
	struct iovec iov = { &hello, sizeof(hello) };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cm;
	bool proved = false;
	ssize_t n;

	n = emu_libc.recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	for (cm = CMSG_FIRSTHDR(&msg); n > 0 && cm;
	     cm = CMSG_NXTHDR(&msg, cm)) {
		size_t i, nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int fd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (i = 0; i < nfd; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(int));
			proved |= nfd == 1 && fabric_holds_slot(fd, hello.slot);
			emu_libc.close(fd);
		}
	}
	/* the hello comes whole, in one message, or not at all */
	if (n != sizeof(hello) || (msg.msg_flags & MSG_CTRUNC) ||
	    hello.type != FAB_HELLO || !proved)
		return -1;
	c->slot = hello.slot;
	return 1;
}

/*
 * The other end's hello over TCP, checked: it speaks for slot from (-1:
 * any slot of another host). 1 when it was there and good, 0 when it is
 * not all there yet, -1 when it does not belong on our fabric.
 */
int fabric_tcp_hello_read(struct fabric_conn *c, int from)
{
	struct fabric_tcp_hello hello;
	uint8_t *f = fabric_conn_peek(c, sizeof(hello));

	if (!f)
		return 0;
	memcpy(&hello, f, sizeof(hello));
	if (!fabric_tcp_hello_ok(c->fd, &hello, from, fabric.slot))
		return -1;
	c->roff += sizeof(hello);
	c->slot = hello.from;
	c->greeted = true;
	return 1;
}

/* our hello to slot, next in c's output */
int fabric_tcp_hello_queue(struct fabric_conn *c, int slot)
{
	struct fabric_tcp_hello hello;
	uint8_t *p = fabric_conn_reserve(c, sizeof(hello));

	if (!p)
		return -1;
	fabric_tcp_hello(&hello, fabric.slot, slot);
	memcpy(p, &hello, sizeof(hello));
	return 0;
}

/* a caller from another host: its hello, then ours in answer */
int fabric_tcp_hello_in(struct fabric_conn *c)
{
	int r = fabric_tcp_hello_read(c, -1);

	return r <= 0 ? r : fabric_tcp_hello_queue(c, c->slot) ? -1 : 1;
}
