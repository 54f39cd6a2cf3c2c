/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What travels between the processes of a fabric (fabric.c), and where:
 * the abstract socket names. Plain C, so a test can speak it too.
 *
 * A connection starts with a fabric_hello that carries, as SCM_RIGHTS,
 * the connecting process's own listening socket: holding the socket bound
 * to a slot's name proves the slot (a TCP connection, between hosts, opens
 * with a fabric_tcp_hello each way instead). Then requests go one way and
 * answers (RC only) the other, each a header and its payload.
 */
#ifndef MLX5EMU_FABRIC_WIRE_H
#define MLX5EMU_FABRIC_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#define FAB_HELLO 0x4c484d45 /* "EMHL" */
#define FAB_TCP_HELLO 0x54484d45 /* "EMHT" */
#define FAB_REQ 0x52514d45 /* "EMQR" */
#define FAB_RESP 0x53524d45

struct fabric_hello {
	uint32_t type;
	uint32_t slot; /* the slot whose listening socket comes with it */
};

/*
 * Between hosts (tcp.c) there is no socket to pass: both ends open with
 * this, the caller first, and each checks the other's before it takes a
 * frame. Frames are in the hosts' byte order: hosts of one order only.
 */
#define FAB_TCP_TEXT 72 /* a fabric name or a secret, NUL-padded */

struct fabric_tcp_hello {
	uint32_t type;
	uint32_t from; /* the sender's slot */
	uint32_t to; /* the slot it means to reach */
	uint32_t pad;
	char fabric[FAB_TCP_TEXT]; /* the sender's fabric name */
	char secret[FAB_TCP_TEXT]; /* MLX5EMU_FABRIC_SECRET */
};

struct fabric_req {
	uint32_t type;
	uint32_t len;
	uint32_t psn;
	uint32_t epoch;
	uint32_t dest_qpn;
	uint32_t src_qpn; /* a QPN of the sender's slot */
	uint16_t dlid;
	uint16_t slid;
	uint8_t opcode;
	uint8_t se;
	uint8_t qp_type; /* UC and UD requests get no answer */
	uint8_t pad;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;
	uint32_t qkey;
	uint32_t pad2;
	uint64_t swap_add, compare;
};

struct fabric_resp {
	uint32_t type;
	uint32_t ack;
	uint32_t len;
	uint32_t psn;
	uint32_t epoch;
	uint32_t req_qpn; /* whose request this answers */
	uint16_t req_lid;
	uint16_t pad;
};

/* the slot a QPN was handed out by ((slot + 1) << 16 | n), or -1 */
static inline int fabric_qpn_slot(uint32_t qpn)
{
	return (int)(qpn >> 16) - 1;
}

/*
 * "\0mlx5emu.<uid>.<length of fabric>.<fabric>.<what>" in the abstract
 * namespace: what is "<slot>" for a process's listening socket,
 * "d<dev>.uar.<id>" for a claimed HW UAR. The length keeps the names of
 * two fabrics apart whatever their names hold ("a" and "a.d0.uar").
 * Returns the address length.
 */
static inline socklen_t fabric_sockaddr(struct sockaddr_un *sa,
					unsigned int uid, const char *fabric,
					const char *what)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
		     "mlx5emu.%u.%zu.%s.%s", uid, strlen(fabric), fabric, what);
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

#endif
