/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The out-of-band exchange over TCP. Every message is a 16-byte header
 * (all fields big endian)
 *
 *   magic "IBWM" | u16 version | u16 type | u32 payload length | u32 0
 *
 * and a payload of exactly the length its type and counts give. A peer's
 * message is rejected (PERFTEST_EXIT_PROTOCOL) unless every field is valid;
 * another version ends the run with PERFTEST_EXIT_VERSION. Reads wait at most
 * --peer-timeout (PERFTEST_EXIT_TIMEOUT); a close between messages is
 * PERFTEST_EXIT_DISCONNECT, inside one a truncated message (PERFTEST_EXIT_PROTOCOL).
 *
 *   client                               server
 *   HELLO  ------------------------------>
 *          <------------------------------ HELLO
 *   per row:
 *   SETUP (threads slots size nqps) ----->  creates the target
 *          <------------------------------ TARGET (base rkey nqps addr[])
 *   CONNECT (addr[]) -------------------->  RTR
 *          <------------------------------ READY
 *   PROGRESS (every second while running)
 *   DONE (iters[threads]) --------------->  verifies
 *          <------------------------------ VERDICT (bad, message)
 *   (ABORT instead of CONNECT/DONE: the row failed on the client)
 *   BYE
 *   ERROR (code, message) either way, before giving up
 */
#ifndef WMT_OOB_H
#define WMT_OOB_H

#include <stddef.h>
#include <stdint.h>

#include "rc_connect.h"

#define WMT_OOB_VERSION 1
#define WMT_OOB_MAX_PAYLOAD (1u << 20)
#define WMT_OOB_MSG_LEN 160
/* seconds a client retries connecting unless --connect-timeout says */
#define WMT_CLIENT_CONNECT_TIMEOUT 10

enum wmt_oob_type {
	OOB_HELLO = 1,
	OOB_SETUP,
	OOB_TARGET,
	OOB_CONNECT,
	OOB_READY,
	OOB_PROGRESS,
	OOB_DONE,
	OOB_VERDICT,
	OOB_ABORT,
	OOB_BYE,
	OOB_ERROR,
	OOB_TYPE_MAX = OOB_ERROR,
};

/* a received message: payload is malloc'ed (NULL when empty) */
struct wmt_oob_msg {
	enum wmt_oob_type type;
	uint32_t len;
	uint8_t *payload;
};

/* a connection and what went wrong on it */
struct wmt_oob {
	int fd;
	unsigned int timeout_ms;
	const char *peer; /* for messages */
	char err[256];
};

/* Returns 0 or an enum perftest_exit code, with oob->err set. */
int wmt_oob_connect(struct wmt_oob *oob, const char *host, unsigned int port,
		    unsigned int timeout_s);
int wmt_oob_listen(unsigned int port, int *lfd, char *err, size_t errlen);
/* waits timeout_s for a client (0: for ever) */
int wmt_oob_accept(struct wmt_oob *oob, int lfd, unsigned int timeout_s);
void wmt_oob_close(struct wmt_oob *oob);

int wmt_oob_send(struct wmt_oob *oob, enum wmt_oob_type type,
		 const void *payload, uint32_t len);
/* receives the next message, which must be one of the types in mask */
int wmt_oob_recv(struct wmt_oob *oob, unsigned int mask,
		 struct wmt_oob_msg *msg);
/* 1 if a message or a close is waiting, 0 if not */
int wmt_oob_readable(struct wmt_oob *oob);
void wmt_oob_msg_free(struct wmt_oob_msg *msg);
/* tells the peer why we give up (best effort) */
void wmt_oob_send_error(struct wmt_oob *oob, int code, const char *msg);

const char *wmt_oob_type_name(enum wmt_oob_type type);

/* HELLO: the tool's name and the sender's role */
#define WMT_TOOL_LEN 16
#define WMT_HELLO_LEN (WMT_TOOL_LEN + 4)
#define ROLE_WIRE_CLIENT 1
#define ROLE_WIRE_SERVER 2
int wmt_hello_build(uint8_t *p, size_t len, unsigned int role);
/* nonzero unless m is a valid HELLO from role */
int wmt_hello_check(const struct wmt_oob_msg *m, unsigned int role);

#define OOB_BIT(t) (1u << (t))

/* big-endian payload building and checked parsing */
struct wmt_buf {
	uint8_t *p;
	size_t len, pos;
	int bad; /* read past the end */
};

void wmt_put32(struct wmt_buf *b, uint32_t v);
void wmt_put64(struct wmt_buf *b, uint64_t v);
void wmt_put_bytes(struct wmt_buf *b, const void *v, size_t n);
uint32_t wmt_get32(struct wmt_buf *b);
uint64_t wmt_get64(struct wmt_buf *b);
void wmt_get_bytes(struct wmt_buf *b, void *v, size_t n);

#define WMT_ADDR_WIRE 28
void wmt_put_addr(struct wmt_buf *b, const struct rc_addr *a);
/* 0, or -1 when a field is out of range */
int wmt_get_addr(struct wmt_buf *b, struct rc_addr *a);

#endif
