/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Emulated mlx5 device: the "kernel side" of /dev/infiniband/uverbsN.
 *
 * Object model (mirrors mlx5_ib + ib_uverbs):
 *   emu_device   one per emulated HCA; owns the number spaces a NIC looks
 *                things up by (QPN, CQN, mkey index, HW UAR index) under
 *                dev->lock.
 *   emu_context  one per open() of the cdev: the uverbs file + ucontext.
 *                Owns the uobject handle table and the UAR pages.
 *   emu_pd/mr/cq/qp/uar_page   the uobjects.
 *
 * Only the kernel uAPI headers are used; nothing of libmlx5's private
 * headers.
 */
#ifndef MLX5EMU_H
#define MLX5EMU_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "model.h"

#define EMU_MAX_FDS 65536
#define EMU_ADAPTER_PAGE 4096 /* one HW UAR */
#define EMU_NON_FP_BFREGS_PER_UAR 2
#define EMU_BFREGS_PER_UAR 4
#define EMU_MAX_BFREGS 512
#define EMU_FIRST_UAR_ID 0x10 /* low HW UARs belong to the driver */
#define EMU_FIRST_QPN 0x100
#define EMU_INVALID_BFREG (-1)
#define EMU_NUM_COMP_VECTORS 4
#define EMU_SRQ_MAX_SGE 31 /* 512-byte receive descriptor, less the link */

#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))

struct emu_list {
	struct emu_list *next, *prev;
};

static inline void emu_list_init(struct emu_list *h)
{
	h->next = h->prev = h;
}

static inline bool emu_list_empty(const struct emu_list *h)
{
	return h->next == h;
}

