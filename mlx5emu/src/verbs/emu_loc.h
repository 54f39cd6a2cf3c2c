/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Cross-file prototypes of the control path, one block per file
 * (rxe_loc.h's job). The seam to the NIC and the fabric is emu_nic.h.
 */
#ifndef MLX5EMU_LOC_H
#define MLX5EMU_LOC_H

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/emu_libc.h"
#include "base/fd_table.h"
#include "base/fork.h"
#include "base/sigbus.h"
#include "base/trace.h"
#include "base/uaccess.h"
#include "seam/emu_verbs.h"

/* device.c: the emulated HCAs, emu_cfg.ndevices of them */
extern struct emu_device emu_devices[EMU_MAX_DEVICES];

/* qp.c, cq.c, mr.c: by number, under dev->lock */
struct emu_qp *emu_qp_lookup(struct emu_device *dev, uint32_t qpn);
struct emu_cq *emu_cq_lookup(struct emu_device *dev, uint32_t cqn);
struct emu_mr *emu_mr_lookup(struct emu_device *dev, uint32_t key);

/* kernel/fops.c: the file operations of our fds, by kind */
extern const struct emu_fd_ops emu_uverbs_fops, emu_event_fops,
	emu_netlink_fops, emu_ucma_fops;

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
ssize_t emu_netlink_send_buf(struct emu_netlink *nl, const void *buf,
			     size_t len);
ssize_t emu_netlink_recv(int fd, struct msghdr *msg, int flags);
void emu_netlink_close(struct emu_netlink *nl);

/* cm/: the rdma_cm character device (cm/ucma.h) */
struct ucma_file;
bool ucma_is_cdev(const char *path);
void ucma_fake_stat(struct stat *st);
int ucma_open(int flags);
ssize_t ucma_write(struct ucma_file *f, int fd, const void *buf, size_t count);
void ucma_close(struct ucma_file *f);
int ucma_netlink_chardev(uint64_t *cdev, uint64_t *abi, const char **name);

/* device.c */
void emu_init(void);
int emu_cdev_index(const char *path);
dev_t emu_cdev_rdev(unsigned int index);
uint64_t emu_fw_ver(void);
void emu_fill_query_device(struct emu_device *dev,
			   struct ib_uverbs_query_device_resp *resp);
/* in 100 Mb/s, as DEVICE/QUERY_PORT_SPEED answers */
int emu_port_speed(struct emu_device *dev, uint64_t port, uint64_t *speed);
int emu_query_port(struct emu_device *dev, unsigned int port,
		   struct ib_uverbs_query_port_resp *resp);
uint32_t emu_dev_alloc_uar_id(struct emu_device *dev, uint32_t n);
void emu_dev_free_uar_id(struct emu_device *dev, uint32_t id, uint32_t n);

/* context.c */
struct emu_context *emu_context_open(unsigned int index, int flags);
void emu_context_close(struct emu_context *ctx);
int emu_uobj_add(struct emu_context *ctx, struct emu_uobj *uobj,
		 enum emu_obj_type type);
struct emu_uobj *emu_uobj_get(struct emu_context *ctx, uint32_t handle,
			      enum emu_obj_type type);
void emu_uobj_remove(struct emu_context *ctx, struct emu_uobj *uobj);

/*
 * The object behind a handle, of the type the command names, or NULL
 * (uobj_get_obj_read()'s job): emu_pd_get(), emu_mr_get(), emu_cq_get(),
 * emu_qp_get(), emu_srq_get(), emu_uar_get().
 */
#define EMU_UOBJ_GETTER(name, obj_type, obj_struct)                            \
	static inline struct obj_struct *emu_##name##_get(                     \
		struct emu_context *ctx, uint32_t handle)                      \
	{                                                                      \
		struct emu_uobj *u = emu_uobj_get(ctx, handle, obj_type);      \
                                                                               \
		return u ? container_of(u, struct obj_struct, uobj) : NULL;    \
	}
