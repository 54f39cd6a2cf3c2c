/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The emulated rdma_cm character device: the user ABI of the kernel's
 * ucma.c (rdma/rdma_user_cm.h), on top of a CM that speaks REQ/REP/RTU,
 * REJ, DREQ/DREP and SIDR over a cm_transport.h transport. One lock
 * guards all of it: commands, the service thread and event reads.
 */
#ifndef MLX5EMU_UCMA_H
#define MLX5EMU_UCMA_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <rdma/rdma_user_cm.h>

#include "verbs/mlx5emu.h"
#include "cm_transport.h"

/* rdma_cm is a misc device; the minor is dynamic on a real kernel */
#define UCMA_CDEV_MAJOR 10
#define UCMA_CDEV_MINOR 123
#define UCMA_PATH "/dev/infiniband/rdma_cm"

/* the CM's own constants (ib_cm.h, rdma_cm.h, cma.c) */
#define CM_REJ_INVALID_SERVICE_ID 8
#define CM_REJ_CONSUMER_DEFINED 28
#define CM_REJ_VENDOR_OPTION_NOT_SUPPORTED 35
#define CM_SIDR_UNSUPPORTED 1
#define CM_SIDR_REJECT 2
#define CM_REQ_PDATA 56 /* 92 less the CMA header */
#define CM_REP_PDATA 196
#define CM_REJ_PDATA 148
#define CM_SIDR_REQ_PDATA 180 /* 216 less the CMA header */
#define CM_SIDR_REP_PDATA 136
#define CM_UDP_QKEY 0x01234567
#define CM_MAX_BACKLOG 1024
#define CM_ACK_TIMEOUT 14
/* the CM's time wait after a disconnect (cm.c: ~2 packet life times) */
#define CM_TIMEWAIT_NS 50000000ULL
/*
 * a path record query to the SA: hardware answers in a few ms, and
 * programs count on it (perftest's server listens again meanwhile)
 */
#define CM_PATH_QUERY_NS 5000000ULL
/*
 * A REQ a full listener has no room for is dropped and sent again (the
 * kernel's CM after each response timeout): here sooner, as its wait
 * doubles up to the cap, until the CM would give up (~16 tries of 4 s).
 */
#define CM_REQ_RESEND_FIRST_NS 1000000ULL
#define CM_REQ_RESEND_CAP_NS 100000000ULL
#define CM_REQ_GIVE_UP_NS 60000000000ULL

#define AF_IB_FAMILY 27

/* struct sockaddr_ib of rdma/ib.h (not a uAPI header of the tree) */
struct ucma_sockaddr_ib {
	unsigned short sib_family;
	uint16_t sib_pkey;
	uint32_t sib_flowinfo;
	uint8_t sib_addr[16];
	uint64_t sib_sid;
	uint64_t sib_sid_mask;
	uint64_t sib_scope_id;
};

/* rdma_cm_event_type (rdma_cma.h) */
enum ucma_event_type {
	UCMA_EV_ADDR_RESOLVED,
	UCMA_EV_ADDR_ERROR,
	UCMA_EV_ROUTE_RESOLVED,
	UCMA_EV_ROUTE_ERROR,
	UCMA_EV_CONNECT_REQUEST,
	UCMA_EV_CONNECT_RESPONSE,
	UCMA_EV_CONNECT_ERROR,
	UCMA_EV_UNREACHABLE,
	UCMA_EV_REJECTED,
	UCMA_EV_ESTABLISHED,
	UCMA_EV_DISCONNECTED,
	UCMA_EV_DEVICE_REMOVAL,
	UCMA_EV_MULTICAST_JOIN,
	UCMA_EV_MULTICAST_ERROR,
	UCMA_EV_ADDR_CHANGE,
	UCMA_EV_TIMEWAIT_EXIT,
};

/* ib_qp_attr_mask bits the CM answers in init_qp_attr */
enum {
	CM_QP_STATE = 1 << 0,
	CM_QP_ACCESS_FLAGS = 1 << 3,
	CM_QP_PKEY_INDEX = 1 << 4,
	CM_QP_PORT = 1 << 5,
	CM_QP_QKEY = 1 << 6,
	CM_QP_AV = 1 << 7,
	CM_QP_PATH_MTU = 1 << 8,
	CM_QP_TIMEOUT = 1 << 9,
	CM_QP_RETRY_CNT = 1 << 10,
	CM_QP_RNR_RETRY = 1 << 11,
	CM_QP_RQ_PSN = 1 << 12,
	CM_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	CM_QP_MIN_RNR_TIMER = 1 << 15,
	CM_QP_SQ_PSN = 1 << 16,
	CM_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	CM_QP_DEST_QPN = 1 << 20,
};

enum cm_state {
	CM_IDLE,
	CM_ADDR_BOUND,
	CM_ADDR_QUERY,
	CM_ADDR_RESOLVED,
	CM_ROUTE_QUERY,
	CM_ROUTE_RESOLVED,
	CM_LISTEN,
	CM_REQ_WAIT, /* a channel was accepted, its REQ not read yet */
	CM_REQ_RCVD,
	CM_REQ_SENT,
	CM_REP_SENT,
	CM_REP_RCVD,
	CM_ESTABLISHED,
	CM_DREQ_SENT,
	CM_DONE, /* rejected, disconnected or unreachable */
};

