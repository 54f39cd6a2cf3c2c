/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fabric's transport between hosts (tcp.c): where a slot of another
 * host listens, and the hello that opens a connection there.
 */
#ifndef MLX5EMU_FABRIC_TCP_H
#define MLX5EMU_FABRIC_TCP_H

#include <stdbool.h>

struct fabric_tcp_hello;

/* --peers was given: the fabric spans hosts */
bool fabric_tcp_on(void);
/* slot belongs to another host (reached over TCP) */
bool fabric_tcp_remote(int slot);
/* the slots of this host: [*first, *first + *count) */
void fabric_tcp_slots(int *first, int *count);
/* a socket listening for slot (of this host), or -1 */
int fabric_tcp_listen(int slot);
/* a non-blocking socket on its way to slot (of another host), or -1 */
int fabric_tcp_connect(int slot);
int fabric_tcp_accept(int listen_fd);
/* ours, from slot from to slot to */
void fabric_tcp_hello(struct fabric_tcp_hello *h, int from, int to);
/*
 * h, read from fd, speaks for slot from (-1: any slot of another host)
 * to our slot to, from that slot's host, with our fabric and secret.
 */
bool fabric_tcp_hello_ok(int fd, const struct fabric_tcp_hello *h, int from,
			 int to);

#endif
