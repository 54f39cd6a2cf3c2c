// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fabric between hosts: TCP connections between processes of
 * different hosts of --peers (peers.h), the same frames as between the
 * processes of one host (fabric.c buffers and routes them).
 *
 * TCP has no SO_PEERCRED and no socket to pass as proof, so a connection
 * opens with a fabric_tcp_hello each way (wire.h) holding the fabric's
 * name and MLX5EMU_FABRIC_SECRET, and the slot it speaks for, which must
 * be a slot of the host at the connection's source address: the caller
 * binds its own host's address before it connects. The secret travels in
 * clear text: it keeps out those who cannot read the network, no more.
 *
 * Nagle would hold a request back until the answer to the last one came:
 * TCP_NODELAY. A peer host that vanishes without a word (no FIN, no RST)
 * is found by TCP_USER_TIMEOUT and keepalives within FAB_TCP_DEAD_MS.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp.h"
#include "wire.h"
#include "base/emu_libc.h"
#include "base/emu_param.h"

#define FAB_TCP_DEAD_MS 10000
#define FAB_TCP_BACKLOG 64

_Static_assert(FABRIC_SECRET_MAX < FAB_TCP_TEXT &&
		       EMU_FABRIC_NAME_MAX < FAB_TCP_TEXT,
	       "a secret or a fabric name does not fit in a TCP hello");

static const struct fabric_peers *peers(void)
{
	return &emu_cfg.peers;
}

bool fabric_tcp_on(void)
{
	return peers()->n > 0;
}

bool fabric_tcp_remote(int slot)
{
	return fabric_tcp_on() &&
	       fabric_slot_host(peers(), slot) != peers()->self;
}

void fabric_tcp_slots(int *first, int *count)
{
	*count = fabric_host_slots(peers());
	*first = fabric_tcp_on() ? peers()->self * *count : 0;
}

/* where the process in slot listens: its host's address, a port each */
static socklen_t slot_addr(int slot, union fabric_addr *a)
{
	const struct fabric_peers *p = peers();
	unsigned int h = fabric_slot_host(p, slot);

	*a = p->addr[h];
	fabric_addr_set_port(a, fabric_addr_port(a) + slot -
					h * fabric_host_slots(p));
	return p->addr_len[h];
}

static void set_opt(int fd, int level, int name, int val)
{
	/* best effort: without them TCP still works, only slower to tell */
	emu_libc.setsockopt(fd, level, name, &val, sizeof(val));
}

static void tune(int fd)
{
	set_opt(fd, IPPROTO_TCP, TCP_NODELAY, 1);
	set_opt(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
	set_opt(fd, IPPROTO_TCP, TCP_KEEPIDLE, FAB_TCP_DEAD_MS / 2000);
	set_opt(fd, IPPROTO_TCP, TCP_KEEPINTVL, 1);
	set_opt(fd, IPPROTO_TCP, TCP_KEEPCNT, FAB_TCP_DEAD_MS / 2000);
	set_opt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, FAB_TCP_DEAD_MS);
}

/* a non-blocking socket for slot's address, in *a */
static int slot_socket(int slot, union fabric_addr *a, socklen_t *len)
{
	*len = slot_addr(slot, a);
	return emu_libc.socket(a->sa.sa_family,
			       SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

int fabric_tcp_listen(int slot)
{
	union fabric_addr a;
	socklen_t len;
	int fd = slot_socket(slot, &a, &len);

	if (fd < 0)
		return -1;
	/* a slot's next process binds its port past the last one's TIME_WAIT */
	set_opt(fd, SOL_SOCKET, SO_REUSEADDR, 1);
	if (emu_libc.bind(fd, &a.sa, len) || listen(fd, FAB_TCP_BACKLOG)) {
		emu_libc.close(fd);
		return -1;
	}
	return fd;
}

int fabric_tcp_connect(int slot)
{
	union fabric_addr a, self = peers()->addr[peers()->self];
	socklen_t len;
	int fd = slot_socket(slot, &a, &len);

	if (fd < 0)
		return -1;
	tune(fd);
	/* from our host's address in --peers: the callee checks it */
	fabric_addr_set_port(&self, 0);
	if (emu_libc.bind(fd, &self.sa, peers()->addr_len[peers()->self]) ||
	    (connect(fd, &a.sa, len) && errno != EINPROGRESS)) {
		emu_libc.close(fd);
		return -1;
	}
	return fd;
}

int fabric_tcp_accept(int listen_fd)
{
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd >= 0)
		tune(fd);
	return fd;
}

void fabric_tcp_hello(struct fabric_tcp_hello *h, int from, int to)
{
	memset(h, 0, sizeof(*h));
	h->type = FAB_TCP_HELLO;
	h->from = from;
	h->to = to;
	snprintf(h->fabric, sizeof(h->fabric), "%s", emu_cfg.fabric);
	snprintf(h->secret, sizeof(h->secret), "%s", emu_cfg.fabric_secret);
}

/* all bytes compared, whatever the first difference: no timing hint */
static bool same_text(const char *a, const char *b)
{
	unsigned char diff = 0;
	size_t i;

	for (i = 0; i < FAB_TCP_TEXT; i++)
		diff |= a[i] ^ b[i];
	return !diff;
}

/* fd's far end is at the address of slot's host */
static bool from_host_of(int fd, int slot)
{
	union fabric_addr got, want;
	socklen_t len = sizeof(got);

	if (getpeername(fd, &got.sa, &len))
		return false;
	slot_addr(slot, &want);
	if (got.sa.sa_family != want.sa.sa_family)
		return false;
	if (got.sa.sa_family == AF_INET)
		return got.in.sin_addr.s_addr == want.in.sin_addr.s_addr;
	return !memcmp(&got.in6.sin6_addr, &want.in6.sin6_addr,
		       sizeof(struct in6_addr));
}

bool fabric_tcp_hello_ok(int fd, const struct fabric_tcp_hello *h, int from,
			 int to)
{
	struct fabric_tcp_hello want;

	fabric_tcp_hello(&want, from, to);
	if (h->type != FAB_TCP_HELLO || h->to != (uint32_t)to ||
	    h->from >= FABRIC_SLOTS || !fabric_tcp_remote(h->from) ||
	    fabric_slot_host(peers(), h->from) >= peers()->n)
		return false;
	if (from >= 0 && h->from != (uint32_t)from)
		return false;
	return same_text(h->fabric, want.fabric) &
	       same_text(h->secret, want.secret) & from_host_of(fd, h->from);
}
