/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The hosts of a fabric that spans several (--peers, MLX5EMU_PEERS):
 * "ADDR:PORT,..." in the same order on every host, so that an entry's
 * position is that host's index everywhere. Shared by the launcher (the
 * LIDs and GUIDs of its sysfs tree) and the library (tcp.c).
 *
 * The fabric's slots are split between the hosts: host h owns slots
 * [h * k, (h + 1) * k), k = FABRIC_SLOTS / number of hosts, so a QPN
 * names its host as well as its process. The process in slot s listens
 * on its host's ADDR at PORT + s - h * k.
 */
#ifndef MLX5EMU_FABRIC_PEERS_H
#define MLX5EMU_FABRIC_PEERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define FABRIC_SLOTS 254 /* QPN prefixes 1..254 */
#define FABRIC_MAX_HOSTS 64 /* at least 3 slots each */
#define FABRIC_PEERS_MAX_LEN 4096 /* of the list */
#define FABRIC_SECRET_MAX 64

/* one type for every view of an address: no aliasing between them */
union fabric_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_storage ss;
};

struct fabric_peers {
	unsigned int n; /* 0: one host, no TCP */
	unsigned int self; /* this host's index */
	union fabric_addr addr[FABRIC_MAX_HOSTS];
	socklen_t addr_len[FABRIC_MAX_HOSTS];
};

/*
 * Parse list into p (p->self left 0): numeric addresses only, IPv6 in
 * brackets, so that no name lookup can hold up a verb. 0, or -1 with why
 * in err.
 */
int fabric_peers_parse(const char *list, struct fabric_peers *p, char *err,
		       size_t errlen);
/*
 * Which entry this host is: index when given (not NULL), else the one
 * entry whose address can be bound here. 0, or -1 with why in err.
 */
int fabric_peers_find_self(struct fabric_peers *p, const char *index, char *err,
			   size_t errlen);

static inline void fabric_addr_set_port(union fabric_addr *a, uint16_t port)
{
	if (a->sa.sa_family == AF_INET)
		a->in.sin_port = htons(port);
	else
		a->in6.sin6_port = htons(port);
}

static inline uint16_t fabric_addr_port(const union fabric_addr *a)
{
	return ntohs(a->sa.sa_family == AF_INET ? a->in.sin_port :
						  a->in6.sin6_port);
}

/* slots per host */
static inline unsigned int fabric_host_slots(const struct fabric_peers *p)
{
	return p->n ? FABRIC_SLOTS / p->n : FABRIC_SLOTS;
}

/* the host that owns slot, or p->n when none does */
static inline unsigned int fabric_slot_host(const struct fabric_peers *p,
					    unsigned int slot)
{
	unsigned int h = slot / fabric_host_slots(p);

	return h < p->n ? h : p->n;
}

#endif