static inline void emu_list_add_tail(struct emu_list *h, struct emu_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void emu_list_del(struct emu_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define emu_list_for_each_safe(pos, tmp, head)                                 \
	for (pos = (head)->next, tmp = pos->next; pos != (head);               \
	     pos = tmp, tmp = pos->next)

/* rings of power-of-two sizes: the smallest one with room for v */
static inline uint32_t emu_roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/*
 * Sparse id -> pointer map; ids are reused lowest-first like an IDR, or,
 * in a cyclic table, only after the ids above them (QPNs: the firmware
 * hands them out in rising order, so a CQE a destroyed QP left behind does
 * not name the next QP).
 */
struct emu_table {
	void **slot;
	uint32_t nslots;
	uint32_t hint;
	uint32_t used;
	bool cyclic;
};

int emu_table_alloc(struct emu_table *t, void *p, uint32_t *id);
int emu_table_alloc_at(struct emu_table *t, void *p, uint32_t id);
void *emu_table_get(const struct emu_table *t, uint32_t id);
void *emu_table_remove(struct emu_table *t, uint32_t id);
void emu_table_destroy(struct emu_table *t);

/* ------------------------------------------------------------------ */
/* Configuration (set by the launcher through the environment)         */

enum emu_uar_mode {
	EMU_UAR_DYNAMIC,
	EMU_UAR_STATIC,
};

enum emu_transport {
	EMU_TRANSPORT_WRITE,
	EMU_TRANSPORT_IOCTL,
};

struct emu_config {
	const struct emu_model *model;
	unsigned int ndevices;
	unsigned int nports;
	enum emu_uar_mode uar_mode;
	enum emu_transport transport;
	unsigned int uars_per_page; /* dynamic: 4 KB UARs per UAR object */
	unsigned int dyn_bfregs; /* static: num_dyn_bfregs reported */
	unsigned int uar_limit; /* HW UARs per context, 0 = no limit */
	unsigned int uar_id_end; /* HW UAR indices below this (device size) */
	int trace_fd; /* -1: tracing off */
	bool netlink; /* NETLINK_RDMA sockets answered (else refused) */
	char stat_dir[PATH_MAX];
};

extern struct emu_config emu_cfg;

/* ------------------------------------------------------------------ */
/* Objects                                                             */

enum emu_obj_type {
	EMU_OBJ_PD = 1,
	EMU_OBJ_MR,
	EMU_OBJ_CQ,
	EMU_OBJ_QP,
	EMU_OBJ_UAR,
	EMU_OBJ_SRQ,
};

struct emu_context;

/* What the kernel keeps per uobject: handle, owner and users. */
struct emu_uobj {
	enum emu_obj_type type;
	uint32_t handle;
	struct emu_context *ctx;
	uint64_t user_handle;
	unsigned int usecnt; /* other objects pointing at this one */
};

struct emu_event_file;

struct emu_pd {
	struct emu_uobj uobj;
	uint32_t pdn;
};

struct emu_mr {
	struct emu_uobj uobj;
	struct emu_pd *pd;
	uint32_t lkey, rkey; /* index << 8 | key byte; never 0x100 */
	uint64_t start, length, iova;
	uint32_t access;
};

enum emu_uar_kind {
	EMU_UAR_KIND_STATIC, /* GET_CONTEXT, mmap command 0/2/3 */
	EMU_UAR_KIND_ALLOC_WC, /* legacy dynamic page, mmap command 6 */
	EMU_UAR_KIND_OBJ_BF, /* UAR_OBJ_ALLOC type BF */
	EMU_UAR_KIND_OBJ_NC, /* UAR_OBJ_ALLOC type NC */
};

/*
 * One system page of UARs (nuars 4 KB HW UARs, ids page_id..+nuars-1),
 * backed by a slot of the context's memfd so the emulator keeps its own
 * alias of what the application writes there.
 */
struct emu_uar_page {
	struct emu_uobj uobj; /* handle only for UAR objects */
	struct emu_list node; /* ctx->uar_pages */
	enum emu_uar_kind kind;
	uint32_t index; /* static page i or ALLOC_WC index k */
	uint32_t page_id;
	uint32_t nuars;
	uint32_t slot; /* UAR objects: mmap entry slot, else UINT32_MAX */
	uint64_t file_off; /* in the memfd: the offset libmlx5 maps */
	size_t len;
	uint64_t mmap_offset; /* what the application passes to mmap() */
	void *alias; /* emulator's own mapping */
	unsigned int app_maps;
	bool destroyed; /* uobject gone, waits for munmap */
	unsigned int nqps;
	unsigned int ncqs;
	struct emu_list stat_node; /* ctx->stat_pages, under the stat lock */
};

struct emu_cq {
	struct emu_uobj uobj;
	uint32_t cqn;
	uint32_t ncqe; /* power of two; the app sees cqe = ncqe - 1 */
	uint32_t cqe_size;
	uint64_t buf_addr, db_addr;
	uint32_t comp_vector;
	struct emu_uar_page *uar; /* where the arm doorbell rings */
	struct emu_event_file *channel;
	/* destroy answers these; the NIC's completer produces the events */
	uint32_t comp_events_reported;
	uint32_t async_events_reported;
	void *nic; /* the NIC's state for this CQ */
};

/* A basic SRQ: a ring of linked receive WQEs (mlx5_wqe_srq_next_seg). */
struct emu_srq {
	struct emu_uobj uobj;
	uint32_t srqn;
	struct emu_pd *pd;
	uint32_t nwqe; /* power of two; the app may post nwqe - 1 */
	uint32_t max_sge; /* data segments that fit a WQE */
	uint32_t wqe_shift;
	uint64_t buf_addr, db_addr;
	uint32_t limit; /* armed limit, 0 once the event fired */
	uint32_t events_reported;
	void *nic; /* the NIC's state for this SRQ */
};

enum emu_qp_state {
	EMU_QPS_RESET,
	EMU_QPS_INIT,
	EMU_QPS_RTR,
	EMU_QPS_RTS,
	EMU_QPS_SQD,
	EMU_QPS_SQE,
	EMU_QPS_ERR,
};

/* how the QP's doorbell UAR was chosen (mlx5_ib create_qp_user) */
enum emu_qp_uar_how {
	EMU_QP_UAR_STATIC_BFREG, /* kernel-allocated static bfreg */
	EMU_QP_UAR_BFREG_INDEX, /* MLX5_QP_FLAG_BFREG_INDEX: ALLOC_WC page */
	EMU_QP_UAR_PAGE_INDEX, /* MLX5_QP_FLAG_UAR_PAGE_INDEX: UAR object */
};

struct emu_qp {
	struct emu_uobj uobj;
	uint32_t qpn;
	uint8_t qp_type; /* IB_UVERBS_QPT_RC, UC or UD */
	bool sq_sig_all;
	uint32_t create_flags;
	struct emu_pd *pd;
	struct emu_cq *send_cq, *recv_cq;
	struct emu_srq *srq; /* receives through it instead of an RQ */
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge,
		max_inline_data;

	/* rings the NIC reads */
	uint64_t buf_addr, db_addr;
	uint32_t sq_wqe_cnt, rq_wqe_cnt, rq_wqe_shift;
	uint32_t uidx;
	uint32_t mlx5_flags;

	/* doorbell binding */
	struct emu_uar_page *uar;
	uint32_t uar_id; /* 4 KB HW UAR inside the page */
	enum emu_qp_uar_how uar_how;
	int bfregn; /* static bfreg number, EMU_INVALID_BFREG otherwise */
	uint32_t bfreg_index; /* as sent/answered */

	/* modify_qp state */
	enum emu_qp_state state;
	uint32_t access;
	uint16_t pkey_index;
	uint8_t port;
	uint8_t path_mtu;
	uint32_t dest_qp_num;
	uint32_t rq_psn, sq_psn;
	uint32_t qkey;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t path_mig_state;
	struct ib_uverbs_qp_dest ah;
	struct ib_uverbs_qp_dest alt_ah;

	uint32_t events_reported;
	pid_t tid; /* the thread that created it, for attribution */
	struct emu_list stat_node; /* ctx->stat_qps, under the stat lock */
	void *nic; /* the NIC's state for this QP */
};

/* ------------------------------------------------------------------ */
/* Device and context                                                  */

struct emu_port {
	uint16_t lid;
	uint8_t state; /* IB_PORT_ACTIVE */
};

struct emu_device {
	unsigned int index;
	char name[16];
	uint64_t node_guid;
	struct emu_port port[EMU_MAX_PORTS];

	pthread_mutex_t lock; /* guards everything below */
	struct emu_table qps; /* by qpn - EMU_FIRST_QPN */
	struct emu_table cqs; /* by cqn */
	struct emu_table mrs; /* by mkey index */
	struct emu_table pds; /* by pdn */
	struct emu_table srqs; /* by srqn */
	uint8_t *uar_used; /* HW UAR index bitmap (bytes) */
	uint32_t uar_hint;
	uint8_t mkey_variant;
	struct emu_list contexts;
	void *nic; /* the NIC's state for this device */
};

extern struct emu_device emu_devices[EMU_MAX_DEVICES];

struct emu_context {
	struct emu_device *dev;
	int fd; /* memfd: the app's cmd_fd and the UAR backing store */
	pid_t pid; /* the process that opened it; children only inherit the fd */
	uint32_t id; /* process-wide, for attribution */
	struct emu_list node; /* dev->contexts */
	pthread_mutex_t lock; /* serialises the file's commands */
	bool ucontext;
	struct emu_table handles;
	struct emu_event_file *async;

	/* UARs (mlx5_bfreg_info) */
	enum emu_uar_mode uar_mode;
	uint32_t nupp;
	uint32_t tot_bfregs; /* static bfregs, 0 in dynamic mode */
	uint32_t low_lat_bfregs;
	uint32_t num_static_pages;
	uint32_t num_dyn_bfregs;
	uint32_t num_dyn_pages;
	uint32_t *bfreg_count; /* [tot_bfregs] */
	struct emu_uar_page **static_pages; /* [num_static_pages] */
	struct emu_uar_page **wc_pages; /* [num_dyn_pages] */
	struct emu_list uar_pages;
	uint32_t nr_uars; /* HW UARs held, against the limit */
	/* UAR requests refused, for attribution */
	uint32_t uar_refused;
	const char *uar_refused_what;
	int uar_refused_errno;
	uint32_t uctx_ver; /* 0: v1 request, 2: v2 */
	uint8_t cqe_version;

	/* attribution records, under the stat lock */
	struct emu_list stat_node;
	struct emu_list stat_pages;
	struct emu_list stat_qps;

	/* memfd slots backing the UAR pages */
	size_t slot_size;
	uint64_t file_size; /* of the memfd */
	bool maps_unseen; /* the app's mmap/munmap bypass us: scan the maps */
	uint32_t wc_refused; /* 1 + ALLOC_WC index refused in a scan */
	uint32_t nslots;
	uint8_t *slot_used;
};

/* fd table: which fds are ours */
enum emu_fd_kind {
	EMU_FD_NONE,
	EMU_FD_CMD,
	EMU_FD_EVENT,
	EMU_FD_NETLINK,
};

void emu_fd_set(int fd, enum emu_fd_kind kind, void *obj);
void *emu_fd_get(int fd, enum emu_fd_kind kind);
void emu_fd_clear(int fd);
void emu_fd_forget_copies(struct emu_context *ctx);

/* real libc entry points, resolved with RTLD_NEXT */
struct emu_libc {
	int (*close)(int fd);
	ssize_t (*read)(int fd, void *buf, size_t count);
	ssize_t (*write)(int fd, const void *buf, size_t count);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd,
		      off_t off);
	int (*munmap)(void *addr, size_t len);
	int (*ioctl)(int fd, unsigned long req, ...);
	ssize_t (*recvmsg)(int fd, struct msghdr *msg, int flags);
	int (*setsockopt)(int fd, int level, int name, const void *val,
			  socklen_t len);
};

extern struct emu_libc emu_libc;
void emu_libc_init(void);

/*
 * sysfs_path.c: a /sys path the emulated tree shadows -> the same path in
 * $SYSFS_PATH (in buf), else path itself; unmap turns a path inside the
 * tree back into its /sys form, in place (root is longer than "/sys").
 */
const char *emu_sysfs_path(const char *path, char *buf, size_t len);
void emu_sysfs_unmap(char *path);

/* netlink.c: NETLINK_RDMA sockets (the fd is EMU_FD_NETLINK) */
struct emu_netlink;
int emu_netlink_socket(int type);
int emu_netlink_bind(struct emu_netlink *nl, const struct sockaddr *addr,
		     socklen_t len);
int emu_netlink_getsockname(struct emu_netlink *nl, struct sockaddr *addr,
			    socklen_t *len);
int emu_netlink_setsockopt(struct emu_netlink *nl, int fd, int level, int name,
			   const void *val, socklen_t len);
ssize_t emu_netlink_send(struct emu_netlink *nl, const struct msghdr *msg);
ssize_t emu_netlink_recv(int fd, struct msghdr *msg, int flags);
void emu_netlink_close(struct emu_netlink *nl);

/* device.c */
void emu_init(void);
int emu_cdev_index(const char *path);
dev_t emu_cdev_rdev(unsigned int index);
uint64_t emu_fw_ver(void);
void emu_fill_query_device(struct emu_device *dev,
			   struct ib_uverbs_query_device_resp *resp);
int emu_port_speed_mbps(struct emu_device *dev, uint64_t port, uint64_t *mbps);
int emu_query_port(struct emu_device *dev, unsigned int port,
		   struct ib_uverbs_query_port_resp *resp);
uint32_t emu_dev_alloc_uar_id(struct emu_device *dev, uint32_t n);
void emu_dev_free_uar_id(struct emu_device *dev, uint32_t id, uint32_t n);

/* context.c */
struct emu_context *emu_context_open(unsigned int index, int flags);
void emu_context_close(struct emu_context *ctx);
int emu_uobj_add(struct emu_context *ctx, struct emu_uobj *uobj,
		 enum emu_obj_type type);
void *emu_uobj_get(struct emu_context *ctx, uint32_t handle,
		   enum emu_obj_type type);
void emu_uobj_remove(struct emu_context *ctx, struct emu_uobj *uobj);

/* uverbs_write.c / uverbs_ioctl.c */
ssize_t emu_uverbs_write(struct emu_context *ctx, const void *buf,
			 size_t count);
int emu_uverbs_ioctl(struct emu_context *ctx, unsigned long req, void *arg);
struct ib_uverbs_ioctl_hdr;
int emu_uverbs_native_method(struct emu_context *ctx,
			     struct ib_uverbs_ioctl_hdr *hdr);
int emu_uverbs_invoke_write(struct emu_context *ctx, uint32_t command,
			    const void *in, size_t in_len, void *out,
			    size_t out_len, const void *uhw_in,
			    size_t uhw_in_len, void *uhw_out,
			    size_t uhw_out_len);

/* command bodies */
struct emu_cmd {
	bool ex;
	bool native; /* a native ioctl method: no write-only side effects */
	const void *req; /* core request, zero-extended to req_size */
	size_t req_len;
	const void *drv_req; /* driver (UHW) request */
	size_t drv_req_len;
	void *resp; /* core response */
	size_t resp_len;
	void *drv_resp;
	size_t drv_resp_len;
};

int emu_cmd_get_context(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_query_device(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_query_port(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_alloc_pd(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_dealloc_pd(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_reg_mr(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_rereg_mr(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_dereg_mr(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_create_comp_channel(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_create_cq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_resize_cq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_destroy_cq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_create_qp(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_query_qp(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_modify_qp(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_destroy_qp(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_create_srq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_modify_srq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_query_srq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_destroy_srq(struct emu_context *ctx, struct emu_cmd *c);

/* object teardown, used by destroy commands and context close */
int emu_pd_destroy(struct emu_pd *pd);
int emu_mr_destroy(struct emu_mr *mr);
int emu_cq_destroy(struct emu_cq *cq, struct ib_uverbs_destroy_cq_resp *resp);
int emu_qp_destroy(struct emu_qp *qp, struct ib_uverbs_destroy_qp_resp *resp);
int emu_srq_destroy(struct emu_srq *srq,
		    struct ib_uverbs_destroy_srq_resp *resp);

/* uar.c */
int emu_uar_context_init(struct emu_context *ctx,
			 const struct mlx5_ib_alloc_ucontext_req_v2 *req,
			 size_t req_len,
			 struct mlx5_ib_alloc_ucontext_resp *resp);
void emu_uar_context_fini(struct emu_context *ctx);
void emu_uar_forget_maps(struct emu_context *ctx);
void emu_uar_sync(struct emu_context *ctx);
int emu_uar_grow_file(struct emu_context *ctx, uint64_t end);

/* clock.c: the read-only clock info page of a context */
int emu_clock_info_init(struct emu_context *ctx);
bool emu_clock_info_offset(off_t off);
void *emu_clock_info_mmap(struct emu_context *ctx, void *addr, size_t len,
			  int prot, int flags);
void emu_uar_sync_locked(struct emu_context *ctx);
void emu_uar_forked(void);
int emu_uar_obj_alloc(struct emu_context *ctx, uint32_t type,
		      struct emu_uar_page **out);
int emu_uar_obj_destroy(struct emu_uar_page *pg);
struct emu_uar_page *emu_uar_find(struct emu_context *ctx, uint32_t page_id);
int emu_uar_bind_qp(struct emu_context *ctx, struct emu_qp *qp);
void emu_uar_unbind_qp(struct emu_context *ctx, struct emu_qp *qp);
int emu_uar_bind_cq(struct emu_context *ctx, struct emu_cq *cq, bool has_idx,
		    uint32_t page_id);
void emu_uar_unbind_cq(struct emu_context *ctx, struct emu_cq *cq);
void *emu_uar_mmap(struct emu_context *ctx, void *addr, size_t len, int prot,
		   int flags, off_t off);
bool emu_uar_munmap(void *addr, size_t len);

/* event.c: completion channels and the async event file */
struct emu_event_file *emu_event_file_create(bool async, int *fd);
void emu_event_file_get(struct emu_event_file *f);
void emu_event_file_put(struct emu_event_file *f);
void emu_event_file_closed(struct emu_event_file *f);
ssize_t emu_event_read(struct emu_event_file *f, int fd, void *buf,
		       size_t count);
int emu_event_push_comp(struct emu_event_file *f, struct emu_cq *cq);
int emu_event_push_async(struct emu_event_file *f, struct emu_uobj *uobj,
			 uint64_t element, uint32_t type);
void emu_event_drop(struct emu_event_file *f, struct emu_uobj *uobj);

/* stat.c: attribution registry, written to $MLX5EMU_STAT_DIR/<pid> */
void emu_stat_add_ctx(struct emu_context *ctx);
void emu_stat_del_ctx(struct emu_context *ctx);
void emu_stat_add_page(struct emu_uar_page *pg);
void emu_stat_del_page(struct emu_uar_page *pg);
void emu_stat_add_qp(struct emu_qp *qp);
void emu_stat_del_qp(struct emu_qp *qp);
void emu_stat_changed(void);
void emu_stat_exit(void);
void emu_stat_forked(void);

/*
 * nic_hooks.c: where the control path hands objects to the software NIC
 * (src/nic/). The defaults are weak no-ops so the control path stands alone;
 * the NIC provides the real ones. Each returns with the NIC quiescent for
 * that object: no CQE for a QP after its destroy or modify to RESET.
 * Called with the context's lock held, never with dev->lock.
 */
int emu_nic_cq_create(struct emu_cq *cq);
/* the NIC moves to the new ring (see nic/completer.c:nic_cq_resize) */
int emu_nic_cq_resize(struct emu_cq *cq, uint64_t buf_addr, uint32_t ncqe,
		      uint32_t cqe_size);
void emu_nic_cq_destroy(struct emu_cq *cq);
int emu_nic_qp_create(struct emu_qp *qp);
void emu_nic_qp_modify(struct emu_qp *qp);
void emu_nic_qp_destroy(struct emu_qp *qp);
void emu_nic_mr_destroy(struct emu_mr *mr);
int emu_nic_srq_create(struct emu_srq *srq);
void emu_nic_srq_modify(struct emu_srq *srq); /* the limit was armed */
void emu_nic_srq_destroy(struct emu_srq *srq);
/* extra lines of the process's attribution file */
void emu_nic_stat_write(FILE *f, int pid, struct emu_context *ctx);
/* QPNs unique per emulated device across processes */
uint32_t emu_fabric_qpn_base(void);
/* HW UAR indices unique per emulated device across processes */
bool emu_fabric_claim_uar(unsigned int dev, uint32_t id);
void emu_fabric_release_uar(unsigned int dev, uint32_t id);

/* lookups for the NIC; dev->lock must be held */
struct emu_qp *emu_qp_lookup(struct emu_device *dev, uint32_t qpn);
struct emu_cq *emu_cq_lookup(struct emu_device *dev, uint32_t cqn);
struct emu_mr *emu_mr_lookup(struct emu_device *dev, uint32_t key);

/* trace.c */
void emu_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *emu_write_cmd_name(uint32_t cmd, bool ex);

#endif
