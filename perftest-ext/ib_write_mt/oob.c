// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The out-of-band TCP exchange between client and server. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ib_write_mt.h"
#include "mono_clock.h"
#include "oob.h"

#define HDR_LEN 16
static const uint8_t magic[4] = { 'I', 'B', 'W', 'M' };

static const char *const type_names[] = {
	[OOB_HELLO] = "HELLO",	 [OOB_SETUP] = "SETUP",
	[OOB_TARGET] = "TARGET", [OOB_CONNECT] = "CONNECT",
	[OOB_READY] = "READY",	 [OOB_PROGRESS] = "PROGRESS",
	[OOB_DONE] = "DONE",	 [OOB_VERDICT] = "VERDICT",
	[OOB_ABORT] = "ABORT",	 [OOB_BYE] = "BYE",
	[OOB_ERROR] = "ERROR",
};

const char *wmt_oob_type_name(enum wmt_oob_type type)
{
	return type >= OOB_HELLO && type <= OOB_TYPE_MAX ? type_names[type] :
							   "unknown";
}

static int set_err(struct wmt_oob *oob, int code, const char *fmt,
		   const char *a, const char *b)
{
	snprintf(oob->err, sizeof(oob->err), fmt, a, b);
	return code;
}

/* one connect attempt, waiting at most ms */
static int try_connect(const struct addrinfo *ai, int ms, int *fd_out)
{
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, err = 0, one = 1;

	fd = socket(ai->ai_family,
		    ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    ai->ai_protocol);
	if (fd < 0)
		return errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		err = errno;
		goto fail;
	}
	pfd.fd = fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, ms) <= 0) {
		err = ETIMEDOUT;
		goto fail;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err)
		goto fail;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*fd_out = fd;
	return 0;
fail:
	close(fd);
	return err;
}

int wmt_oob_connect(struct wmt_oob *oob, const char *host, unsigned int port,
		    unsigned int timeout_s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	double deadline = mono_now() + timeout_s;
	char service[16];
	int ret, err = ETIMEDOUT;

	oob->fd = -1;
	oob->peer = host;
	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret)
		return set_err(oob, PERFTEST_EXIT_USAGE,
			       "cannot resolve %s: %s", host,
			       gai_strerror(ret));
	/* the server may not listen yet (launchers start both at once) */
	while (oob->fd < 0) {
		int left = (deadline - mono_now()) * 1000;

		if (left <= 0)
			break;
		for (ai = res; ai && oob->fd < 0; ai = ai->ai_next)
			err = try_connect(ai, left, &oob->fd);
		if (oob->fd < 0 && mono_now() < deadline)
			usleep(100 * 1000);
	}
	freeaddrinfo(res);
	if (oob->fd < 0) {
		snprintf(
			oob->err, sizeof(oob->err),
			"no connection to %s port %u within %u s (--connect-timeout): %s",
			host, port, timeout_s, strerror(err));
		return PERFTEST_EXIT_TIMEOUT;
	}
	return 0;
}

int wmt_oob_listen(unsigned int port, int *lfd, char *err, size_t errlen)
{
	struct sockaddr_in6 sa = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	int fd, one = 1, zero = 0;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		struct sockaddr_in sa4 = { .sin_family = AF_INET,
					   .sin_port = htons(port) };

		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
			if (!bind(fd, (void *)&sa4, sizeof(sa4)))
				goto bound;
		}
		goto fail;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (void *)&sa, sizeof(sa)))
		goto fail;
bound:
	if (listen(fd, 1))
		goto fail;
	*lfd = fd;
	return 0;
fail:
	snprintf(err, errlen, "TCP port %u: %s", port, strerror(errno));
	if (fd >= 0)
		close(fd);
	return PERFTEST_EXIT_USAGE;
}

