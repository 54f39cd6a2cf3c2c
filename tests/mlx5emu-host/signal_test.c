// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Signals and the emulator, run under `mlx5emu run`: a signal sent to the
 * process never runs on a thread of the emulator, and a blocking read of
 * a completion channel or of the async event file behaves as the
 * kernel's: EINTR after a handler without SA_RESTART, restarted after one
 * with it.
 */
#define _GNU_SOURCE /* gettid() */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"
#include "rc_loop.h"

#define KICKS 50 /* signals sent before the helper makes the event come */

static volatile sig_atomic_t handled;
static volatile pid_t handled_on;

static void on_signal(int sig)
{
	(void)sig;
	handled++;
	handled_on = gettid();
}

static void handle(int sig, int flags)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = flags };

	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(sig, &sa, NULL), 0);
	handled = 0;
	handled_on = 0;
}

/* a loopback RC pair on one CQ, with a channel, and memory to write to */
struct loop {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	char buf[64];
};

static void loop_open(struct loop *l)
{
	memset(l, 0, sizeof(*l));
	l->ctx = emu_test_open();
	l->pd = ibv_alloc_pd(l->ctx);
	assert_non_null(l->pd);
	l->ch = ibv_create_comp_channel(l->ctx);
	assert_non_null(l->ch);
	l->cq = ibv_create_cq(l->ctx, 16, NULL, l->ch, 0);
	assert_non_null(l->cq);
	l->a = rc_loop_create_qp(l->pd, l->cq, 8);
	l->b = rc_loop_create_qp(l->pd, l->cq, 8);
	assert_non_null(l->a);
	assert_non_null(l->b);
	rc_loop_connect(l->a, l->b);
	l->mr = ibv_reg_mr(l->pd, l->buf, sizeof(l->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(l->mr);
}

static void loop_close(struct loop *l)
{
	ibv_dereg_mr(l->mr);
	ibv_destroy_qp(l->a);
	ibv_destroy_qp(l->b);
	ibv_destroy_cq(l->cq);
	ibv_destroy_comp_channel(l->ch);
	ibv_dealloc_pd(l->pd);
	ibv_close_device(l->ctx);
}

/* a signaled RDMA WRITE from a to b; a bad rkey breaks b (async event) */
static void loop_write(struct loop *l, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)l->buf, 8, l->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)l->buf + 32, rkey },
	}, *bad;

	assert_int_equal(ibv_post_send(l->a, &wr, &bad), 0);
}

/* ---- a signal to the process lands on an application thread ---- */

static bool blocks(const char *sigblk, int sig)
{
	unsigned long long mask = strtoull(sigblk, NULL, 16);

	return mask & (1ull << (sig - 1));
}

static void test_emulator_threads_block_signals(void **state)
{
	static const int sigs[] = { SIGALRM, SIGCHLD, SIGPIPE, SIGINT,
				    SIGTERM, SIGUSR1, SIGUSR2, SIGHUP };
	char path[300], line[256];
	unsigned int others = 0, i;
	struct dirent *d;
	struct ibv_wc wc;
	struct loop l;
	DIR *dir;

	(void)state;
	loop_open(&l);
	/* a completion: the NIC thread is past its start, mask and all */
	loop_write(&l, l.mr->rkey);
	while (!ibv_poll_cq(l.cq, 1, &wc))
		;
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	dir = opendir("/proc/self/task");
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.' || atoi(d->d_name) == getpid())
			continue;
		others++;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
			 d->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "SigBlk:", 7))
				break;
		fclose(f);
		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (!blocks(line + 7, sigs[i]))
				fail_msg("thread %s takes signal %d (%s)",
					 d->d_name, sigs[i], line);
	}
	closedir(dir);
	assert_true(others >= 1);
	loop_close(&l);
}

/*
 * With the signal blocked by the application's only thread, the kernel
 * may deliver it to no other: it stays pending until that thread takes it.
 */
