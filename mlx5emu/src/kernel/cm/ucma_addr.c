// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Addressing: the emulated mlx5_0 port 1 answers for this host's own IP
 * addresses (127.0.0.0/8, ::1 and every interface's), as the kernel's
 * cma_bind_loopback()/cma_acquire_dev_by_src_ip() bind a local address to
 * an RDMA port. Route resolution makes the one-hop IB path between two
 * ports of the fabric; QP attributes follow cm.c's cm_init_qp_*_attr().
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>

#include "ucma.h"

socklen_t ucma_addr_size(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB_FAMILY:
		return sizeof(struct ucma_sockaddr_ib);
	default:
		return 0;
	}
}

uint16_t ucma_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static bool is_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(
		&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static bool same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

/* an address of this host: the emulated port answers for it */
static bool is_local(const struct sockaddr *sa)
{
	struct ifaddrs *ifa, *i;
	bool found = false;

	if (sa->sa_family == AF_INET &&
	    (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) ==
		    127)
		return true;
	if (sa->sa_family == AF_INET6 &&
	    IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr))
		return true;
	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next)
		found = i->ifa_addr && same_ip(sa, i->ifa_addr);
	freeifaddrs(ifa);
	return found;
}

void ucma_local_end(struct cm_end *e)
{
	uint64_t guid = htobe64(emu_devices[0].node_guid + 1);

	e->lid = emu_devices[0].port[0].lid;
	memset(e->gid, 0, sizeof(e->gid));
	e->gid[0] = 0xfe;
	e->gid[1] = 0x80;
	memcpy(e->gid + 8, &guid, sizeof(guid));
}

/* rdma_bind_addr(): a local or wildcard address, its port held now */
int ucma_bind(struct ucma_id *id, const struct sockaddr *sa)
{
	uint16_t port = 0;
	int fd;

	if (sa->sa_family == AF_IB_FAMILY)
		return -EAFNOSUPPORT; /* librdmacm then speaks IP only */
	if (id->state != CM_IDLE)
		return -EINVAL;
	if (!is_any(sa) && !is_local(sa))
		return -EADDRNOTAVAIL;
	port = ucma_addr_port(sa);
	fd = cm_tr_reserve(id->ps, &port);
	if (fd < 0)
		return fd;
	memset(&id->src, 0, sizeof(id->src));
	memcpy(&id->src, sa, ucma_addr_size(sa));
	set_port(&id->src, port);
	id->port = port;
	id->port_fd = fd;
	id->has_dev = !is_any(sa);
	id->state = CM_ADDR_BOUND;
	ucma_local_end(&id->local);
	return 0;
}

/* rdma_resolve_addr(): local destinations resolve, others time out */
int ucma_resolve(struct ucma_id *id, const struct sockaddr *src,
		 const struct sockaddr *dst, uint32_t timeout_ms)
{
	struct sockaddr_storage any = { .ss_family = dst->sa_family };
	int ret;

	if (id->state == CM_IDLE) {
		ret = ucma_bind(id, src ? src : (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	if (id->state != CM_ADDR_BOUND)
		return -EINVAL;
	memset(&id->dst, 0, sizeof(id->dst));
	memcpy(&id->dst, dst, ucma_addr_size(dst));
	id->state = CM_ADDR_QUERY;
	if (!is_any(dst) && !is_local(dst)) {
		id->deadline = ucma_now() + (uint64_t)timeout_ms * 1000000;
		ucma_wake_service();
		return 0;
	}
	if (is_any((struct sockaddr *)&id->src)) {
		uint16_t port = id->port;

		/* the loopback's source is the destination itself */
		memcpy(&id->src, dst, ucma_addr_size(dst));
		set_port(&id->src, port);
	}
	id->has_dev = true;
	id->state = CM_ADDR_RESOLVED;
	ucma_queue(id, UCMA_EV_ADDR_RESOLVED, 0, NULL);
	return 0;
}

/*
 * A timer ran out: the time wait after a disconnect, the SA's answer to
 * a path query, or no neighbour answered for a foreign address within
 * the resolution timeout.
 */
void ucma_timer_fired(struct ucma_id *id)
{
	if (id->timewait) {
		id->timewait = false;
		ucma_queue(id, UCMA_EV_TIMEWAIT_EXIT, 0, NULL);
		return;
	}
	if (id->state == CM_REQ_SENT) {
		ucma_req_resend(id);
		return;
	}
	if (id->state == CM_ROUTE_QUERY) {
		id->state = CM_ROUTE_RESOLVED;
		ucma_queue(id, UCMA_EV_ROUTE_RESOLVED, 0, NULL);
		return;
	}
	if (id->state != CM_ADDR_QUERY)
		return;
	id->state = CM_ADDR_BOUND;
	ucma_queue(id, UCMA_EV_ADDR_ERROR, -ETIMEDOUT, NULL);
}

int ucma_resolve_route(struct ucma_id *id)
{
	if (id->state != CM_ADDR_RESOLVED)
		return -EINVAL;
	id->state = CM_ROUTE_QUERY;
	id->deadline = ucma_now() + CM_PATH_QUERY_NS;
	ucma_wake_service();
	return 0;
}

static bool has_route(const struct ucma_id *id)
{
	return id->has_dev && id->state >= CM_ROUTE_RESOLVED &&
	       id->state != CM_LISTEN;
}

/* the path between our port and the peer's: one hop on one subnet */
static void fill_path(const struct ucma_id *id, struct ib_user_path_rec *p)
{
	struct cm_end local;

	ucma_local_end(&local);
	memcpy(p->sgid, local.gid, 16);
	memcpy(p->dgid, id->remote_known ? id->remote.gid : local.gid, 16);
	p->slid = htobe16(local.lid);
	p->dlid = htobe16(id->remote_known ? id->remote.lid : local.lid);
	p->pkey = htobe16(0xffff);
	p->reversible = 1;
	p->numb_path = 1;
	p->mtu_selector = 2; /* exactly */
	p->mtu = 5; /* IB_MTU_4096 */
	p->rate_selector = 2;
	p->rate = 16; /* IB_RATE_100_GBPS */
	p->packet_life_time_selector = 2;
	p->packet_life_time = 12;
	p->traffic_class = id->tos;
}

int ucma_query_route(struct ucma_id *id, void *out, size_t out_len)
{
	struct rdma_ucm_query_route_resp *r = out;

	memset(r, 0, out_len);
	memcpy(&r->src_addr, &id->src, sizeof(r->src_addr));
	memcpy(&r->dst_addr, &id->dst, sizeof(r->dst_addr));
	if (!id->has_dev)
		return 0;
	r->node_guid = htobe64(emu_devices[0].node_guid);
	r->port_num = 1;
	r->ibdev_index = emu_devices[0].index;
	fill_path(id, &r->ib_route[0]);
	r->num_paths = has_route(id);
	return 0;
}
