// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Links between QPs: a direct call when both ends live in this process, a
 * request/response exchange over unix stream sockets otherwise.
 *
 * Every process of a fabric binds "\0mlx5emu.<uid>.<fabric>.<slot>" in the
 * abstract namespace for the first free slot: the kernel frees the name
 * when the process dies, so a crash leaves no file, segment or stale slot
 * behind, and the slot is the process's QPN prefix. Connections in both
 * directions are accepted only from the same uid (SO_PEERCRED).
 *
 * Requests are pipelined: the requester keeps a window of them in flight
 * (nic.h: NIC_WINDOW, NIC_WINDOW_BYTES, below the socket buffers) and the
 * answers, in order on the same connection, are picked up by
 * fabric_serve() like the peers' requests. A single message larger than a
 * socket buffer sent by both ends at once can still stall both writers
 * until FAB_WAIT_MS.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* verbs.h (via fabric.h) first: it defines RDMA_UAPI_PTR the uapi reuses */
#include "fabric.h"
#include "../mlx5emu.h"

#define FAB_REQ 0x52514d45 /* "EMQR" */
#define FAB_RESP 0x53524d45
#define FAB_WAIT_MS 10000 /* a silent peer is a dead peer */

struct fab_req {
	uint32_t type;
	uint32_t len;
	uint32_t psn;
	uint32_t epoch;
	uint32_t dest_qpn;
	uint32_t src_qpn;
	uint16_t dlid;
	uint16_t slid;
	uint8_t opcode;
	uint8_t se;
	uint8_t pad[2];
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;
};

struct fab_resp {
	uint32_t type;
	uint32_t ack;
	uint32_t len;
	uint32_t psn;
	uint32_t epoch;
	uint32_t req_qpn; /* whose request this answers */
	uint16_t req_lid;
	uint16_t pad;
};

static struct {
	pthread_once_t once;
	unsigned int gen; /* bumped when a QP goes away: drops peer caches */
	int slot; /* -1: none could be bound */
	int listen_fd;
	int out[FABRIC_MAX_SLOTS]; /* connections we opened, by peer slot */
	int in[FABRIC_MAX_SLOTS]; /* connections peers opened */
	int nin;
	uint8_t *buf, *rbuf;
	size_t buf_len, rbuf_len;
} fab = {
	.once = PTHREAD_ONCE_INIT,
	.slot = -1,
	.listen_fd = -1,
};

static socklen_t fab_addr(struct sockaddr_un *sa, int slot)
{
	const char *name = getenv("MLX5EMU_FABRIC");
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
		     "mlx5emu.%u.%s.%d", (unsigned int)getuid(),
		     name && *name ? name : "default", slot);
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

static void fab_bind_slot(void)
{
	struct sockaddr_un sa;
	int fd, s;

	for (s = 0; s < FABRIC_MAX_SLOTS; s++) {
		fab.out[s] = -1;
		fab.in[s] = -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	for (s = 0; s < FABRIC_MAX_SLOTS; s++) {
		socklen_t len = fab_addr(&sa, s);

		if (!bind(fd, (struct sockaddr *)&sa, len))
			break;
	}
	if (s == FABRIC_MAX_SLOTS || listen(fd, 64)) {
		close(fd);
		return;
	}
	fab.listen_fd = fd;
	fab.slot = s;
}

uint32_t emu_fabric_qpn_base(void)
{
	pthread_once(&fab.once, fab_bind_slot);
	/* without a slot the QPNs stay process-local */
	return EMU_FIRST_QPN +
	       (fab.slot < 0 ? 0 : (uint32_t)(fab.slot + 1) << 16);
}

int fabric_init(void)
{
	emu_fabric_qpn_base();
	return 0;
}

static bool same_user(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) &&
	       cred.uid == getuid();
}

static int full_io(int fd, void *buf, size_t len, bool wr)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = wr ? send(fd, p, len, MSG_NOSIGNAL) :
				 recv(fd, p, len, MSG_WAITALL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { fd, wr ? POLLOUT : POLLIN, 0 };

			if (poll(&pfd, 1, FAB_WAIT_MS) <= 0)
				return -1;
			continue;
		}
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static uint8_t *grow(uint8_t **buf, size_t *cur, size_t len)
{
	if (len > *cur) {
		uint8_t *n = realloc(*buf, len);

		if (!n)
			return NULL;
		*buf = n;
		*cur = len;
	}
	return *buf;
}

static void drop_in(int i)
{
	close(fab.in[i]);
	fab.in[i] = fab.in[--fab.nin];
}

