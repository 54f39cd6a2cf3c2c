// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The client end of the TCP exchange: a wmt_target_ops behind a socket. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mono_clock.h"
#include "oob.h"
#include "peer.h"

struct wmt_client {
	struct wmt_oob oob;
	const struct wmt_options *o;
	unsigned int nqps, threads;
	uint64_t regions_total; /* the most bad bytes a VERDICT may count */
	int open_row; /* a SETUP without DONE or ABORT yet */
	double last_progress;
	int status; /* first connection failure */
};

/* the connection failed: say why once, remember the code */
static int lost(struct wmt_client *c, int code, char *err, size_t errlen)
{
	if (!c->status) {
		c->status = code;
		fprintf(stderr, "ib_write_mt: %s\n", c->oob.err);
	}
	if (err)
		snprintf(err, errlen, "%s", c->oob.err);
	return c->status;
}

static int malformed(struct wmt_client *c, const char *what, char *err,
		     size_t errlen)
{
	snprintf(c->oob.err, sizeof(c->oob.err),
		 "malformed %s message from the server", what);
	wmt_oob_send_error(&c->oob, PERFTEST_EXIT_PROTOCOL, c->oob.err);
	return lost(c, PERFTEST_EXIT_PROTOCOL, err, errlen);
}

struct wmt_client *wmt_client_open(const struct wmt_options *o, int *code)
{
	struct wmt_client *c = calloc(1, sizeof(*c));
	struct wmt_oob_msg m;
	uint8_t hello[WMT_HELLO_LEN];
	int ret;

	if (!c) {
		*code = PERFTEST_EXIT_DEVICE;
		return NULL;
	}
	c->o = o;
	c->oob.timeout_ms = o->peer_timeout * 1000;
	ret = wmt_oob_connect(&c->oob, o->server, o->tcp_port,
			      o->connect_timeout ? o->connect_timeout :
						   WMT_CLIENT_CONNECT_TIMEOUT);
	if (!ret)
		ret = wmt_oob_send(&c->oob, OOB_HELLO, hello,
				   wmt_hello_build(hello, sizeof(hello),
						   ROLE_WIRE_CLIENT));
	if (!ret)
		ret = wmt_oob_recv(&c->oob, OOB_BIT(OOB_HELLO), &m);
	if (!ret) {
		if (wmt_hello_check(&m, ROLE_WIRE_SERVER))
			ret = malformed(c, "HELLO", NULL, 0);
		wmt_oob_msg_free(&m);
	}
	if (ret) {
		*code = lost(c, ret, NULL, 0);
		wmt_oob_close(&c->oob);
		free(c);
		return NULL;
	}
	return c;
}

static int client_setup(void *arg, const struct wmt_regions *r,
			const struct wmt_layout *l, unsigned int nqps,
			struct rc_addr *remote, uint64_t *base, uint32_t *rkey,
			char *err, size_t errlen)
{
	struct wmt_client *c = arg;
	uint8_t p[20];
	struct wmt_buf b = { p, sizeof(p), 0, 0 };
	struct wmt_oob_msg m;
	unsigned int k;
	int ret;

	if (c->status)
		return lost(c, c->status, err, errlen);
	wmt_put32(&b, r->threads);
	wmt_put32(&b, r->slots);
	wmt_put32(&b, r->size);
	wmt_put32(&b, nqps);
	wmt_put32(&b, l->cat);
	ret = wmt_oob_send(&c->oob, OOB_SETUP, p, b.pos);
	if (!ret)
		ret = wmt_oob_recv(&c->oob, OOB_BIT(OOB_TARGET), &m);
	if (ret)
		return lost(c, ret, err, errlen);
	c->open_row = 1;
	c->nqps = nqps;
	c->threads = r->threads;
	c->regions_total = r->total;
	b = (struct wmt_buf){ m.payload, m.len, 0, 0 };
	*base = wmt_get64(&b);
	*rkey = wmt_get32(&b);
	ret = wmt_get32(&b) != nqps;
	for (k = 0; k < nqps && !ret; k++)
		ret = wmt_get_addr(&b, &remote[k]);
	ret |= b.bad || b.pos != m.len || !*base;
	wmt_oob_msg_free(&m);
	return ret ? malformed(c, "TARGET", err, errlen) : 0;
}

