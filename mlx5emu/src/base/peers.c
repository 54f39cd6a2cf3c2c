// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The peer list of a fabric across hosts (peers.h): its syntax, and which
 * of its hosts this one is.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peers.h"

/* "ADDR:PORT" or "[ADDR6]:PORT" of len bytes at s, into entry i of p */
static int parse_entry(const char *s, size_t len, struct fabric_peers *p,
		       unsigned int i, char *err, size_t errlen)
{
	char host[64], port[8];
	bool v6 = s[0] == '[', ok;
	const char *colon;
	size_t hlen;
	char *end;
	unsigned long n;

	/* the last colon: IPv6 addresses hold some */
	for (colon = s + len; colon > s && colon[-1] != ':'; colon--)
		;
	colon--;
	if (colon < s || colon == s ||
	    s + len - colon - 1 >= (long)sizeof(port))
		goto bad;
	memcpy(port, colon + 1, s + len - colon - 1);
	port[s + len - colon - 1] = 0;
	hlen = colon - s;
	if (v6) {
		if (hlen < 3 || s[hlen - 1] != ']')
			goto bad;
		s++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		goto bad;
	memcpy(host, s, hlen);
	host[hlen] = 0;
	n = strtoul(port, &end, 10);
	/* the ports of the host's slots must all be valid ones */
	if (!*port || *end || !n || n + FABRIC_SLOTS > 65535)
		goto bad;
	memset(&p->addr[i], 0, sizeof(p->addr[i]));
	if (v6) {
		struct sockaddr_in6 *a = &p->addr[i].in6;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(n);
		ok = inet_pton(AF_INET6, host, &a->sin6_addr) == 1;
		p->addr_len[i] = sizeof(*a);
	} else {
		struct sockaddr_in *a = &p->addr[i].in;

		a->sin_family = AF_INET;
		a->sin_port = htons(n);
		ok = inet_pton(AF_INET, host, &a->sin_addr) == 1;
		p->addr_len[i] = sizeof(*a);
	}
	if (!ok)
		goto bad;
	return 0;
bad:
	snprintf(
		err, errlen,
		"peer %u: want ADDR:PORT (a numeric address, IPv6 in [], PORT 1..%u)",
		i, 65535 - FABRIC_SLOTS);
	return -1;
}

int fabric_peers_parse(const char *list, struct fabric_peers *p, char *err,
		       size_t errlen)
{
	const char *s = list;

	memset(p, 0, sizeof(*p));
	if (strlen(list) > FABRIC_PEERS_MAX_LEN) {
		snprintf(err, errlen, "longer than %u characters",
			 FABRIC_PEERS_MAX_LEN);
		return -1;
	}
	for (;;) {
		size_t len = strcspn(s, ",");

		if (p->n == FABRIC_MAX_HOSTS) {
			snprintf(err, errlen, "more than %u hosts",
				 FABRIC_MAX_HOSTS);
			return -1;
		}
		if (parse_entry(s, len, p, p->n, err, errlen))
			return -1;
		p->n++;
		if (!s[len])
			break;
		s += len + 1;
	}
	if (p->n < 2) {
		snprintf(err, errlen,
			 "two or more ADDR:PORT (one host needs no list)");
		return -1;
	}
	return 0;
}

static bool same_ip(const union fabric_addr *a, const struct sockaddr *b)
{
	if (a->sa.sa_family != b->sa_family)
		return false;
	if (b->sa_family == AF_INET)
		return a->in.sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&a->in6.sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

/*
 * An address of one of this host's (this network namespace's) interfaces:
 * not "bind() works", which ip_nonlocal_bind makes true of any address.
 */
static bool is_local(const union fabric_addr *addr)
{
	struct ifaddrs *ifa, *i;
	bool found = false;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next)
		found = i->ifa_addr && same_ip(addr, i->ifa_addr);
	freeifaddrs(ifa);
	return found;
}

int fabric_peers_find_self(struct fabric_peers *p, const char *index, char *err,
			   size_t errlen)
{
	unsigned int i, found = 0;
	unsigned long n;
	char *end;

	if (index && *index) {
		n = strtoul(index, &end, 10);
		if (*end || n >= p->n) {
			snprintf(
				err, errlen,
				"host index %s: want 0..%u, a position in the peer list",
				index, p->n - 1);
			return -1;
		}
		p->self = n;
		return 0;
	}
	for (i = 0; i < p->n; i++)
		if (is_local(&p->addr[i])) {
			p->self = i;
			found++;
		}
	if (found == 1)
		return 0;
	snprintf(err, errlen,
		 found ? "%u peers are addresses of this host: give its index" :
			 "no peer is an address of this host: give its index",
		 found);
	return -1;
}