/* Answer one request from a peer process; -1 closes the connection. */
static int serve_one(int fd)
{
	struct fab_resp resp = { .type = FAB_RESP };
	struct fab_req req;

	struct nic_iov src, dst;
	struct nic_pkt pkt = {};
	const struct nic_opcode *op;
	struct nic_qp *qp;

	if (full_io(fd, &req, sizeof(req), false) || req.type != FAB_REQ ||
	    req.len > (1u << 31))
		return -1;
	op = nic_opcode(req.opcode);
	if (op && (op->flags & NIC_OPF_PAYLOAD) && req.len) {
		if (!grow(&fab.buf, &fab.buf_len, req.len) ||
		    full_io(fd, fab.buf, req.len, false))
			return -1;
	}
	pkt.psn = req.psn;
	pkt.epoch = req.epoch;
	pkt.opcode = req.opcode;
	pkt.se = req.se;
	pkt.src_qpn = req.src_qpn;
	pkt.slid = req.slid;
	pkt.raddr = req.raddr;
	pkt.rkey = req.rkey;
	pkt.imm = req.imm;
	pkt.len = req.len;
	src.base = fab.buf;
	src.len = req.len;
	pkt.src = &src;
	pkt.nsrc = 1;
	if (op && (op->flags & NIC_OPF_READ)) {
		if (!grow(&fab.rbuf, &fab.rbuf_len, req.len ? req.len : 1))
			return -1;
		dst.base = fab.rbuf;
		dst.len = req.len;
		pkt.dst = &dst;
		pkt.ndst = 1;
	}

	resp.psn = req.psn;
	resp.epoch = req.epoch;
	resp.req_qpn = req.src_qpn;
	resp.req_lid = req.slid;
	qp = emu_nic_find_qp(req.dlid, req.dest_qpn);
	/* RC: only the connected peer may talk to a QP */
	if (!qp || qp->dest_qpn != req.src_qpn)
		resp.ack = NIC_NAK_NOQP;
	else
		resp.ack = nic_respond(qp, &pkt);
	if (resp.ack == NIC_ACK && op && (op->flags & NIC_OPF_READ))
		resp.len = req.len;
	if (full_io(fd, &resp, sizeof(resp), true) ||
	    (resp.len && full_io(fd, fab.rbuf, resp.len, true)))
		return -1;
	return 0;
}

static int fds_and_slots(struct pollfd *fds, int *slots, int max);

static void peer_drop(int slot)
{
	close(fab.out[slot]);
	fab.out[slot] = -1;
	/* the kernel would time out: everything in flight fails */
	emu_nic_peer_lost(slot);
}

/* One answer to a request of ours; -1 if the connection is broken. */
static int answer_one(int fd)
{
	struct fab_resp resp;
	struct nic_qp *qp;

	if (full_io(fd, &resp, sizeof(resp), false) || resp.type != FAB_RESP ||
	    resp.len > (1u << 31))
		return -1;
	if (resp.len && (!grow(&fab.rbuf, &fab.rbuf_len, resp.len) ||
			 full_io(fd, fab.rbuf, resp.len, false)))
		return -1;
	qp = emu_nic_find_qp(resp.req_lid, resp.req_qpn);
	if (qp)
		nic_req_answer(qp, resp.epoch, resp.psn, resp.ack, fab.rbuf,
			       resp.len);
	return 0;
}

