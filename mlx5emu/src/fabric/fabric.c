// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Links between QPs: a direct call when both ends live in this process, a
 * request/response exchange over unix stream sockets otherwise, or over
 * TCP to a process of another host (tcp.c: how those connections open;
 * here they are buffered and served like the unix ones).
 *
 * Every process of a fabric binds "\0mlx5emu.<uid>.<len>.<fabric>.<slot>" in
 * the abstract namespace for the first free slot of its host's: the kernel frees the name
 * when the process dies, so a crash leaves no file, segment or stale slot
 * behind, and the slot is the process's QPN prefix. Connections in both
 * directions are accepted only from the same uid (SO_PEERCRED). The
 * process that connects proves its slot in its first message by passing
 * its listening socket (wire.h), and a connection serves only requests of
 * QPs of that slot: a process of the user that holds no slot cannot
 * reach a QP, and one that holds a slot cannot speak for another.
 *
 * UC and UD requests are sent and forgotten: the responder never answers
 * them, whatever it did with them.
 *
 * Requests are pipelined: the requester keeps a window of them in flight
 * (nic.h: NIC_WINDOW, NIC_WINDOW_BYTES, below the socket buffers) and the
 * answers, in order on the same connection, are picked up by
 * fabric_serve() like the peers' requests. Both directions are buffered:
 * requests of a pass leave in one write, and whatever a read brings in is
 * parsed frame by frame, so a busy link costs few system calls per
 * message.
 *
 * The NIC thread runs with the NIC lock that every control verb takes, so
 * it never waits for another process: sockets are non-blocking, output a
 * peer does not take stays buffered (up to FAB_OUT_MAX, then the requester
 * is told NIC_STALL and sends the WQE again later) and goes out on a later
 * pass; an idle NIC sleeps in poll() for it. A peer that takes nothing for
 * FAB_WAIT_MS of our own running time (it is stopped, or hung) is dropped
 * and stays dead for FAB_DEAD_MS.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fabric_loc.h"

struct fabric_state fabric = {
	.once = PTHREAD_ONCE_INIT,
	.slot = -1,
	.listen_fd = -1,
	.tcp_fd = -1,
};

socklen_t fabric_addr(struct sockaddr_un *sa, int slot)
{
	char what[16];

	snprintf(what, sizeof(what), "%d", slot);
	return fabric_sockaddr(sa, getuid(), emu_cfg.fabric, what);
}

/*
 * The first free slot of this host's (all of them on a fabric of one
 * host): its name here and, across hosts, its TCP port too.
 */
