// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The server: holds the target of each row a client sets up, verifies it
 * when the client is done, and reports the verdict back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_writer.h"
#include "oob.h"
#include "output_file.h"
#include "peer.h"

#define MAX_THREADS 1024
#define MAX_REGIONS (1ull << 30)

struct server {
	struct wmt_oob oob;
	const struct wmt_options *o;
	struct ibv_device *dev;
	struct wmt_target t;
	struct wmt_regions r;
	unsigned int nqps, cat;
	struct rc_addr *local;
	bool told; /* that the client's workload overrides ours */
	/* the rows served, for the table and --out_json_file */
	struct served {
		unsigned int cat, threads, size, nqps;
		uint64_t msgs;
		bool verified;
	} * rows;
	unsigned int nrows;
};

/* once: options given to the server that the client's workload replaces */
static void tell_overrides(struct server *s)
{
	const struct wmt_options *o = s->o;

	if (s->told)
		return;
	s->told = true;
	if (o->threads_given && o->threads != s->r.threads)
		printf(" note: --threads=%u given here; the client's %u apply\n",
		       o->threads, s->r.threads);
	if (o->size_given && o->size != s->r.size)
		printf(" note: -s %u given here; the client's %u apply\n",
		       o->size, s->r.size);
	if (o->categories_given)
		printf(" note: --endpoints given here; the client's apply\n");
}

static void table_head(void)
{
	printf(" %-16s %4s %6s %4s %12s  %s\n", "#category", "thr", "size",
	       "QPs", "#msgs", "verified (every slot and guard)");
}

/* our side gave up: tell the client why (main() tells the user) */
static int give_up(struct server *s, int code)
{
	if (code == PERFTEST_EXIT_PROTOCOL || code == PERFTEST_EXIT_VERSION ||
	    code == PERFTEST_EXIT_DEVICE)
		wmt_oob_send_error(&s->oob, code, s->oob.err);
	return code;
}

