/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Two processes over TCP (default port 18515), perftest style: the server
 * holds the target, the client drives the threads. See oob.h for the
 * messages and their validation.
 */
#ifndef WMT_PEER_H
#define WMT_PEER_H

#include <infiniband/verbs.h>

#include "row.h"

struct wmt_client;

/* connects and shakes hands; NULL with the exit code in *code */
struct wmt_client *wmt_client_open(const struct wmt_options *o, int *code);
extern const struct wmt_target_ops wmt_client_ops;
/* says goodbye; returns the exit code of the connection so far */
int wmt_client_close(struct wmt_client *c);

/* serves one client until it says goodbye; returns the exit code */
int wmt_server_main(const struct wmt_options *o, struct ibv_device *dev);

#endif