int wmt_oob_accept(struct wmt_oob *oob, int lfd, unsigned int timeout_s)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	int one = 1, ret;

	oob->fd = -1;
	do
		ret = poll(&pfd, 1, timeout_s ? (int)timeout_s * 1000 : -1);
	while (ret < 0 && errno == EINTR);
	if (ret <= 0) {
		snprintf(oob->err, sizeof(oob->err),
			 "no client within %u s (--connect-timeout)%s%s",
			 timeout_s, ret ? ": " : "",
			 ret ? strerror(errno) : "");
		return PERFTEST_EXIT_TIMEOUT;
	}
	oob->fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (oob->fd < 0)
		return set_err(oob, PERFTEST_EXIT_DISCONNECT, "accept: %s%s",
			       strerror(errno), "");
	setsockopt(oob->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

void wmt_oob_close(struct wmt_oob *oob)
{
	if (oob->fd >= 0)
		close(oob->fd);
	oob->fd = -1;
}

static int write_all(struct wmt_oob *oob, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(oob->fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return set_err(oob, PERFTEST_EXIT_DISCONNECT,
				       "the peer closed the connection (%s)%s",
				       strerror(errno), "");
		p += n;
		len -= n;
	}
	return 0;
}

int wmt_oob_send(struct wmt_oob *oob, enum wmt_oob_type type,
		 const void *payload, uint32_t len)
{
	uint8_t hdr[HDR_LEN];
	struct wmt_buf b = { hdr, sizeof(hdr), 0, 0 };
	int ret;

	wmt_put_bytes(&b, magic, 4);
	wmt_put32(&b, (uint32_t)WMT_OOB_VERSION << 16 | type);
	wmt_put32(&b, len);
	wmt_put32(&b, 0);
	ret = write_all(oob, hdr, sizeof(hdr));
	if (!ret && len)
		ret = write_all(oob, payload, len);
	return ret;
}

/* the milliseconds left until deadline (mono_now() seconds), at least 0 */
static int ms_left(double deadline)
{
	double left = (deadline - mono_now()) * 1000;

	return left > 0 ? (int)left + 1 : 0;
}

/*
 * len bytes by the deadline, however they trickle in. *got says how many
 * arrived, so that the caller tells a close between messages from a
 * truncated one.
 */
static int read_all(struct wmt_oob *oob, uint8_t *p, size_t len,
		    double deadline, size_t *got)
{
	struct pollfd pfd = { .fd = oob->fd, .events = POLLIN };

	*got = 0;
	while (*got < len) {
		ssize_t n;
		int r = poll(&pfd, 1, ms_left(deadline));

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			snprintf(
				oob->err, sizeof(oob->err),
				"%s did not answer within %u s (--peer-timeout)",
				oob->peer, oob->timeout_ms / 1000);
			return PERFTEST_EXIT_TIMEOUT;
		}
		n = recv(oob->fd, p + *got, len - *got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return PERFTEST_EXIT_DISCONNECT;
		*got += n;
	}
	return 0;
}

static int check_header(struct wmt_oob *oob, struct wmt_buf *b,
			unsigned int mask, struct wmt_oob_msg *msg)
{
	uint8_t m[4];
	uint32_t vt, reserved;
	unsigned int version;
	char what[64];

	wmt_get_bytes(b, m, 4);
	vt = wmt_get32(b);
	msg->len = wmt_get32(b);
	reserved = wmt_get32(b);
	version = vt >> 16;
	msg->type = vt & 0xffff;
	if (memcmp(m, magic, 4))
		return set_err(
			oob, PERFTEST_EXIT_PROTOCOL,
			"malformed message from %s: bad magic (not ib_write_mt?)%s",
			oob->peer, "");
	if (version != WMT_OOB_VERSION) {
		snprintf(
			oob->err, sizeof(oob->err),
			"%s speaks ib_write_mt protocol version %u, this is version %u",
			oob->peer, version, WMT_OOB_VERSION);
		return PERFTEST_EXIT_VERSION;
	}
	if (reserved || msg->type < OOB_HELLO || msg->type > OOB_TYPE_MAX ||
	    msg->len > WMT_OOB_MAX_PAYLOAD) {
		snprintf(
			oob->err, sizeof(oob->err),
			"malformed message from %s: type %u, length %u, reserved 0x%x",
			oob->peer, msg->type, msg->len, reserved);
		return PERFTEST_EXIT_PROTOCOL;
	}
	if (!(mask & OOB_BIT(msg->type)) && msg->type != OOB_ERROR) {
		snprintf(what, sizeof(what), "%s",
			 wmt_oob_type_name(msg->type));
		return set_err(
			oob, PERFTEST_EXIT_PROTOCOL,
			"malformed exchange with %s: unexpected %s message",
			oob->peer, what);
	}
	return 0;
}

/* the peer's words, printable ASCII only: a terminal is not its to drive */
static void printable(char *text)
{
	for (; *text; text++)
		if (*text < ' ' || *text > '~')
			*text = '?';
}

/*
 * The peer's ERROR. Its code is its own exit status, not ours: whatever it
 * says, we exit "the peer gave up" and show its words and code.
 */
static int peer_error(struct wmt_oob *oob, struct wmt_oob_msg *msg)
{
	struct wmt_buf b = { msg->payload, msg->len, 0, 0 };
	char text[WMT_OOB_MSG_LEN + 1] = "";
	uint32_t code = wmt_get32(&b);

	wmt_get_bytes(&b, text, WMT_OOB_MSG_LEN);
	text[WMT_OOB_MSG_LEN] = 0;
	if (b.bad || b.pos != msg->len || text[WMT_OOB_MSG_LEN - 1])
		return set_err(oob, PERFTEST_EXIT_PROTOCOL,
			       "malformed ERROR message from %s%s", oob->peer,
			       "");
	printable(text);
	snprintf(oob->err, sizeof(oob->err), "%s gave up (its status %u): %s",
		 oob->peer, code, text);
	return PERFTEST_EXIT_PEER;
}

int wmt_oob_recv(struct wmt_oob *oob, unsigned int mask,
		 struct wmt_oob_msg *msg)
{
	uint8_t hdr[HDR_LEN];
	struct wmt_buf b = { hdr, sizeof(hdr), 0, 0 };
	double deadline = mono_now() + oob->timeout_ms / 1000.0;
	size_t got;
	int ret;

	memset(msg, 0, sizeof(*msg));
	ret = read_all(oob, hdr, sizeof(hdr), deadline, &got);
	if (ret == PERFTEST_EXIT_DISCONNECT)
		return set_err(
			oob,
			got ? PERFTEST_EXIT_PROTOCOL : PERFTEST_EXIT_DISCONNECT,
			got ? "truncated message from %s (the connection closed inside its header)%s" :
			      "%s closed the connection%s",
			oob->peer, "");
	if (ret)
		return ret;
	ret = check_header(oob, &b, mask, msg);
	if (ret)
		return ret;
	if (msg->len) {
		msg->payload = malloc(msg->len);
		if (!msg->payload)
			return set_err(oob, PERFTEST_EXIT_DEVICE,
				       "out of memory%s%s", "", "");
		ret = read_all(oob, msg->payload, msg->len, deadline, &got);
		if (ret == PERFTEST_EXIT_DISCONNECT)
			ret = set_err(
				oob, PERFTEST_EXIT_PROTOCOL,
				"truncated %s message from %s (the connection closed inside it)",
				wmt_oob_type_name(msg->type), oob->peer);
		if (ret) {
			wmt_oob_msg_free(msg);
			return ret;
		}
	}
	if (msg->type == OOB_ERROR) {
		ret = peer_error(oob, msg);
		wmt_oob_msg_free(msg);
		return ret;
	}
	return 0;
}

int wmt_oob_readable(struct wmt_oob *oob)
{
	struct pollfd pfd = { .fd = oob->fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

void wmt_oob_msg_free(struct wmt_oob_msg *msg)
{
	free(msg->payload);
	msg->payload = NULL;
}

void wmt_oob_send_error(struct wmt_oob *oob, int code, const char *msg)
{
	uint8_t p[4 + WMT_OOB_MSG_LEN] = {};
	struct wmt_buf b = { p, sizeof(p), 0, 0 };
	char text[WMT_OOB_MSG_LEN] = {}, keep[sizeof(oob->err)];

	if (oob->fd < 0)
		return;
	snprintf(text, sizeof(text), "%s", msg);
	wmt_put32(&b, code);
	wmt_put_bytes(&b, text, sizeof(text));
	/* a peer that is gone already must not change what we report */
	memcpy(keep, oob->err, sizeof(keep));
	wmt_oob_send(oob, OOB_ERROR, p, sizeof(p));
	memcpy(oob->err, keep, sizeof(keep));
}

void wmt_put32(struct wmt_buf *b, uint32_t v)
{
	uint8_t x[4] = { v >> 24, v >> 16, v >> 8, v };

	wmt_put_bytes(b, x, 4);
}

void wmt_put64(struct wmt_buf *b, uint64_t v)
{
	wmt_put32(b, v >> 32);
	wmt_put32(b, v);
}

void wmt_put_bytes(struct wmt_buf *b, const void *v, size_t n)
{
	if (b->pos + n > b->len) {
		b->bad = 1;
		return;
	}
	memcpy(b->p + b->pos, v, n);
	b->pos += n;
}

void wmt_get_bytes(struct wmt_buf *b, void *v, size_t n)
{
	if (b->pos + n > b->len) {
		b->bad = 1;
		memset(v, 0, n);
		return;
	}
	memcpy(v, b->p + b->pos, n);
	b->pos += n;
}

uint32_t wmt_get32(struct wmt_buf *b)
{
	uint8_t x[4];

	wmt_get_bytes(b, x, 4);
	return (uint32_t)x[0] << 24 | x[1] << 16 | x[2] << 8 | x[3];
}

uint64_t wmt_get64(struct wmt_buf *b)
{
	uint64_t hi = wmt_get32(b);

	return hi << 32 | wmt_get32(b);
}

void wmt_put_addr(struct wmt_buf *b, const struct rc_addr *a)
{
	uint8_t x[4] = { a->lid >> 8, a->lid, a->mtu, a->use_gid };

	wmt_put32(b, a->qpn);
	wmt_put32(b, a->psn);
	wmt_put_bytes(b, x, 4);
	wmt_put_bytes(b, a->gid, 16);
}

int wmt_get_addr(struct wmt_buf *b, struct rc_addr *a)
{
	uint8_t x[4];

	a->qpn = wmt_get32(b);
	a->psn = wmt_get32(b);
	wmt_get_bytes(b, x, 4);
	wmt_get_bytes(b, a->gid, 16);
	a->lid = x[0] << 8 | x[1];
	a->mtu = x[2];
	a->use_gid = x[3];
	if (a->qpn > 0xffffff || a->psn > 0xffffff || a->mtu < IBV_MTU_256 ||
	    a->mtu > IBV_MTU_4096 || a->use_gid > 1)
		return -1;
	return 0;
}

int wmt_hello_build(uint8_t *p, size_t len, unsigned int role)
{
	struct wmt_buf b = { p, len, 0, 0 };
	char tool[WMT_TOOL_LEN] = "ib_write_mt";

	wmt_put_bytes(&b, tool, WMT_TOOL_LEN);
	wmt_put32(&b, role);
	return b.pos;
}

int wmt_hello_check(const struct wmt_oob_msg *m, unsigned int role)
{
	struct wmt_buf b = { m->payload, m->len, 0, 0 };
	static const char name[WMT_TOOL_LEN] = "ib_write_mt";
	char tool[WMT_TOOL_LEN];
	uint32_t r;

	wmt_get_bytes(&b, tool, WMT_TOOL_LEN);
	r = wmt_get32(&b);
	return b.bad || b.pos != m->len || memcmp(tool, name, WMT_TOOL_LEN) ||
	       r != role;
}
