// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Message rate of the emulated device: 8-byte inline RDMA WRITEs on one RC
 * QP, posted 32 per ibv_post_send, one signaled in 64, BlueFlame left on.
 * Loopback: both QPs in this process. Cross-process: the target QP lives
 * in a forked child with its own device context, so every write crosses
 * the fabric between two emulator instances.
 *
 *   mlx5emu run -- emu_write_rate [--mode=loopback|cross] [--seconds=N]
 *
 * A benchmark, not a test: it prints the rate and how to reproduce it.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "mono_clock.h"
#include "rc_connect.h"

#define LIST 32
#define SIGNAL_EVERY 64
#define SQ_DEPTH 1024
#define MSG 8

struct end {
	struct rc_addr self;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char buf[4096];
};

struct wire {
	struct rc_addr rc;
	uint32_t rkey;
	uint64_t addr;
};

static void die(const char *what)
{
	fprintf(stderr, "emu_write_rate: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void end_open(struct end *e)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SQ_DEPTH,
			 .max_recv_wr = 1,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = MSG },
	};

	if (!list || !list[0])
		die("no device (run under mlx5emu run)");
	e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!e->ctx)
		die("ibv_open_device");
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, SQ_DEPTH, NULL, NULL, 0);
	e->mr = ibv_reg_mr(e->pd, e->buf, sizeof(e->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!e->pd || !e->cq || !e->mr)
		die("pd/cq/mr");
	qa.send_cq = qa.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &qa);
	if (!e->qp)
		die("ibv_create_qp");
	if (rc_qp_init(e->qp, 1, IBV_ACCESS_REMOTE_WRITE))
		die("modify INIT");
}

static void end_wire(struct end *e, struct wire *w)
{
	if (rc_port_addr(e->ctx, 1, -1, &e->self))
		die("query_port");
	e->self.qpn = e->qp->qp_num;
	w->rc = e->self;
	w->rkey = e->mr->rkey;
	w->addr = (uintptr_t)e->buf;
}

static void end_connect(struct end *e, const struct wire *peer)
{
	if (rc_qp_connect(e->qp, 1, -1, &e->self, &peer->rc))
		die("modify RTR/RTS");
}

/* Post lists of 32 for `seconds`; returns messages completed. */
static uint64_t blast(struct end *e, const struct wire *peer, double seconds,
		      double *elapsed)
{
	struct ibv_send_wr wr[LIST], *bad;
	struct ibv_sge sge[LIST];
	uint64_t posted = 0, done = 0, val = 0;
	struct ibv_wc wc[16];
	double t0 = mono_now(), t;
	unsigned int polls = 0;
	int i, n;

	for (i = 0; i < LIST; i++) {
		sge[i].addr = (uintptr_t)&val;
		sge[i].length = MSG;
		sge[i].lkey = 0;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].wr.rdma.remote_addr = peer->addr + (i % 64) * MSG;
		wr[i].wr.rdma.rkey = peer->rkey;
		wr[i].next = i + 1 < LIST ? &wr[i + 1] : NULL;
	}
	for (;;) {
		while (posted - done <= SQ_DEPTH - LIST) {
			for (i = 0; i < LIST; i++) {
				wr[i].send_flags = IBV_SEND_INLINE;
				if ((posted + i + 1) % SIGNAL_EVERY == 0)
					wr[i].send_flags |= IBV_SEND_SIGNALED;
			}
			val++;
			if (ibv_post_send(e->qp, wr, &bad))
				die("ibv_post_send");
			posted += LIST;
		}
		n = ibv_poll_cq(e->cq, 16, wc);
		/* 2 cores shared with the NIC thread: don't starve it */
		if (!n)
			sched_yield();
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "completion error %s\n",
					ibv_wc_status_str(wc[i].status));
				exit(1);
			}
			done += SIGNAL_EVERY;
		}
		if (++polls & 255)
			continue;
		t = mono_now();
		if (t - t0 >= seconds)
			break;
	}
	/* drain: every signaled WQE completes */
	while (done < posted - posted % SIGNAL_EVERY) {
		n = ibv_poll_cq(e->cq, 16, wc);
		done += (uint64_t)(n > 0 ? n : 0) * SIGNAL_EVERY;
	}
	*elapsed = t - t0;
	return done;
}

static void report(const char *mode, uint64_t msgs, double secs,
		   const char *argv0, double seconds)
{
	const char *uar = getenv("MLX5EMU_UAR");

	printf("%-9s %.2f Mmsg/s (%llu 8-byte inline RDMA writes in %.2f s, post list %d, 1 signaled in %d)\n",
	       mode, msgs / secs / 1e6, (unsigned long long)msgs, secs, LIST,
	       SIGNAL_EVERY);
	printf("  reproduce: MLX5EMU_NIC=spin mlx5emu run --uar=%s -- %s --mode=%s --seconds=%g\n",
	       uar ? uar : "dynamic", argv0, mode, seconds);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 's' },
		{}
	};
	const char *mode = "both";
	double seconds = 2, secs;
	struct wire wa, wb;
	uint64_t msgs;
	int c, sv[2];

	while ((c = getopt_long(argc, argv, "m:s:", opts, NULL)) != -1) {
		if (c == 'm')
			mode = optarg;
		else if (c == 's')
			seconds = atof(optarg);
		else
			return 2;
	}
	/* a throughput run: the NIC thread spins instead of backing off */
	setenv("MLX5EMU_NIC", "spin", 0);

	/* fork before this process touches the device: the child needs
	 * a NIC thread and a fabric slot of its own */
	if (!strcmp(mode, "cross") || !strcmp(mode, "both")) {
		pid_t pid;
		char ok;

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			die("socketpair");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			/* a separate process with its own device context */
			struct end *b = calloc(1, sizeof(*b));

			end_open(b);
			end_wire(b, &wb);
			if (write(sv[1], &wb, sizeof(wb)) != sizeof(wb) ||
			    read(sv[1], &wa, sizeof(wa)) != sizeof(wa))
				die("exchange");
			end_connect(b, &wa);
			ok = 1;
			if (write(sv[1], &ok, 1) != 1 ||
			    read(sv[1], &ok, 1) < 0)
				die("exchange");
			_exit(0);
		}
		struct end *a = calloc(1, sizeof(*a));

		end_open(a);
		end_wire(a, &wa);
		if (read(sv[0], &wb, sizeof(wb)) != sizeof(wb) ||
		    write(sv[0], &wa, sizeof(wa)) != sizeof(wa) ||
		    read(sv[0], &ok, 1) != 1)
			die("exchange");
		end_connect(a, &wb);
		msgs = blast(a, &wb, seconds, &secs);
		report("cross", msgs, secs, argv[0], seconds);
		if (write(sv[0], &ok, 1) != 1)
			die("exchange");
		waitpid(pid, NULL, 0);
	}
	if (!strcmp(mode, "loopback") || !strcmp(mode, "both")) {
		struct end *a = calloc(1, sizeof(*a)),
			   *b = calloc(1, sizeof(*b));

		end_open(a);
		end_open(b);
		end_wire(a, &wa);
		end_wire(b, &wb);
		end_connect(a, &wb);
		end_connect(b, &wa);
		msgs = blast(a, &wb, seconds, &secs);
		report("loopback", msgs, secs, argv[0], seconds);
		fflush(stdout);
	}
	return 0;
}
