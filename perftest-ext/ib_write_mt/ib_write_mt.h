/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ib_write_mt: multithreaded RC RDMA-write message rate over the endpoint
 * categories of Zambre et al., ICPADS'18, with the resources each costs.
 * Types shared by the parts of the tool; each part has its own header.
 */
#ifndef IB_WRITE_MT_H
#define IB_WRITE_MT_H

#include <stdbool.h>
#include <stdint.h>

#include "exit_code.h"

enum wmt_category {
	CAT_MPI_EVERYWHERE,
	CAT_2XDYNAMIC,
	CAT_DYNAMIC,
	CAT_SHARED_DYNAMIC,
	CAT_STATIC,
	CAT_MPI_THREADS,
	CAT_SHARED_UUAR, /* level-3 TDs: the "shared uUAR" mapping level */
	CAT_XWAY, /* every resource per thread unless --share-X says */
	CAT_COUNT,
};

/* the resources that x threads may share (--share-X=x) */
enum wmt_res {
	RES_CTX,
	RES_PD,
	RES_MR,
	RES_BUF,
	RES_CQ,
	RES_QP,
	RES_COUNT,
};

enum wmt_sweep {
	SWEEP_NONE,
	SWEEP_THREADS,
	SWEEP_POSTLIST,
	SWEEP_UNSIGNALED,
	SWEEP_SIZE,
	SWEEP_SHARE, /* + sweep_res */
};

/* --doorbell: how a post reaches the NIC */
enum wmt_doorbell {
	DB_AUTO, /* libmlx5's own rule (post_send_db()) */
	DB_BF, /* BlueFlame: MLX5_POST_SEND_PREFER_BF=1, single WRs only */
	DB_DB, /* 8-byte doorbells only: MLX5_SHUT_UP_BF=1 */
	DB_COUNT,
};

enum wmt_role {
	ROLE_LOOPBACK,
	ROLE_SERVER,
	ROLE_CLIENT,
};

/* how a thread waits for completions */
enum wmt_poll {
	POLL_AUTO, /* yield when the cores are shared (or the NIC is emulated) */
	POLL_BUSY,
	POLL_YIELD,
};

struct wmt_options {
	const char *ib_dev;
	unsigned int ib_port;
	int gid_index; /* -1: none (IB), else use a GRH */
	unsigned int tcp_port;
	unsigned int threads;
	bool threads_given; /* --threads on the command line */
	unsigned int size;
	bool size_given; /* -s on the command line */
	uint64_t iters;
	bool iters_given; /* -n on the command line */
	unsigned int duration; /* seconds; 0: iterations */
	unsigned int repeat; /* --repeat: timed runs per row (1) */
	unsigned int tx_depth;
	unsigned int post_list;
	unsigned int cq_mod;
	unsigned int inline_size;
	unsigned int num_qps; /* -q: 0 = from the category */
	bool warm_up;
	bool blueflame;
	bool pin;
	enum wmt_poll poll;
	unsigned int categories; /* bit mask of enum wmt_category */
	unsigned char order[CAT_COUNT]; /* the categories in the rows' order */
	unsigned int ncats;
	bool categories_given; /* --endpoints or --sharing */
	unsigned int sharing; /* --sharing: 0 = the category's */
	/* --td-fallback: TDs accept up to level 3 (IBV_TD_INIT_ATTR_MAX_SHARING) */
	bool td_fallback;
	unsigned int share[RES_COUNT]; /* 0 = not given */
	enum wmt_role role;
	bool role_from_launcher;
	const char *server;
	unsigned int connect_timeout; /* seconds; 0: client 10, server forever */
	unsigned int peer_timeout; /* seconds */
	bool out_json;
	const char *json_file;
	const char *csv_file;
	const char *plot_file;
	enum wmt_sweep sweep;
	enum wmt_res sweep_res;
	bool wide; /* --wide: every column of the table */
	enum wmt_doorbell doorbell; /* this row's */
	unsigned char db_order[DB_COUNT]; /* --doorbell's modes, as listed */
	unsigned int ndb;
	bool doorbell_given;
	bool lockstep; /* -t P -Q 1 at every point: one list in flight */
};

const char *wmt_category_name(enum wmt_category cat);
const char *wmt_res_name(enum wmt_res res);
const char *wmt_doorbell_name(enum wmt_doorbell db);

/* a sweep's first point; it doubles up to the option's value */
static inline unsigned int wmt_sweep_first(const struct wmt_options *o)
{
	return o->sweep == SWEEP_SIZE && o->size >= 2 ? 2 : 1;
}

/* seconds per row without -n or -D */
#define WMT_DEFAULT_DURATION 2

/* 64-byte cache lines: per-thread data never shares one unless asked */
#define WMT_CACHE_LINE 64

static inline uint64_t wmt_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

#endif
