/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the fabric's files share (fabric.c: slots, routing, serving;
 * conn.c: buffered stream connections and the fabric's clock; hello.c:
 * which slot a connection speaks for). fabric.h is the interface.
 */
#ifndef MLX5EMU_FABRIC_LOC_H
#define MLX5EMU_FABRIC_LOC_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

/* verbs.h (via fabric.h) first: it defines RDMA_UAPI_PTR the uapi reuses */
#include "fabric.h"
#include "tcp.h"
#include "wire.h"
#include "base/emu_libc.h"
#include "base/emu_param.h"

#define FAB_WAIT_MS 10000 /* a silent peer is a dead peer */
#define FAB_DEAD_MS 10000 /* and is not called again for that long */
#define FAB_FLUSH_AT (256 * 1024) /* write out a pass's requests early */
#define FAB_OUT_MAX (4 * 1024 * 1024) /* output a peer may leave unread */
#define FAB_CLOCK_STEP_MS 1000 /* the most a pass advances the clock */

/* the longest name (wire.h) of the longest fabric name fits, unclipped */
_Static_assert(sizeof("mlx5emu.4294967295.64..d255.uar.4294967295") - 1 +
			       EMU_FABRIC_NAME_MAX <=
		       sizeof(((struct sockaddr_un *)0)->sun_path) - 1,
	       "fabric names too long for an abstract socket");
#define FAB_READ_CHUNK (256 * 1024)

/* one stream socket with its buffers: [roff, rlen) is unparsed input */
struct fabric_conn {
	int fd;
	uint8_t *rbuf, *wbuf;
	size_t roff, rlen, rcap, wlen, wcap;
	uint64_t stuck_since; /* fabric_clock() when output stopped moving */
	int slot; /* a peer's connection: the slot it proved, or -1 */
	uint64_t since; /* a peer's: fabric_now_ms() when it was accepted */
	bool tcp; /* to or from another host (tcp.c) */
	bool greeted; /* over TCP: the other end's hello was checked */
	size_t hold_at; /* ours over TCP: what may leave before it was */
};

/* the listening sockets come first in a poll set: unix, then TCP */
#define FAB_NLISTEN 2

struct fabric_state {
	const struct fabric_nic_ops *nic; /* fabric_init()'s */
	pthread_once_t once;
	unsigned int gen; /* bumped when a QP goes away: drops peer caches */
	int slot; /* -1: none could be bound */
	int listen_fd;
	int tcp_fd; /* listening for other hosts, or -1 */
	struct fabric_conn out[FABRIC_MAX_SLOTS]; /* ours, by peer slot */
	struct fabric_conn in[FABRIC_MAX_SLOTS]; /* peers' */
	int nin;
	int dirty[FABRIC_MAX_SLOTS]; /* out slots with unsent requests */
	bool is_dirty[FABRIC_MAX_SLOTS];
	int ndirty;
	uint64_t dead_until[FABRIC_MAX_SLOTS]; /* fabric_clock() */
	uint64_t clock, clock_wall;
};

extern struct fabric_state fabric;

/* fabric.c */
socklen_t fabric_addr(struct sockaddr_un *sa, int slot);
/* the pid behind a slot of this host (connecting to it), or -1 */
pid_t fabric_peer_pid(int slot);

/* direct.c */
/* executed in the responder's memory; false: send it the NIC's way */
bool fabric_direct_xmit(int slot, struct nic_qp *qp, const struct nic_pkt *pkt);
/* a request from a peer process, as the responder's NIC serves it */
enum nic_ack fabric_direct_respond(struct nic_qp *qp,
				   const struct nic_pkt *pkt);
void fabric_direct_init(void);
void fabric_direct_forget(int slot);
void fabric_direct_atfork_child(void);

/* conn.c */
int fabric_grow(uint8_t **buf, size_t *cap, size_t need);
void fabric_conn_init(struct fabric_conn *c, int fd);
void fabric_conn_init_tcp(struct fabric_conn *c, int fd);
void fabric_conn_close(struct fabric_conn *c);
uint8_t *fabric_conn_reserve(struct fabric_conn *c, size_t n);
uint64_t fabric_now_ms(void);
uint64_t fabric_clock(void);
size_t fabric_conn_sendable(const struct fabric_conn *c);
int fabric_conn_flush(struct fabric_conn *c);
bool fabric_conn_backlog(const struct fabric_conn *c);
int fabric_conn_fill(struct fabric_conn *c);
uint8_t *fabric_conn_peek(struct fabric_conn *c, size_t hdr);
bool fabric_conn_has(struct fabric_conn *c, size_t total);

/* hello.c */
bool fabric_same_user(int fd);
int fabric_send_hello(int fd);
bool fabric_holds_slot(int fd, uint32_t slot);
int fabric_recv_hello(struct fabric_conn *c);
int fabric_tcp_hello_read(struct fabric_conn *c, int from);
int fabric_tcp_hello_queue(struct fabric_conn *c, int slot);
int fabric_tcp_hello_in(struct fabric_conn *c);

#endif