unsigned int fabric_serve(void)
{
	struct pollfd fds[2 * FABRIC_MAX_SLOTS + 1];
	int slots[2 * FABRIC_MAX_SLOTS + 1];
	unsigned int served = 0;
	int i, n, fd, nin;

	if (fab.listen_fd < 0)
		return 0;
	/* one syscall tells whether anyone connected, asked or answered */
	n = fds_and_slots(fds, slots, 2 * FABRIC_MAX_SLOTS + 1);
	if (poll(fds, n, 0) <= 0)
		return 0;
	nin = fab.nin;
	/* answers first: they free our window */
	for (i = 1 + nin; i < n; i++) {
		struct pollfd pfd = fds[i];

		if (!pfd.revents)
			continue;
		do {
			if (((pfd.revents & (POLLHUP | POLLERR)) &&
			     !(pfd.revents & POLLIN)) ||
			    answer_one(pfd.fd)) {
				peer_drop(slots[i]);
				break;
			}
			served++;
			pfd.revents = 0;
		} while (poll(&pfd, 1, 0) > 0);
	}
	/* fds[i + 1] is in[i]; accepted ones come next round */
	for (i = nin - 1; i >= 0; i--) {
		struct pollfd pfd = fds[i + 1];

		if (!pfd.revents)
			continue;
		do {
			if (((pfd.revents & (POLLHUP | POLLERR)) &&
			     !(pfd.revents & POLLIN)) ||
			    serve_one(fab.in[i])) {
				drop_in(i);
				break;
			}
			served++;
			pfd.revents = 0;
		} while (poll(&pfd, 1, 0) > 0);
	}
	if (fds[0].revents)
		while ((fd = accept4(fab.listen_fd, NULL, NULL,
				     SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
			if (fab.nin == FABRIC_MAX_SLOTS || !same_user(fd)) {
				close(fd);
				continue;
			}
			fab.in[fab.nin++] = fd;
		}
	return served;
}

/* listen fd, then the connections peers opened, then ours */
static int fds_and_slots(struct pollfd *fds, int *slots, int max)
{
	int n = 0, i;

	if (fab.listen_fd < 0 || max < 1)
		return 0;
	fds[n].fd = fab.listen_fd;
	fds[n].events = POLLIN;
	slots[n++] = -1;
	for (i = 0; i < fab.nin && n < max; i++) {
		fds[n].fd = fab.in[i];
		fds[n].events = POLLIN;
		slots[n++] = -1;
	}
	for (i = 0; i < FABRIC_MAX_SLOTS && n < max; i++) {
		if (fab.out[i] < 0)
			continue;
		fds[n].fd = fab.out[i];
		fds[n].events = POLLIN;
		slots[n++] = i;
	}
	return n;
}

int fabric_fds(struct pollfd *fds, int max)
{
	int slots[2 * FABRIC_MAX_SLOTS + 1];

	if (max > 2 * FABRIC_MAX_SLOTS + 1)
		max = 2 * FABRIC_MAX_SLOTS + 1;
	return fds_and_slots(fds, slots, max);
}

static int peer_conn(int slot)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd;

	if (fab.out[slot] >= 0)
		return fab.out[slot];
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	len = fab_addr(&sa, slot);
	if (connect(fd, (struct sockaddr *)&sa, len) || !same_user(fd)) {
		close(fd);
		return -1;
	}
	fab.out[slot] = fd;
	return fd;
}

static enum nic_ack remote_xmit(int slot, struct nic_qp *qp,
				const struct nic_pkt *pkt)
{
	const struct nic_opcode *op = nic_opcode(pkt->opcode);
	struct fab_req req = {
		.type = FAB_REQ,
		.len = pkt->len,
		.psn = pkt->psn,
		.epoch = pkt->epoch,
		.dest_qpn = qp->dest_qpn,
		.src_qpn = pkt->src_qpn,
		.dlid = qp->dlid,
		.slid = pkt->slid,
		.opcode = pkt->opcode,
		.se = pkt->se,
		.raddr = pkt->raddr,
		.rkey = pkt->rkey,
		.imm = pkt->imm,
	};
	int fd = peer_conn(slot);
	uint32_t i;

	if (fd < 0)
		return NIC_NAK_NOQP;
	if (full_io(fd, &req, sizeof(req), true))
		goto dead;
	if (op->flags & NIC_OPF_PAYLOAD)
		for (i = 0; i < pkt->nsrc; i++)
			if (pkt->src[i].len && full_io(fd, pkt->src[i].base,
						       pkt->src[i].len, true))
				goto dead;
	/* the answer arrives through fabric_serve() */
	return NIC_PENDING;
dead:
	peer_drop(slot);
	return NIC_NAK_NOQP;
}

void fabric_forget(void)
{
	fab.gen++;
}

enum nic_ack fabric_xmit(struct nic_dev *dev, struct nic_qp *qp,
			 const struct nic_pkt *pkt)
{
	int slot = (int)(qp->dest_qpn >> 16) - 1;
	struct nic_qp *peer;

	(void)dev;
	if (fab.slot < 0 || slot == fab.slot) {
		if (qp->peer && qp->peer_gen == fab.gen) {
			peer = qp->peer;
		} else {
			peer = emu_nic_find_qp(qp->dlid, qp->dest_qpn);
			if (!peer || peer->dest_qpn != qp->qpn)
				return NIC_NAK_NOQP;
			qp->peer = peer;
			qp->peer_gen = fab.gen;
		}
		return nic_respond(peer, pkt);
	}
	if (slot < 0 || slot >= FABRIC_MAX_SLOTS)
		return NIC_NAK_NOQP;
	return remote_xmit(slot, qp, pkt);
}
