// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbells rung, while the NIC thread sleeps with the page protected,
 * from threads that block SIGBUS by paths the emulator does not see, and
 * from a small stack, and after the application's SIGBUS handler left by
 * siglongjmp() (issue 37, D1 and D3). In the default doorbell mode
 * each one completes. In the signal mode the fault of such a store is a
 * SIGBUS the kernel must deliver to a thread that blocks it, which kills
 * the process, and the handler's work overflows an 8 KiB stack: that mode
 * is opt-in (mlx5emu/README.md, Signals).
 *
 *   mlx5emu run -- mlx5emu-host-doorbell-masked-test [case]
 */
#define _GNU_SOURCE /* pthread_attr_setsigmask_np, sighold, memfd_create */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_test.h"
#include "trap_loop.h"

#define SMALL_STACK 8192
#define WAIT_TRIES 500 /* 10 ms each: the NIC thread falls asleep */

static struct loop l;
static volatile int done; /* completions seen by ring() */

static void pair_open(void)
{
	loop_open(&l);
	done = 0;
}

/* ring() completed its WRITE; the pair goes */
static void pair_close(void)
{
	assert_int_equal(done, 1);
	assert_true(l.buf[4] == 0x5a5a5a5a);
	loop_close(&l);
}

/*
 * One signaled WRITE and its completion, rung once the page is protected
 * (or after 5 s, where nothing protects it). Only async-signal-safe calls
 * besides the verbs: it runs in signal handlers too. No cmocka here (not
 * every context may longjmp out): the caller checks done.
 */
static void ring(void)
{
	struct ibv_sge sge = { (uintptr_t)&l.buf[0], 8, l.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)&l.buf[4], l.mr->rkey },
	}, *bad;
	struct ibv_wc wc;
	int n;

	l.buf[0] = 0x5a5a5a5a;
	for (n = 0; n < WAIT_TRIES && loop_page_protected(l.reg) != 1; n++)
		usleep(10000);
	if (ibv_post_send(l.a, &wr, &bad))
		return;
	while (!(n = ibv_poll_cq(l.cq, 1, &wc)))
		;
	if (n == 1 && wc.status == IBV_WC_SUCCESS)
		done = 1;
}

static void *ring_thread(void *arg)
{
	(void)arg;
	ring();
	return NULL;
}

/* a thread created with every signal blocked */
static void test_thread_with_full_sigmask(void **state)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all;

	(void)state;
	pair_open();
	sigfillset(&all);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setsigmask_np(&attr, &all), 0);
	assert_int_equal(pthread_create(&t, &attr, ring_thread, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&attr);
	pair_close();
}

static void timer_ring(union sigval v)
{
	(void)v;
	ring();
}

/* glibc's SIGEV_THREAD helper threads block every signal */
static void test_timer_thread_callback(void **state)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD,
				.sigev_notify_function = timer_ring };
	struct itimerspec its = { .it_value = { 0, 1000000 } };
	timer_t timer;
	int i;

	(void)state;
	pair_open();
	assert_int_equal(timer_create(CLOCK_MONOTONIC, &sev, &timer), 0);
	assert_int_equal(timer_settime(timer, 0, &its, NULL), 0);
	for (i = 0; i < 2000 && !done; i++)
		usleep(10000);
	assert_int_equal(timer_delete(timer), 0);
	pair_close();
}

static void usr1_ring(int sig)
{
	(void)sig;
	ring();
}

/* a handler whose sa_mask blocks every signal while it runs */
static void test_handler_with_full_sa_mask(void **state)
{
	struct sigaction sa = { .sa_handler = usr1_ring };

	(void)state;
	pair_open();
	sigfillset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	assert_int_equal(raise(SIGUSR1), 0);
	signal(SIGUSR1, SIG_DFL);
	pair_close();
}

/* the System V call, which does not go through sigprocmask() */
static void test_sighold(void **state)
{
	(void)state;
	pair_open();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	assert_int_equal(sighold(SIGBUS), 0);
	ring();
	assert_int_equal(sigrelse(SIGBUS), 0);
#pragma GCC diagnostic pop
	pair_close();
}

static ucontext_t main_uc, co_uc;

/* a coroutine: swapcontext() sets the mask with the raw system call */
static void test_swapcontext_full_mask(void **state)
{
	static char stack[65536];

	(void)state;
	pair_open();
	assert_int_equal(getcontext(&co_uc), 0);
	co_uc.uc_stack.ss_sp = stack;
	co_uc.uc_stack.ss_size = sizeof(stack);
	co_uc.uc_link = &main_uc;
	sigfillset(&co_uc.uc_sigmask);
	makecontext(&co_uc, ring, 0);
	assert_int_equal(swapcontext(&main_uc, &co_uc), 0);
	pair_close();
}

/* a user-level thread's stack, as Argobots or Boost.Context give one */
static void test_small_stack(void **state)
{
	char *stack = malloc(SMALL_STACK);

	(void)state;
	assert_non_null(stack);
	pair_open();
	assert_int_equal(getcontext(&co_uc), 0);
	co_uc.uc_stack.ss_sp = stack;
	co_uc.uc_stack.ss_size = SMALL_STACK;
	co_uc.uc_link = &main_uc;
	makecontext(&co_uc, ring, 0);
	assert_int_equal(swapcontext(&main_uc, &co_uc), 0);
	pair_close();
	free(stack);
}

static sigjmp_buf bus_jmp;

static void bus_escape(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/*
 * The application's SIGBUS handler (SA_NODEFER) leaves by siglongjmp()
 * without restoring a mask, as a probe of mapped files may; a doorbell
 * rung afterwards.
 */
static void test_longjmp_out_of_sigbus_handler(void **state)
{
	struct sigaction sa = { .sa_handler = bus_escape,
				.sa_flags = SA_NODEFER };
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *past;
	int fd, i;

	(void)state;
	pair_open();
	assert_int_equal(sigaction(SIGBUS, &sa, NULL), 0);
	fd = memfd_create("past-end", MFD_CLOEXEC);
	assert_true(fd >= 0);
	past = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(past != MAP_FAILED);
	for (i = 0; i < 3; i++)
		if (!sigsetjmp(bus_jmp, 0))
			past[0] = 1; /* no page behind it: SIGBUS */
	ring();
	signal(SIGBUS, SIG_DFL);
	munmap((void *)past, ps);
	close(fd);
	pair_close();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_with_full_sigmask),
		cmocka_unit_test(test_timer_thread_callback),
		cmocka_unit_test(test_handler_with_full_sa_mask),
		cmocka_unit_test(test_sighold),
		cmocka_unit_test(test_swapcontext_full_mask),
		cmocka_unit_test(test_small_stack),
		cmocka_unit_test(test_longjmp_out_of_sigbus_handler),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