static int malformed(struct server *s, const char *what, const char *why)
{
	snprintf(s->oob.err, sizeof(s->oob.err),
		 "malformed %s message from %s: %s", what, s->oob.peer, why);
	return give_up(s, PERFTEST_EXIT_PROTOCOL);
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int parse_setup(struct server *s, const struct wmt_oob_msg *m)
{
	struct wmt_buf b = { m->payload, m->len, 0, 0 };
	uint32_t threads = wmt_get32(&b), slots = wmt_get32(&b);
	uint32_t size = wmt_get32(&b), nqps = wmt_get32(&b);

	s->cat = wmt_get32(&b);
	if (b.bad || b.pos != m->len)
		return malformed(s, "SETUP", "wrong length");
	if (!threads || threads > MAX_THREADS)
		return malformed(s, "SETUP", "thread count out of range");
	if (!is_pow2(slots) || slots > 32768)
		return malformed(s, "SETUP",
				 "slots not a power of two <= 32768");
	if (!size || size > 65536)
		return malformed(s, "SETUP", "message size out of range");
	if (!nqps || nqps > threads || threads % nqps)
		return malformed(s, "SETUP",
				 "QP count does not divide the threads");
	if (s->cat >= CAT_COUNT)
		return malformed(s, "SETUP", "unknown category");
	wmt_regions_init(&s->r, threads, slots, size);
	if (s->r.total > MAX_REGIONS)
		return malformed(s, "SETUP",
				 "target regions larger than 1 GiB");
	s->nqps = nqps;
	return 0;
}

static int send_target(struct server *s)
{
	size_t len = 16 + (size_t)s->nqps * WMT_ADDR_WIRE;
	struct wmt_buf b = { malloc(len), len, 0, 0 };
	unsigned int k;
	int ret;

	if (!b.p)
		return PERFTEST_EXIT_DEVICE;
	wmt_put64(&b, (uintptr_t)s->t.mem);
	wmt_put32(&b, s->t.mr->rkey);
	wmt_put32(&b, s->nqps);
	for (k = 0; k < s->nqps; k++)
		wmt_put_addr(&b, &s->local[k]);
	ret = wmt_oob_send(&s->oob, OOB_TARGET, b.p, b.pos);
	free(b.p);
	return ret;
}

static int connect_target(struct server *s, const struct wmt_oob_msg *m)
{
	struct wmt_buf b = { m->payload, m->len, 0, 0 };
	struct rc_addr *remote = calloc(s->nqps, sizeof(*remote));
	unsigned int k;
	int ret = 0;

	if (!remote)
		return PERFTEST_EXIT_DEVICE;
	if (wmt_get32(&b) != s->nqps)
		ret = malformed(s, "CONNECT", "QP count differs from SETUP");
	for (k = 0; !ret && k < s->nqps; k++)
		if (wmt_get_addr(&b, &remote[k]))
			ret = malformed(s, "CONNECT",
					"QP address out of range");
	if (!ret && (b.bad || b.pos != m->len))
		ret = malformed(s, "CONNECT", "wrong length");
	if (!ret) {
		ret = wmt_target_connect(&s->t, s->o, s->local, remote,
					 s->oob.err, sizeof(s->oob.err));
		if (ret)
			ret = give_up(s, ret);
	}
	if (!ret)
		ret = wmt_oob_send(&s->oob, OOB_READY, NULL, 0);
	free(remote);
	return ret;
}

static void record_row(struct server *s, const uint64_t *iters, bool ok)
{
	struct served *r, *more;
	unsigned int t;

	more = realloc(s->rows, (s->nrows + 1) * sizeof(*s->rows));
	if (!more)
		return;
	s->rows = more;
	r = &s->rows[s->nrows++];
	*r = (struct served){ s->cat, s->r.threads, s->r.size, s->nqps, 0, ok };
	for (t = 0; t < s->r.threads; t++)
		r->msgs += iters[t];
}

/* the server's own table, as ib_write_bw's server prints one */
static void print_table(const struct server *s)
{
	unsigned int i;

	if (!s->nrows)
		return;
	table_head();
	for (i = 0; i < s->nrows; i++) {
		const struct served *r = &s->rows[i];

		printf(" %-16s %4u %6u %4u %12llu  %s\n",
		       wmt_category_name(r->cat), r->threads, r->size, r->nqps,
		       (unsigned long long)r->msgs, r->verified ? "yes" : "no");
	}
}

/* --out_json_file on the server: what it served and verified */
static int write_json(const struct server *s, bool complete)
{
	const char *path = s->o->json_file;
	struct json_writer w;
	unsigned int i;
	FILE *f;

	if (!s->o->out_json)
		return 0;
	f = output_open("ib_write_mt", path);
	if (!f)
		return PERFTEST_EXIT_OUTPUT;
	json_init(&w, f);
	json_begin_object(&w, NULL);
	json_string(&w, "test", "ib_write_mt");
	json_string(&w, "role", "server");
	json_bool(&w, "complete", complete);
	json_begin_array(&w, "results");
	for (i = 0; i < s->nrows; i++) {
		const struct served *r = &s->rows[i];

		json_begin_object(&w, NULL);
		json_string(&w, "category", wmt_category_name(r->cat));
		json_uint(&w, "threads", r->threads);
		json_uint(&w, "MsgSize", r->size);
		json_uint(&w, "qps", r->nqps);
		json_uint(&w, "messages", r->msgs);
		json_bool(&w, "verified", r->verified);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	return output_close("ib_write_mt", path, f, json_finish(&w)) ?
		       PERFTEST_EXIT_OUTPUT :
		       0;
}

/* DONE: check every slot and guard, tell the client */
static int verify(struct server *s, const struct wmt_oob_msg *m)
{
	struct wmt_buf b = { m->payload, m->len, 0, 0 };
	uint8_t p[8 + WMT_OOB_MSG_LEN] = {};
	struct wmt_buf out = { p, sizeof(p), 0, 0 };
	char text[WMT_OOB_MSG_LEN] = {};
	uint64_t *iters, bad, max = 1ull << 62;
	unsigned int t;
	int ret = 0;

	if (wmt_get32(&b) != s->r.threads)
		return malformed(s, "DONE", "thread count differs from SETUP");
	iters = calloc(s->r.threads, sizeof(*iters));
	if (!iters)
		return PERFTEST_EXIT_DEVICE;
	for (t = 0; t < s->r.threads; t++)
		if ((iters[t] = wmt_get64(&b)) > max)
			ret = 1;
	if (ret || b.bad || b.pos != m->len) {
		free(iters);
		return malformed(s, "DONE",
				 ret ? "iteration count out of range" :
				       "wrong length");
	}
	bad = wmt_regions_verify(&s->r, s->t.mem, iters, text, sizeof(text));
	printf("ib_write_mt server: %s, %u threads: %s\n",
	       wmt_category_name(s->cat), s->r.threads,
	       bad ? text : "every slot and guard verified");
	record_row(s, iters, !bad);
	free(iters);
	wmt_put64(&out, bad);
	wmt_put_bytes(&out, text, sizeof(text));
	return wmt_oob_send(&s->oob, OOB_VERDICT, p, sizeof(p));
}

/* one row: SETUP received; returns 0 when the client is done with it */
static int serve_row(struct server *s, const struct wmt_oob_msg *setup)
{
	struct wmt_oob_msg m;
	int ret;

	ret = parse_setup(s, setup);
	if (ret)
		return ret;
	tell_overrides(s);
	s->local = calloc(s->nqps, sizeof(*s->local));
	if (!s->local)
		return PERFTEST_EXIT_DEVICE;
	ret = wmt_target_create(&s->t, s->dev, s->o, &s->r, s->nqps, s->local,
				s->oob.err, sizeof(s->oob.err));
	if (ret) {
		ret = give_up(s, ret);
		goto out;
	}
	ret = send_target(s);
	if (!ret)
		ret = wmt_oob_recv(
			&s->oob, OOB_BIT(OOB_CONNECT) | OOB_BIT(OOB_ABORT), &m);
	if (ret)
		goto out_target;
	if (m.type == OOB_CONNECT)
		ret = connect_target(s, &m);
	else if (m.len)
		ret = malformed(s, "ABORT", "unexpected payload");
	else
		m.type = OOB_ABORT;
	wmt_oob_msg_free(&m);
	/* the run: PROGRESS each second, then DONE (or ABORT) */
	while (!ret && m.type != OOB_ABORT) {
		ret = wmt_oob_recv(&s->oob,
				   OOB_BIT(OOB_PROGRESS) | OOB_BIT(OOB_DONE) |
					   OOB_BIT(OOB_ABORT),
				   &m);
		if (ret)
			break;
		if (m.type == OOB_DONE) {
			ret = verify(s, &m);
			wmt_oob_msg_free(&m);
			break;
		}
		if (m.len)
			ret = malformed(s, wmt_oob_type_name(m.type),
					"unexpected payload");
		wmt_oob_msg_free(&m);
	}
out_target:
	wmt_target_destroy(&s->t);
out:
	free(s->local);
	s->local = NULL;
	return ret;
}

static int serve(struct server *s)
{
	uint8_t hello[WMT_HELLO_LEN];
	struct wmt_oob_msg m;
	int ret;

	ret = wmt_oob_recv(&s->oob, OOB_BIT(OOB_HELLO), &m);
	if (ret == PERFTEST_EXIT_VERSION || ret == PERFTEST_EXIT_PROTOCOL)
		return give_up(s, ret);
	if (ret)
		return ret;
	ret = wmt_hello_check(&m, ROLE_WIRE_CLIENT);
	wmt_oob_msg_free(&m);
	if (ret)
		return malformed(s, "HELLO", "not an ib_write_mt client");
	ret = wmt_oob_send(&s->oob, OOB_HELLO, hello,
			   wmt_hello_build(hello, sizeof(hello),
					   ROLE_WIRE_SERVER));
	while (!ret) {
		ret = wmt_oob_recv(&s->oob,
				   OOB_BIT(OOB_SETUP) | OOB_BIT(OOB_BYE), &m);
		if (ret == PERFTEST_EXIT_PROTOCOL)
			return give_up(s, ret);
		if (ret)
			break;
		if (m.type == OOB_BYE) {
			ret = m.len ? malformed(s, "BYE",
						"unexpected payload") :
				      0;
			wmt_oob_msg_free(&m);
			return ret;
		}
		ret = serve_row(s, &m);
		wmt_oob_msg_free(&m);
	}
	return ret;
}

int wmt_server_main(const struct wmt_options *o, struct ibv_device *dev)
{
	struct server s = { .o = o, .dev = dev, .oob.fd = -1 };
	char err[256];
	int lfd, ret, out;

	ret = wmt_oob_listen(o->tcp_port, &lfd, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ib_write_mt server: %s\n", err);
		return ret;
	}
	printf("ib_write_mt server: waiting for a client on TCP port %u\n",
	       o->tcp_port);
	s.oob.peer = "the client";
	s.oob.timeout_ms = o->peer_timeout * 1000;
	ret = wmt_oob_accept(&s.oob, lfd, o->connect_timeout);
	close(lfd);
	if (!ret)
		ret = serve(&s);
	if (ret && s.oob.err[0])
		fprintf(stderr, "ib_write_mt server: %s\n", s.oob.err);
	wmt_oob_close(&s.oob);
	print_table(&s);
	out = write_json(&s, !ret);
	free(s.rows);
	return ret ? ret : out;
}