static void fabric_bind_slot(void)
{
	int fd = -1, tcp = -1, s, first, count;
	struct sockaddr_un sa;

	for (s = 0; s < FABRIC_MAX_SLOTS; s++)
		fabric.out[s].fd = -1;
	fabric_tcp_slots(&first, &count);
	for (s = first; s < first + count; s++) {
		socklen_t len = fabric_addr(&sa, s);

		if (fd < 0)
			fd = emu_libc.socket(
				AF_UNIX,
				SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return;
		if (emu_libc.bind(fd, (struct sockaddr *)&sa, len))
			continue;
		if (!fabric_tcp_on())
			break;
		tcp = fabric_tcp_listen(s);
		if (tcp >= 0)
			break;
		/* its port is taken: the name goes with this socket */
		emu_libc.close(fd);
		fd = -1;
	}
	if (s == first + count || listen(fd, 64)) {
		if (fd >= 0)
			emu_libc.close(fd);
		if (tcp >= 0)
			emu_libc.close(tcp);
		return;
	}
	fabric.listen_fd = fd;
	fabric.tcp_fd = tcp;
	fabric.slot = s;
}

uint32_t fabric_qpn_base(void)
{
	pthread_once(&fabric.once, fabric_bind_slot);
	/* without a slot the QPNs stay process-local */
	return EMU_FIRST_QPN +
	       (fabric.slot < 0 ? 0 : (uint32_t)(fabric.slot + 1) << 16);
}

int fabric_init(const struct fabric_nic_ops *ops)
{
	fabric.nic = ops;
	fabric_qpn_base();
	/* before a peer learns a QPN of ours, so none finds them missing */
	fabric_direct_init();
	return 0;
}

/* ---- the responder side: requests from peer processes ---- */

/* Answer one request; its answer is appended to the connection. */
static int serve_one(struct fabric_conn *c, const struct fabric_req *req,
		     uint8_t *payload)
{
	const struct nic_opcode *op = nic_opcode(req->opcode);
	bool read = op && (op->flags & NIC_OPF_READ);
	size_t at = c->wlen;
	struct fabric_resp resp = {
		.type = FAB_RESP,
		.psn = req->psn,
		.epoch = req->epoch,
		.req_qpn = req->src_qpn,
		.req_lid = req->slid,
	};
	struct nic_iov src = { payload, req->len }, dst;
	struct nic_pkt pkt = {
		.psn = req->psn,
		.epoch = req->epoch,
		.opcode = req->opcode,
		.qp_type = req->qp_type,
		.se = req->se,
		.src_qpn = req->src_qpn,
		.slid = req->slid,
		.dlid = req->dlid,
		.dest_qpn = req->dest_qpn,
		.qkey = req->qkey,
		.raddr = req->raddr,
		.rkey = req->rkey,
		.imm = req->imm,
		.len = req->len,
		.swap_add = req->swap_add,
		.compare = req->compare,
		.src = &src,
		.nsrc = 1,
	};
	const struct nic_transport *tp;
	struct nic_qp *qp;

	qp = fabric.nic->find_qp(req->dlid, req->dest_qpn);
	tp = nic_transport(req->qp_type);
	if (!tp->reliable) {
		/* unreliable: executed or dropped, never answered */
		if (qp && (!tp->connected || qp->dest_qpn == req->src_qpn))
			nic_respond(qp, &pkt);
		else if (!tp->connected)
			nic_ud_fate(fabric.nic->find_dev(req->dlid), NULL, &pkt,
				    NIC_UD_NO_QP);
		return 0;
	}
	/* READ data lands straight in the outgoing buffer */
	if (!fabric_conn_reserve(c, sizeof(resp) + (read ? req->len : 0)))
		return -1;
	if (read) {
		dst.base = c->wbuf + at + sizeof(resp);
		dst.len = req->len;
		pkt.dst = &dst;
		pkt.ndst = 1;
	}
	/* RC: only the connected peer may talk to a QP */
	if (!qp || qp->dest_qpn != req->src_qpn)
		resp.ack = NIC_NAK_RETRY;
	else
		resp.ack = fabric_direct_respond(qp, &pkt);
	if (resp.ack == NIC_PENDING) {
		c->wlen = at; /* the answer is lost (fault injection) */
		return 0;
	}
	if (resp.ack == NIC_ACK && read)
		resp.len = req->len;
	c->wlen = at + sizeof(resp) + resp.len;
	memcpy(c->wbuf + at, &resp, sizeof(resp));
	return 0;
}

static int serve_conn(struct fabric_conn *c)
{
	struct fabric_req req;
	int eof, n = 0;
	uint8_t *f;
	size_t total;

	/* a requester that does not read its answers gets no more */
	if (fabric_conn_flush(c))
		return -1;
	if (fabric_conn_backlog(c))
		return 0;
	if (c->slot < 0 && !c->tcp) {
		eof = fabric_recv_hello(c);
		if (eof <= 0)
			return eof;
	}
	eof = fabric_conn_fill(c);
	if (eof < 0)
		return -1;
	if (c->slot < 0) {
		n = fabric_tcp_hello_in(c);
		if (n <= 0)
			return n < 0 || eof ? -1 : 0;
		n = 0;
	}
	while ((f = fabric_conn_peek(c, sizeof(req)))) {
		const struct nic_opcode *op;

		memcpy(&req, f, sizeof(req));
		/* a peer speaks for its own QPs only */
		if (req.type != FAB_REQ || req.len > (1u << 30) ||
		    fabric_qpn_slot(req.src_qpn) != c->slot)
			return -1;
		/* only writes and sends carry data on the wire */
		op = nic_opcode(req.opcode);
		total = sizeof(req);
		if (op && (op->flags & NIC_OPF_PAYLOAD))
			total += req.len;
		if (!fabric_conn_has(c, total))
			break;
		if (serve_one(c, &req, f + sizeof(req)))
			return -1;
		c->roff += total;
		n++;
	}
	if (fabric_conn_flush(c) || eof)
		return -1;
	return n;
}

static void drop_in(int i)
{
	fabric_conn_close(&fabric.in[i]);
	fabric.in[i] = fabric.in[--fabric.nin];
	fabric_conn_init(&fabric.in[fabric.nin], -1);
}

/* ---- the requester side: our requests and their answers ---- */

static int answer_conn(struct fabric_conn *c)
{
	int eof = fabric_conn_fill(c), n = 0;
	struct fabric_resp resp;
	struct nic_qp *qp;
	uint8_t *f;
	size_t total;

	if (eof < 0)
		return -1;
	if (c->tcp && !c->greeted) {
		n = fabric_tcp_hello_read(c, c->slot);
		if (n <= 0)
			return n < 0 || eof ? -1 : 0;
		n = 0;
	}
	while ((f = fabric_conn_peek(c, sizeof(resp)))) {
		memcpy(&resp, f, sizeof(resp));
		if (resp.type != FAB_RESP || resp.len > (1u << 30))
			return -1;
		total = sizeof(resp) + resp.len;
		if (!fabric_conn_has(c, total))
			break;
		qp = fabric.nic->find_qp(resp.req_lid, resp.req_qpn);
		if (qp)
			nic_req_answer(qp, resp.epoch, resp.psn, resp.ack,
				       f + sizeof(resp), resp.len);
		c->roff += total;
		n++;
	}
	return eof ? -1 : n;
}

/*
 * Only a silent peer (stopped, hung) is left alone for FAB_DEAD_MS: one
 * that closed its end has exited, and the next process to take its slot
 * (a server's next forked child, say) must be reachable at once. The
 * answers it sent before it closed are read first: they stand.
 */
static void peer_drop(int slot)
{
	struct fabric_conn *c = &fabric.out[slot];

	if (c->stuck_since && fabric_clock() - c->stuck_since > FAB_WAIT_MS)
		fabric.dead_until[slot] = fabric_clock() + FAB_DEAD_MS;
	answer_conn(c);
	fabric_conn_close(c);
	fabric_direct_forget(slot);
	/* an HCA would not know: what is left waits for the ACK timer */
	fabric.nic->peer_lost(slot);
}

/* listening fds, then the connections peers opened, then ours */
static int fds_and_slots(struct pollfd *fds, int *slots, int max)
{
	int n = 0, i;

	if (fabric.listen_fd < 0 || max < FAB_NLISTEN)
		return 0;
	fds[n].fd = fabric.listen_fd;
	fds[n].events = POLLIN;
	slots[n++] = -1;
	/* poll() skips a negative fd: one host, no TCP */
	fds[n].fd = fabric.tcp_fd;
	fds[n].events = POLLIN;
	slots[n++] = -1;
	for (i = 0; i < fabric.nin && n < max; i++) {
		fds[n].fd = fabric.in[i].fd;
		fds[n].events = POLLIN;
		slots[n++] = -1;
	}
	for (i = 0; i < FABRIC_MAX_SLOTS && n < max; i++) {
		if (fabric.out[i].fd < 0)
			continue;
		fds[n].fd = fabric.out[i].fd;
		fds[n].events = POLLIN;
		slots[n++] = i;
	}
	return n;
}

/* an idle NIC also wakes when a peer makes room for what is buffered */
static void want_room(struct pollfd *fds, const int *slots, int n)
{
	int i;

	for (i = FAB_NLISTEN; i < n; i++) {
		const struct fabric_conn *c =
			slots[i] < 0 ? &fabric.in[i - FAB_NLISTEN] :
				       &fabric.out[slots[i]];

		if (fabric_conn_sendable(c))
			fds[i].events |= POLLOUT;
	}
}

int fabric_fds(struct pollfd *fds, int max, bool answers)
{
	int slots[FABRIC_MAX_FDS];
	int n, i;

	if (max > FABRIC_MAX_FDS)
		max = FABRIC_MAX_FDS;
	n = fds_and_slots(fds, slots, max);
	want_room(fds, slots, n);
	/*
	 * Our connections bring only answers (and, over TCP, the callee's
	 * hello, which holds our requests back until it comes): without
	 * one awaited, wait for room alone.
	 */
	for (i = FAB_NLISTEN; !answers && i < n; i++)
		if (slots[i] >= 0 &&
		    (!fabric.out[slots[i]].tcp || fabric.out[slots[i]].greeted))
			fds[i].events &= ~POLLIN;
	return n;
}

/* answers we owe a peer that has not taken them yet */
static bool answers_waiting(void)
{
	int i;

	for (i = 0; i < fabric.nin; i++)
		if (fabric.in[i].wlen)
			return true;
	return false;
}

/*
 * Room in in[] for a connection just accepted. When it is full, the
 * connection that has waited longest without proving a slot (no hello,
 * or a wrong one still unread) makes room: idle connections, which need
 * no secret to open, would otherwise lock every new peer out.
 */
static bool in_room(void)
{
	int i, old = -1;

	if (fabric.nin < FABRIC_MAX_SLOTS)
		return true;
	for (i = 0; i < fabric.nin; i++)
		if (fabric.in[i].slot < 0 &&
		    (old < 0 || fabric.in[i].since < fabric.in[old].since))
			old = i;
	if (old < 0)
		return false;
	drop_in(old);
	return true;
}

/* a peer's connection, just accepted, into in[] */
static void in_add(int fd, bool tcp)
{
	struct fabric_conn *c = &fabric.in[fabric.nin++];

	if (tcp)
		fabric_conn_init_tcp(c, fd);
	else
		fabric_conn_init(c, fd);
	c->since = fabric_now_ms();
}

unsigned int fabric_serve(void)
{
	struct pollfd fds[FABRIC_MAX_FDS];
	int slots[FABRIC_MAX_FDS];
	unsigned int served = 0;
	int i, n, r, fd, nin;

	if (fabric.listen_fd < 0)
		return 0;
	/* one syscall tells whether anyone connected, asked or answered */
	n = fds_and_slots(fds, slots, FABRIC_MAX_FDS);
	r = poll(fds, n, 0);
	if (r <= 0 && !answers_waiting())
		return 0;
	for (i = 0; r < 0 && i < n; i++)
		fds[i].revents = 0;
	nin = fabric.nin;
	/* answers first: they free our window */
	for (i = FAB_NLISTEN + nin; i < n; i++) {
		if (!fds[i].revents)
			continue;
		r = answer_conn(&fabric.out[slots[i]]);
		if (r < 0)
			peer_drop(slots[i]);
		else
			served += r;
	}
	/* fds[FAB_NLISTEN + i] is in[i]; accepted ones come next round */
	for (i = nin - 1; i >= 0; i--) {
		if (!fds[FAB_NLISTEN + i].revents && !fabric.in[i].wlen)
			continue;
		r = serve_conn(&fabric.in[i]);
		if (r < 0)
			drop_in(i);
		else
			served += r;
	}
	if (fds[0].revents)
		while ((fd = accept4(fabric.listen_fd, NULL, NULL,
				     SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
			if (!fabric_same_user(fd) || !in_room()) {
				emu_libc.close(fd);
				continue;
			}
			in_add(fd, false);
		}
	/* the hello tells whom it speaks for: no credentials to ask */
	if (fds[1].revents)
		while ((fd = fabric_tcp_accept(fabric.tcp_fd)) >= 0) {
			if (!in_room()) {
				emu_libc.close(fd);
				continue;
			}
			in_add(fd, true);
		}
	return served;
}

/* what a peer does not take now stays dirty for the next pass */
void fabric_flush(void)
{
	int i, n = 0;

	for (i = 0; i < fabric.ndirty; i++) {
		int slot = fabric.dirty[i];
		struct fabric_conn *c = &fabric.out[slot];

		if (c->fd >= 0 && fabric_conn_flush(c))
			peer_drop(slot);
		if (c->fd >= 0 && c->wlen)
			fabric.dirty[n++] = slot;
		else
			fabric.is_dirty[slot] = false;
	}
	fabric.ndirty = n;
}

/*
 * Our new connection to a process of another host: on its way (the
 * connect ends in a later pass), our hello first in its output.
 */
static struct fabric_conn *tcp_conn(int slot)
{
	struct fabric_conn *c = &fabric.out[slot];
	int fd;

	fd = fabric_tcp_connect(slot);
	if (fd < 0)
		return NULL;
	fabric_conn_init_tcp(c, fd);
	c->slot = slot;
	c->hold_at = sizeof(struct fabric_tcp_hello);
	if (fabric_tcp_hello_queue(c, slot)) {
		fabric_conn_close(c);
		return NULL;
	}
	return c;
}

/*
 * Our connection to a peer, or NULL with *busy when its backlog is full
 * (try again later) or clear when nobody answers there (or it timed out
 * a moment ago).
 */
static struct fabric_conn *peer_conn(int slot, bool *busy)
{
	struct fabric_conn *c = &fabric.out[slot];
	struct sockaddr_un sa;
	socklen_t len;
	int fd;

	*busy = false;
	if (c->fd >= 0)
		return c;
	if (fabric_clock() < fabric.dead_until[slot])
		return NULL;
	if (fabric_tcp_remote(slot))
		return tcp_conn(slot);
	fd = emu_libc.socket(AF_UNIX,
			     SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return NULL;
	len = fabric_addr(&sa, slot);
	if (connect(fd, (struct sockaddr *)&sa, len)) {
		*busy = errno == EAGAIN;
		emu_libc.close(fd);
		return NULL;
	}
	if (!fabric_same_user(fd) || fabric_send_hello(fd)) {
		emu_libc.close(fd);
		return NULL;
	}
	fabric_conn_init(c, fd);
	c->slot = slot;
	return c;
}

pid_t fabric_peer_pid(int slot)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct fabric_conn *c;
	bool busy;

	c = peer_conn(slot, &busy);
	if (!c || c->tcp ||
	    getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return -1;
	return cred.pid;
}

static enum nic_ack remote_xmit(int slot, const struct nic_pkt *pkt)
{
	const struct nic_opcode *op = nic_opcode(pkt->opcode);
	bool payload = op->flags & NIC_OPF_PAYLOAD;
	struct fabric_req req = {
		.type = FAB_REQ,
		.len = pkt->len,
		.psn = pkt->psn,
		.epoch = pkt->epoch,
		.dest_qpn = pkt->dest_qpn,
		.src_qpn = pkt->src_qpn,
		.dlid = pkt->dlid,
		.slid = pkt->slid,
		.opcode = pkt->opcode,
		.se = pkt->se,
		.qp_type = pkt->qp_type,
		.qkey = pkt->qkey,
		.raddr = pkt->raddr,
		.rkey = pkt->rkey,
		.imm = pkt->imm,
		.swap_add = pkt->swap_add,
		.compare = pkt->compare,
	};
	size_t size = sizeof(req) + (payload ? pkt->len : 0);
	struct fabric_conn *c;
	uint8_t *p;
	uint32_t i;
	bool busy;

	/* a peer nobody answers for is a wire that loses the packet */
	c = peer_conn(slot, &busy);
	if (!c)
		return busy ? NIC_STALL : NIC_LOST;
	/* a peer that takes nothing holds the requester, not the NIC */
	if (c->wlen && c->wlen + size > FAB_OUT_MAX) {
		if (fabric_conn_flush(c)) {
			peer_drop(slot);
			return NIC_LOST;
		}
		if (c->wlen && c->wlen + size > FAB_OUT_MAX)
			return NIC_STALL;
	}
	if (!fabric.is_dirty[slot]) {
		fabric.is_dirty[slot] = true;
		fabric.dirty[fabric.ndirty++] = slot;
	}
	p = fabric_conn_reserve(c, size);
	if (!p)
		return NIC_NAK_NOQP;
	memcpy(p, &req, sizeof(req));
	p += sizeof(req);
	for (i = 0; payload && i < pkt->nsrc; i++) {
		memcpy(p, pkt->src[i].base, pkt->src[i].len);
		p += pkt->src[i].len;
	}
	/* the answer arrives through fabric_serve() */
	if (c->wlen >= FAB_FLUSH_AT && fabric_conn_flush(c)) {
		peer_drop(slot);
		return NIC_LOST;
	}
	return nic_transport(pkt->qp_type)->reliable ? NIC_PENDING : NIC_ACK;
}

void fabric_atfork_child(void)
{
	pthread_once_t once = PTHREAD_ONCE_INIT;
	int i;

	if (fabric.listen_fd >= 0)
		emu_libc.close(fabric.listen_fd);
	fabric.listen_fd = -1;
	if (fabric.tcp_fd >= 0)
		emu_libc.close(fabric.tcp_fd);
	fabric.tcp_fd = -1;
	fabric.slot = -1;
	for (i = 0; i < fabric.nin; i++)
		fabric_conn_close(&fabric.in[i]);
	fabric.nin = 0;
	for (i = 0; i < FABRIC_MAX_SLOTS; i++)
		if (fabric.out[i].fd >= 0)
			fabric_conn_close(&fabric.out[i]);
	fabric.ndirty = 0;
	memset(fabric.is_dirty, 0, sizeof(fabric.is_dirty));
	memset(fabric.dead_until, 0, sizeof(fabric.dead_until));
	fabric.once = once; /* the child binds a slot of its own */
	fabric.gen++;
	fabric_direct_atfork_child();
}

void fabric_forget(void)
{
	fabric.gen++;
}

/*
 * A datagram names its destination: no cached peer. Its fate is counted
 * where it arrives; one that cannot leave is counted here.
 */
static enum nic_ack datagram_xmit(struct nic_dev *dev, int slot,
				  const struct nic_pkt *pkt)
{
	struct nic_qp *peer;
	enum nic_ack ack;

	if (fabric.slot < 0 || slot == fabric.slot) {
		fabric.nic->ud_sent(pkt);
		peer = fabric.nic->find_qp(pkt->dlid, pkt->dest_qpn);
		if (peer)
			return nic_respond(peer, pkt);
		nic_ud_fate(fabric.nic->find_dev(pkt->dlid), NULL, pkt,
			    NIC_UD_NO_QP);
		return NIC_DROPPED;
	}
	if (slot < 0 || slot >= FABRIC_MAX_SLOTS)
		ack = NIC_NAK_NOQP;
	else
		ack = remote_xmit(slot, pkt);
	/* a full link did not take it: it goes again later */
	if (ack == NIC_STALL)
		return ack;
	fabric.nic->ud_sent(pkt);
	if (ack != NIC_ACK)
		nic_ud_fate(dev, NULL, pkt, NIC_UD_UNREACHABLE);
	return ack;
}

enum nic_ack fabric_xmit(struct nic_dev *dev, struct nic_qp *qp,
			 const struct nic_pkt *pkt)
{
	int slot = fabric_qpn_slot(pkt->dest_qpn);
	struct nic_qp *peer;

	if (!nic_qp_transport(qp)->connected)
		return datagram_xmit(dev, slot, pkt);
	if (fabric.slot < 0 || slot == fabric.slot) {
		if (qp->peer && qp->peer_gen == fabric.gen) {
			peer = qp->peer;
		} else {
			peer = fabric.nic->find_qp(qp->dlid, qp->dest_qpn);
			if (!peer || peer->dest_qpn != qp->qpn)
				return NIC_NAK_RETRY;
			qp->peer = peer;
			qp->peer_gen = fabric.gen;
		}
		return fabric_direct_respond(peer, pkt);
	}
	if (slot < 0 || slot >= FABRIC_MAX_SLOTS)
		return NIC_NAK_NOQP;
	if (fabric_direct_xmit(slot, qp, pkt))
		return NIC_ACK;
	return remote_xmit(slot, pkt);
}
