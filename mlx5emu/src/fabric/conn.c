// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fabric's stream connections, unix or TCP, with their buffers: what
 * a pass queues leaves in one write, what a read brings in is parsed
 * frame by frame (fabric.c). And the fabric's clock, which only runs
 * while we do (FAB_WAIT_MS counts our own running time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fabric_loc.h"

int fabric_grow(uint8_t **buf, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 4096;
	uint8_t *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n);
	if (!p)
		return -1;
	*buf = p;
	*cap = n;
	return 0;
}

void fabric_conn_init(struct fabric_conn *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->slot = -1;
}

void fabric_conn_init_tcp(struct fabric_conn *c, int fd)
{
	fabric_conn_init(c, fd);
	c->tcp = true;
}

void fabric_conn_close(struct fabric_conn *c)
{
	emu_libc.close(c->fd);
	free(c->rbuf);
	free(c->wbuf);
	fabric_conn_init(c, -1);
}

/* room for n more bytes to send; returns where they go */
uint8_t *fabric_conn_reserve(struct fabric_conn *c, size_t n)
{
	if (fabric_grow(&c->wbuf, &c->wcap, c->wlen + n))
		return NULL;
	c->wlen += n;
	return c->wbuf + c->wlen - n;
}

uint64_t fabric_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/*
 * Our own running time, in ms: a pass advances it by at most
 * FAB_CLOCK_STEP_MS, so the time this process spent stopped (SIGSTOP, a
 * debugger) does not count against its peers.
 */
uint64_t fabric_clock(void)
{
	uint64_t now = fabric_now_ms(), step = now - fabric.clock_wall;

	if (!fabric.clock_wall)
		step = 0;
	fabric.clock_wall = now;
	fabric.clock += step < FAB_CLOCK_STEP_MS ? step : FAB_CLOCK_STEP_MS;
	return fabric.clock;
}

/* our requests wait until the callee has shown it is on our fabric */
size_t fabric_conn_sendable(const struct fabric_conn *c)
{
	return c->tcp && !c->greeted && c->wlen > c->hold_at ? c->hold_at :
							       c->wlen;
}

/*
 * Write what the socket takes, never waiting: the rest stays buffered for
 * a later pass. -1 when the peer is gone, or took nothing for FAB_WAIT_MS.
 */
int fabric_conn_flush(struct fabric_conn *c)
{
	size_t off = 0, end = fabric_conn_sendable(c);

	while (off < end) {
		ssize_t n =
			emu_libc.sendto(c->fd, c->wbuf + off, end - off,
					MSG_NOSIGNAL | MSG_DONTWAIT, NULL, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			return -1;
		off += n;
	}
	if (off) {
		memmove(c->wbuf, c->wbuf + off, c->wlen - off);
		c->wlen -= off;
		c->hold_at -= c->greeted ? 0 : off;
		c->stuck_since = 0;
	}
	if (!c->wlen)
		return 0;
	if (!c->stuck_since)
		c->stuck_since = fabric_clock();
	return fabric_clock() - c->stuck_since > FAB_WAIT_MS ? -1 : 0;
}

/* output the peer has not taken yet */
bool fabric_conn_backlog(const struct fabric_conn *c)
{
	return c->wlen >= FAB_OUT_MAX;
}

/* read what is there; -1 once the peer is gone and nothing is left */
int fabric_conn_fill(struct fabric_conn *c)
{
	bool eof = false;

	if (c->roff && c->roff == c->rlen)
		c->roff = c->rlen = 0;
	for (;;) {
		ssize_t n;

		if (c->roff > c->rcap / 2) {
			memmove(c->rbuf, c->rbuf + c->roff, c->rlen - c->roff);
			c->rlen -= c->roff;
			c->roff = 0;
		}
		if (fabric_grow(&c->rbuf, &c->rcap, c->rlen + FAB_READ_CHUNK))
			return -1;
		n = emu_libc.recvfrom(c->fd, c->rbuf + c->rlen,
				      c->rcap - c->rlen, MSG_DONTWAIT, NULL,
				      NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			eof = true;
			break;
		}
		c->rlen += n;
		if ((size_t)n < FAB_READ_CHUNK)
			break;
	}
	return eof && c->roff == c->rlen ? -1 : eof ? 1 : 0;
}

/* the next frame's header if it is all there, or NULL */
uint8_t *fabric_conn_peek(struct fabric_conn *c, size_t hdr)
{
	return c->rlen - c->roff >= hdr ? c->rbuf + c->roff : NULL;
}

bool fabric_conn_has(struct fabric_conn *c, size_t total)
{
	return c->rlen - c->roff >= total;
}