EMU_UOBJ_GETTER(pd, EMU_OBJ_PD, emu_pd)
EMU_UOBJ_GETTER(mr, EMU_OBJ_MR, emu_mr)
EMU_UOBJ_GETTER(cq, EMU_OBJ_CQ, emu_cq)
EMU_UOBJ_GETTER(qp, EMU_OBJ_QP, emu_qp)
EMU_UOBJ_GETTER(srq, EMU_OBJ_SRQ, emu_srq)
EMU_UOBJ_GETTER(uar, EMU_OBJ_UAR, emu_uar_page)
#undef EMU_UOBJ_GETTER
int emu_cmd_get_context(struct emu_context *ctx, struct emu_cmd *c);
/* a command's response and its driver part, cut to the caller's room */
void emu_cmd_reply(const struct emu_cmd *c, const void *resp, size_t len);
void emu_cmd_reply_drv(const struct emu_cmd *c, const void *resp, size_t len);
int emu_cmd_query_device(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_query_port(struct emu_context *ctx, struct emu_cmd *c);

/* uverbs_write.c */
ssize_t emu_uverbs_write(struct emu_context *ctx, const void *buf,
			 size_t count);
int emu_uverbs_invoke_write(struct emu_context *ctx, uint32_t command,
			    const void *in, size_t in_len, void *out,
			    size_t out_len, const void *uhw_in,
			    size_t uhw_in_len, void *uhw_out,
			    size_t uhw_out_len);

/* uverbs_ioctl.c */
int emu_uverbs_ioctl(struct emu_context *ctx, unsigned long req, void *arg);

/* uverbs_methods.c */
struct ib_uverbs_ioctl_hdr;
int emu_uverbs_native_method(struct emu_context *ctx,
			     struct ib_uverbs_ioctl_hdr *hdr);

/*
 * The objects' files: command bodies, and the teardown used by destroy
 * commands and context close.
 */

/* pd.c */
int emu_cmd_alloc_pd(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_dealloc_pd(struct emu_context *ctx, struct emu_cmd *c);
int emu_pd_destroy(struct emu_pd *pd);

/* mr.c */
int emu_cmd_reg_mr(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_rereg_mr(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_dereg_mr(struct emu_context *ctx, struct emu_cmd *c);
int emu_mr_destroy(struct emu_mr *mr);

/* cq.c */
int emu_cmd_create_comp_channel(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_create_cq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_resize_cq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_destroy_cq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cq_destroy(struct emu_cq *cq, struct ib_uverbs_destroy_cq_resp *resp);

/* qp.c */
int emu_cmd_create_qp(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_query_qp(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_modify_qp(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_destroy_qp(struct emu_context *ctx, struct emu_cmd *c);
int emu_qp_destroy(struct emu_qp *qp, struct ib_uverbs_destroy_qp_resp *resp);

/* srq.c */
int emu_cmd_create_srq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_modify_srq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_query_srq(struct emu_context *ctx, struct emu_cmd *c);
int emu_cmd_destroy_srq(struct emu_context *ctx, struct emu_cmd *c);
int emu_srq_destroy(struct emu_srq *srq,
		    struct ib_uverbs_destroy_srq_resp *resp);

/*
 * uar_claim.c: HW UAR index id of device dev, unique across the processes
 * of the fabric while held; under dev->lock
 */
bool emu_uar_claim(unsigned int dev, uint32_t id);
void emu_uar_release(unsigned int dev, uint32_t id);

/* uar.c: UAR pages and bfregs */
int emu_uar_context_init(struct emu_context *ctx,
			 const struct mlx5_ib_alloc_ucontext_req_v2 *req,
			 size_t req_len,
			 struct mlx5_ib_alloc_ucontext_resp *resp);
void emu_uar_context_fini(struct emu_context *ctx);
int emu_uar_grow_file(struct emu_context *ctx, uint64_t end);
int emu_uar_page_new(struct emu_context *ctx, enum emu_uar_kind kind,
		     uint32_t index, struct emu_uar_page **out);
void emu_uar_page_put(struct emu_uar_page *pg);
/* a UAR request refused, for attribution */
void emu_uar_refused(struct emu_context *ctx, const char *what, int err);
int emu_uar_obj_alloc(struct emu_context *ctx, uint32_t type,
		      struct emu_uar_page **out);
int emu_uar_obj_destroy(struct emu_uar_page *pg);
struct emu_uar_page *emu_uar_find(struct emu_context *ctx, uint32_t page_id);
int emu_uar_bind_qp(struct emu_context *ctx, struct emu_qp *qp);
void emu_uar_unbind_qp(struct emu_context *ctx, struct emu_qp *qp);
int emu_uar_bind_cq(struct emu_context *ctx, struct emu_cq *cq, bool has_idx,
		    uint32_t page_id);
void emu_uar_unbind_cq(struct emu_context *ctx, struct emu_cq *cq);

/* device.c: does the NIC write there (an MR, a CQ ring)? */
bool emu_device_writes_into(uint64_t addr, uint64_t len);

/* uar_map.c: the application's mappings of UAR pages */
void *emu_uar_mmap(struct emu_context *ctx, void *addr, size_t len, int prot,
		   int flags, off_t off);
bool emu_uar_munmap(void *addr, size_t len);
/* does [addr, addr + len) meet a UAR page the application mapped? */
bool emu_uar_mapped(uint64_t addr, uint64_t len);
/* the mappings we saw of one page, or of all the context's (pg NULL) */
void emu_uar_forget_page_maps(struct emu_context *ctx, struct emu_uar_page *pg);
void emu_uar_forget_maps(struct emu_context *ctx);
void emu_uar_sync(struct emu_context *ctx);
void emu_uar_sync_locked(struct emu_context *ctx);
void emu_uar_check_mapped(struct emu_context *ctx, struct emu_uar_page *pg);

/* clock.c: the read-only clock info page of a context */
int emu_clock_info_init(struct emu_context *ctx);
bool emu_clock_info_offset(off_t off);
void *emu_clock_info_mmap(struct emu_context *ctx, void *addr, size_t len,
			  int prot, int flags);

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

/* kernel/trace_names.c: for --trace (base/trace.h) */
const char *emu_write_cmd_name(uint32_t cmd, bool ex);

#endif