static int client_connect(void *arg, const struct rc_addr *local, char *err,
			  size_t errlen)
{
	struct wmt_client *c = arg;
	size_t len = 4 + (size_t)c->nqps * WMT_ADDR_WIRE;
	struct wmt_buf b = { malloc(len), len, 0, 0 };
	struct wmt_oob_msg m;
	unsigned int k;
	int ret;

	if (!b.p)
		return PERFTEST_EXIT_DEVICE;
	wmt_put32(&b, c->nqps);
	for (k = 0; k < c->nqps; k++)
		wmt_put_addr(&b, &local[k]);
	ret = wmt_oob_send(&c->oob, OOB_CONNECT, b.p, b.pos);
	free(b.p);
	if (!ret)
		ret = wmt_oob_recv(&c->oob, OOB_BIT(OOB_READY), &m);
	if (ret)
		return lost(c, ret, err, errlen);
	ret = m.len != 0;
	wmt_oob_msg_free(&m);
	c->last_progress = mono_now();
	return ret ? malformed(c, "READY", err, errlen) : 0;
}

/* while the threads run: keep the server's read timeout away */
static int client_tick(void *arg)
{
	struct wmt_client *c = arg;
	struct wmt_oob_msg m;
	int ret;

	if (wmt_oob_readable(&c->oob)) {
		/* the server says nothing during a run unless it gives up */
		ret = wmt_oob_recv(&c->oob, 0, &m);
		if (!ret) {
			wmt_oob_msg_free(&m);
			ret = PERFTEST_EXIT_PROTOCOL;
		}
		return lost(c, ret, NULL, 0);
	}
	if (mono_now() - c->last_progress < 1)
		return 0;
	c->last_progress = mono_now();
	ret = wmt_oob_send(&c->oob, OOB_PROGRESS, NULL, 0);
	return ret ? lost(c, ret, NULL, 0) : 0;
}

static int client_verify(void *arg, const uint64_t *iters, uint64_t *bad,
			 char *msg, size_t msglen)
{
	struct wmt_client *c = arg;
	size_t len = 4 + (size_t)c->threads * 8;
	struct wmt_buf b = { malloc(len), len, 0, 0 };
	char text[WMT_OOB_MSG_LEN + 1];
	struct wmt_oob_msg m;
	unsigned int t;
	int ret;

	if (!b.p)
		return PERFTEST_EXIT_DEVICE;
	wmt_put32(&b, c->threads);
	for (t = 0; t < c->threads; t++)
		wmt_put64(&b, iters[t]);
	ret = wmt_oob_send(&c->oob, OOB_DONE, b.p, b.pos);
	free(b.p);
	c->open_row = 0;
	if (!ret)
		ret = wmt_oob_recv(&c->oob, OOB_BIT(OOB_VERDICT), &m);
	if (ret)
		return lost(c, ret, msg, msglen);
	b = (struct wmt_buf){ m.payload, m.len, 0, 0 };
	*bad = wmt_get64(&b);
	wmt_get_bytes(&b, text, WMT_OOB_MSG_LEN);
	text[WMT_OOB_MSG_LEN] = 0;
	/* a count no region holds, or a message that is not a string */
	ret = b.bad || b.pos != m.len || *bad > c->regions_total ||
	      text[WMT_OOB_MSG_LEN - 1] || !*bad != !text[0];
	wmt_oob_msg_free(&m);
	if (ret)
		return malformed(c, "VERDICT", msg, msglen);
	snprintf(msg, msglen, "%s", text);
	return 0;
}

static void client_teardown(void *arg)
{
	struct wmt_client *c = arg;

	if (c->open_row && !c->status)
		wmt_oob_send(&c->oob, OOB_ABORT, NULL, 0);
	c->open_row = 0;
}

const struct wmt_target_ops wmt_client_ops = {
	.setup = client_setup,
	.connect = client_connect,
	.tick = client_tick,
	.verify = client_verify,
	.teardown = client_teardown,
};

int wmt_client_close(struct wmt_client *c)
{
	int ret = c->status;

	if (!ret && wmt_oob_send(&c->oob, OOB_BYE, NULL, 0))
		ret = lost(c, PERFTEST_EXIT_DISCONNECT, NULL, 0);
	wmt_oob_close(&c->oob);
	free(c);
	return ret;
}