struct ucma_file {
	int fd; /* an eventfd: its count is the number of queued events */
	pid_t pid; /* the opener; a fork() child only holds a copy of the fd */
	struct emu_list events;
	struct emu_list ids;
	pthread_cond_t cond;
	unsigned int waiters;
	bool closed;
};

struct ucma_id {
	struct emu_list node; /* file->ids */
	struct ucma_file *file;
	uint32_t handle;
	uint64_t serial; /* never reused: the service thread's reference */
	uint64_t uid;
	uint16_t ps;
	uint8_t qp_type;
	enum cm_state state;
	struct sockaddr_storage src, dst;
	bool has_dev; /* bound to mlx5_0 port 1 */
	bool peer_gone; /* the channel closed before the user answered */
	bool timeout_set;
	bool timewait; /* TIMEWAIT_EXIT is due at the deadline */
	uint8_t ack_timeout, tos;
	uint16_t port; /* host order, 0: none held */
	int port_fd; /* holds the port, listens if CM_LISTEN */
	int conn_fd; /* the channel of the current exchange */
	int backlog;
	uint64_t deadline; /* CLOCK_MONOTONIC ns of a pending timer, 0: none */
	uint32_t events_reported;
	struct ucma_id *listener; /* a REQ's id until accepted */
	/* a REQ not taken yet (CM_REQ_SENT without a channel) */
	uint64_t req_give_up, req_wait;
	uint8_t req_pdata[CM_SIDR_REQ_PDATA], req_pdata_len;
	struct cm_end local, remote;
	bool remote_known;
};

struct ucma_event {
	struct emu_list node;
	struct ucma_id *id; /* whose count it adds to (the listener's) */
	struct ucma_id *child; /* the new id of a CONNECT_REQUEST */
	struct rdma_ucm_event_resp resp;
};

/* ucma_core.c: the lock, the id table, the service thread */
extern pthread_mutex_t ucma_lock;
struct ucma_id *ucma_id_new(struct ucma_file *file);
struct ucma_id *ucma_id_get(struct ucma_file *file, uint32_t handle, int *err);
void ucma_id_free(struct ucma_id *id);
void ucma_id_close_fds(struct ucma_id *id);
void ucma_wake_service(void);
int ucma_service_start(void);
uint64_t ucma_now(void);

/* ucma_file.c: the cdev and its event queue */
int ucma_open(int flags);
ssize_t ucma_write(struct ucma_file *f, int fd, const void *buf, size_t count);
void ucma_close(struct ucma_file *f);
void ucma_queue(struct ucma_id *id, uint32_t event, int32_t status,
		const struct cm_msg *m);
void ucma_queue_req(struct ucma_id *listener, struct ucma_id *child,
		    const struct cm_msg *m);
uint32_t ucma_drop_events(struct ucma_id *id);
void ucma_requeue(struct ucma_file *from, struct ucma_file *to,
		  struct ucma_event *e);
int ucma_get_event(struct ucma_file *f, int fd, const void *in, size_t in_len,
		   size_t out_len);

/* ucma_cmd.c: the write() decoder */
int ucma_dispatch(struct ucma_file *f, int fd, uint32_t cmd, const void *in,
		  size_t in_len, size_t out_len);

/* ucma_addr.c: addresses, routes, queries, QP attributes */
int ucma_bind(struct ucma_id *id, const struct sockaddr *sa);
int ucma_resolve(struct ucma_id *id, const struct sockaddr *src,
		 const struct sockaddr *dst, uint32_t timeout_ms);
int ucma_resolve_route(struct ucma_id *id);
void ucma_timer_fired(struct ucma_id *id);
int ucma_query(struct ucma_id *id, uint32_t option, void *resp, size_t out_len);
int ucma_query_route(struct ucma_id *id, void *resp, size_t out_len);
int ucma_init_qp_attr(struct ucma_id *id, uint32_t state,
		      struct ib_uverbs_qp_attr *a);
void ucma_local_end(struct cm_end *e);
socklen_t ucma_addr_size(const struct sockaddr *sa);
uint16_t ucma_addr_port(const struct sockaddr *sa);

/* ucma_conn.c: the CM exchanges */
int ucma_listen(struct ucma_id *id, uint32_t backlog);
int ucma_connect(struct ucma_id *id, const struct rdma_ucm_conn_param *p);
void ucma_req_resend(struct ucma_id *id);
int ucma_accept(struct ucma_id *id, uint64_t uid,
		const struct rdma_ucm_conn_param *p);
int ucma_reject(struct ucma_id *id, uint8_t reason, const uint8_t *pdata,
		uint8_t len);
int ucma_disconnect(struct ucma_id *id);
void ucma_id_leaving(struct ucma_id *id);
/* ucma_recv.c: what peers send */
void ucma_incoming(struct ucma_id *listener);
void ucma_forget_children(struct ucma_id *listener);
void ucma_channel_ready(struct ucma_id *id);

#endif