static void test_process_signal_waits_for_the_application(void **state)
{
	sigset_t usr1, pending;
	struct loop l;
	int i;

	(void)state;
	loop_open(&l);
	handle(SIGUSR1, SA_RESTART);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, &usr1, NULL), 0);
	assert_int_equal(kill(getpid(), SIGUSR1), 0);
	/* an emulator thread taking it would do so at once */
	for (i = 0; i < 20 && !handled; i++)
		usleep(10000);
	assert_int_equal(handled, 0);
	assert_int_equal(sigpending(&pending), 0);
	assert_true(sigismember(&pending, SIGUSR1));
	assert_int_equal(pthread_sigmask(SIG_UNBLOCK, &usr1, NULL), 0);
	assert_int_equal(handled, 1);
	assert_int_equal(handled_on, gettid());
	loop_close(&l);
}

/* ---- blocking event reads ---- */

struct kicker {
	pthread_t reader, t;
	struct loop *l;
	bool async; /* the rescue: an async event, else a completion */
	int kicks;
	volatile bool done;
};

/*
 * Signal the reader KICKS times (or until it returned), then make the
 * event it waits for come, so a read that never fails still ends.
 */
static void *kick(void *arg)
{
	struct kicker *k = arg;
	int i;

	for (i = 0; i < k->kicks && !k->done; i++) {
		pthread_kill(k->reader, SIGALRM);
		usleep(20000);
	}
	if (!k->done)
		loop_write(k->l,
			   k->async ? k->l->mr->rkey + 0x100 : k->l->mr->rkey);
	return NULL;
}

static void kicker_start(struct kicker *k, struct loop *l, bool async,
			 int kicks)
{
	memset(k, 0, sizeof(*k));
	k->reader = pthread_self();
	k->l = l;
	k->async = async;
	k->kicks = kicks;
	assert_int_equal(pthread_create(&k->t, NULL, kick, k), 0);
}

static void kicker_stop(struct kicker *k)
{
	k->done = true;
	pthread_join(k->t, NULL);
}

static int read_cq_event(struct loop *l)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	int ret = ibv_get_cq_event(l->ch, &cq, &cq_ctx);

	if (!ret)
		ibv_ack_cq_events(cq, 1);
	return ret;
}

static void test_comp_read_eintr_without_restart(void **state)
{
	struct kicker k;
	struct loop l;
	int ret, err;

	(void)state;
	loop_open(&l);
	assert_int_equal(ibv_req_notify_cq(l.cq, 0), 0);
	handle(SIGALRM, 0);
	kicker_start(&k, &l, false, KICKS);
	ret = read_cq_event(&l);
	err = errno;
	kicker_stop(&k);
	assert_int_equal(ret, -1);
	assert_int_equal(err, EINTR);
	assert_true(handled >= 1);
	loop_close(&l);
}

static void test_comp_read_restarts_with_sa_restart(void **state)
{
	struct kicker k;
	struct loop l;
	int ret;

	(void)state;
	loop_open(&l);
	assert_int_equal(ibv_req_notify_cq(l.cq, 0), 0);
	handle(SIGALRM, SA_RESTART);
	kicker_start(&k, &l, false, 5);
	ret = read_cq_event(&l);
	kicker_stop(&k);
	assert_int_equal(ret, 0);
	assert_int_equal(handled, 5);
	loop_close(&l);
}

static void test_async_read_eintr_without_restart(void **state)
{
	struct ibv_async_event ev;
	struct kicker k;
	struct loop l;
	int ret, err;

	(void)state;
	loop_open(&l);
	handle(SIGALRM, 0);
	kicker_start(&k, &l, true, KICKS);
	ret = ibv_get_async_event(l.ctx, &ev);
	err = errno;
	kicker_stop(&k);
	if (!ret)
		ibv_ack_async_event(&ev);
	assert_int_equal(ret, -1);
	assert_int_equal(err, EINTR);
	loop_close(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_emulator_threads_block_signals),
		cmocka_unit_test(test_process_signal_waits_for_the_application),
		cmocka_unit_test(test_comp_read_eintr_without_restart),
		cmocka_unit_test(test_comp_read_restarts_with_sa_restart),
		cmocka_unit_test(test_async_read_eintr_without_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
