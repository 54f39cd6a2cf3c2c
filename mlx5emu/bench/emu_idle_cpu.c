// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What an idle emulated process costs: a loopback pair of connected RC
 * QPs that exchange one RDMA WRITE (so the NIC thread runs and has
 * doorbells to watch), then nothing for --seconds. Prints the CPU time
 * the whole process used while idle, as a share of one core.
 *
 *   mlx5emu run -- emu_idle_cpu [--seconds=N]
 *
 * A benchmark, not a test: it prints the figure and how to reproduce it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "mono_clock.h"
#include "rc_connect.h"

static void die(const char *what)
{
	fprintf(stderr, "emu_idle_cpu: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* seconds of CPU the whole process used: the NIC thread's included */
static double process_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* one signaled write from a to b's buffer, waited for */
static void write_once(struct ibv_qp *a, struct ibv_cq *cq, struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr,
			       .length = 8,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_wc wc;
	int n;

	wr.wr.rdma.remote_addr = (uintptr_t)mr->addr + 64;
	wr.wr.rdma.rkey = mr->rkey;
	if (ibv_post_send(a, &wr, &bad))
		die("ibv_post_send");
	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		usleep(100);
	if (n < 0 || wc.status != IBV_WC_SUCCESS)
		die("the write did not complete");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' }, {}
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	static char buf[4096];
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_qp *a, *b;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	double seconds = 5, cpu0, wall0, cpu, wall;
	int c;

	while ((c = getopt_long(argc, argv, "s:", opts, NULL)) != -1) {
		if (c != 's')
			return 2;
		seconds = atof(optarg);
	}
	list = ibv_get_device_list(NULL);
	if (!list || !list[0])
		die("no device (run under mlx5emu run)");
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!ctx)
		die("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf),
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) :
		  NULL;
	if (!cq || !mr)
		die("pd/cq/mr");
	qa.send_cq = qa.recv_cq = cq;
	a = ibv_create_qp(pd, &qa);
	b = ibv_create_qp(pd, &qa);
	if (!a || !b)
		die("ibv_create_qp");
	errno = rc_connect_pair(a, b, 1, IBV_ACCESS_REMOTE_WRITE);
	if (errno)
		die("connect");
	write_once(a, cq, mr);

	cpu0 = process_cpu_s();
	wall0 = mono_now();
	while (mono_now() - wall0 < seconds)
		usleep(100000);
	cpu = process_cpu_s() - cpu0;
	wall = mono_now() - wall0;

	printf("idle      %.2f%% of a core (%.3f s of CPU in %.1f s, 2 RC QPs, no traffic)\n",
	       100 * cpu / wall, cpu, wall);
	printf("  reproduce: mlx5emu run -- %s --seconds=%g\n", argv[0],
	       seconds);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
