// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbells rung while the NIC thread sleeps (mlx5emu/src/nic/engine/
 * doorbell_trap.c), run under `mlx5emu run`: while the NIC thread sleeps,
 * the page a QP rings is write-protected (pagemap says so), and a doorbell
 * rung on it then is executed; device memory is refused where the kernel
 * refuses it, so that neither a command nor the NIC thread ever writes
 * into a protected page. With MLX5EMU_DOORBELL_TRAP=off no page is
 * protected. In the signal mode (opt-in) the doorbell's fault is a
 * SIGBUS the emulator shares with the application: a thread that blocks
 * every signal still rings, and the application's own SIGBUS handler, or
 * the default action, still sees every SIGBUS that is not a doorbell;
 * so is a SIGBUS on a file page mapped where a closed device's doorbell
 * page was; a doorbell rung on the page a fault opened is served too. The NIC
 * thread runs on the CPU where doorbells fault, and gets its CPUs back
 * when the application streams (mlx5emu/src/nic/engine/placement.c).
 *
 *   mlx5emu run -- mlx5emu-host-doorbell-trap-test
 */
#define _GNU_SOURCE /* memfd_create */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <linux/userfaultfd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>
#include <rdma/ib_user_verbs.h>

#include "emu_test.h"
#include "rc_loop.h"
#include "trap_loop.h"

#define WAIT_S 20 /* for the NIC thread to fall asleep: a hang guard */

/*
 * n signaled RDMA WRITEs of v from a into b's buf[4], posted at once, and
 * their completions
 */
static void loop_burst(struct loop *l, unsigned int n, uint64_t v)
{
	struct ibv_sge sge = { (uintptr_t)&l->buf[0], 8, l->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)&l->buf[4], l->mr->rkey },
	}, *bad;
	struct ibv_wc wc;
	unsigned int i, done = 0;

	l->buf[0] = v;
	for (i = 0; i < n; i++)
		assert_int_equal(ibv_post_send(l->a, &wr, &bad), 0);
	while (done < n) {
		if (!ibv_poll_cq(l->cq, 1, &wc))
			continue;
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		done++;
	}
	assert_true(l->buf[4] == v);
}

/* a single one */
static void loop_write(struct loop *l, uint64_t v)
{
	loop_burst(l, 1, v);
}

static bool write_protected(uintptr_t addr)
{
	int wp = loop_page_protected(addr);

	assert_true(wp >= 0);
	return wp;
}

/* does the kernel have userfaultfd write protection of shared memory? */
static bool kernel_traps(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_WP_HUGETLBFS_SHMEM,
	};
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* USER_MODE_ONLY */);
	bool ok = fd >= 0 && !ioctl(fd, UFFDIO_API, &api);

	if (fd >= 0)
		close(fd);
	return ok;
}

static bool trap_expected(void)
{
	const char *v = getenv("MLX5EMU_DOORBELL_TRAP");

	return !(v && !strcmp(v, "off")) && kernel_traps();
}

/* is the doorbell's fault a SIGBUS (the signal mode, opt-in)? */
static bool signal_expected(void)
{
	const char *v = getenv("MLX5EMU_DOORBELL_TRAP");

	return trap_expected() && v && !strcmp(v, "signal");
}

/* true once the page is protected, false if it stays open for WAIT_S */
static bool wait_protected(uintptr_t addr)
{
	time_t end = time(NULL) + WAIT_S;

	while (!write_protected(addr))
		if (time(NULL) > end)
			return false;
		else
			usleep(10000);
	return true;
}

/* ---- a sleeping NIC is woken by the doorbell store itself ---- */

static void test_sleeping_nic_protects_and_serves_doorbells(void **state)
{
	struct loop l;
	uint64_t i;

	(void)state;
	if (!trap_expected())
		skip();
	loop_open(&l);
	loop_write(&l, 1);
	for (i = 2; i < 12; i++) {
		/* asleep with the register's page protected ... */
		assert_true(wait_protected(l.reg));
		/* ... and the store that rings it completes the write */
		loop_write(&l, i);
	}
	loop_close(&l);
}

static void test_trap_off_protects_nothing(void **state)
{
	struct loop l;

	(void)state;
	if (trap_expected())
		skip();
	loop_open(&l);
	loop_write(&l, 1);
	usleep(300000);
	assert_false(write_protected(l.reg));
	loop_write(&l, 2);
	loop_close(&l);
}

/*
 * In the signal mode the fault's handler leaves the page writable until
 * the NIC thread next wakes: a doorbell rung again on it before that
 * faults no more and is found when the thread's timer ends its sleep. The
 * timer's delay adapts, shorter after it found such a doorbell, longer
 * after it found none; both kinds of round come here.
 */
static void test_doorbell_on_opened_page_is_served(void **state)
{
	struct loop l;
	uint64_t i;

	(void)state;
	if (!signal_expected())
		skip();
	loop_open(&l);
	loop_write(&l, 1);
	for (i = 0; i < 40; i++) {
		assert_true(wait_protected(l.reg));
		/* faults, and the handler opens the page */
		loop_write(&l, 2 * i + 2);
		/* rung on the open page, but for one round in four */
		if (i % 4)
			loop_write(&l, 2 * i + 3);
	}
	loop_close(&l);
}

/* ---- the NIC thread runs where doorbells fault ---- */

/* the NIC thread's tid, by the name it gives itself */
static pid_t nic_tid(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	pid_t tid = 0;

	assert_non_null(d);
	while (!tid && (e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strcmp(comm, "mlx5emu-nic\n"))
			tid = atoi(e->d_name);
		fclose(f);
	}
	closedir(d);
	assert_true(tid > 0);
	return tid;
}

static void pin_self(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
}

/* is the NIC thread bound to cpu alone, after doorbells faulted there? */
static bool nic_follows(struct loop *l, pid_t nic, int cpu, uint64_t *v)
{
	cpu_set_t set;
	int i;

	pin_self(cpu);
	for (i = 0; i < 20; i++) {
		assert_true(wait_protected(l->reg));
		loop_write(l, ++*v);
		/* its page protected again: the thread saw the lift */
		assert_true(wait_protected(l->reg));
		assert_int_equal(sched_getaffinity(nic, sizeof(set), &set), 0);
		if (CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set))
			return true;
	}
	return false;
}

/*
 * A wake-up or a TLB shootdown that crosses CPUs costs tens of
 * microseconds on a small virtual machine: while doorbells fault, the
 * NIC thread runs on the CPU they fault on, and follows the application
 * when it moves. An application that streams gets it back beside itself,
 * on the CPUs it started with.
 */
static void test_nic_thread_runs_where_doorbells_fault(void **state)
{
	cpu_set_t start, set;
	int cpus[2], n = 0, c, i;
	uint64_t v = 1;
	struct loop l;
	pid_t nic;

	(void)state;
	if (!signal_expected())
		skip();
	assert_int_equal(sched_getaffinity(0, sizeof(start), &start), 0);
	for (c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &start))
			cpus[n++] = c;
	if (n < 2)
		skip();
	loop_open(&l);
	loop_write(&l, v);
	nic = nic_tid();
	assert_true(nic_follows(&l, nic, cpus[1], &v));
	assert_true(nic_follows(&l, nic, cpus[0], &v));
	/* a burst posted on the page its fault opened: a stream */
	for (i = 0; i < 20; i++) {
		assert_true(wait_protected(l.reg));
		loop_burst(&l, 7, ++v);
		assert_int_equal(sched_getaffinity(nic, sizeof(set), &set), 0);
		if (CPU_EQUAL(&set, &start))
			break;
	}
	assert_true(CPU_EQUAL(&set, &start));
	assert_int_equal(sched_setaffinity(0, sizeof(start), &start), 0);
	loop_close(&l);
}

/* ---- the signal mode: SIGBUS shared with the application ---- */

static void *ring_with_every_signal_blocked(void *arg)
{
	struct loop *l = arg;
	sigset_t all, now;
	uint64_t i;

	sigfillset(&all);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, &all, NULL), 0);
	assert_int_equal(sigprocmask(SIG_SETMASK, &all, NULL), 0);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, NULL, &now), 0);
	/* blocked, a doorbell's fault would kill the process */
	assert_false(sigismember(&now, SIGBUS));
	assert_true(sigismember(&now, SIGUSR1));
	for (i = 2; i < 6; i++) {
		assert_true(wait_protected(l->reg));
		loop_write(l, i);
	}
	return NULL;
}

/* UCX's async thread blocks every signal, and rings doorbells */
static void test_thread_blocking_every_signal_rings(void **state)
{
	pthread_t t;
	struct loop l;

	(void)state;
	if (!signal_expected())
		skip();
	loop_open(&l);
	loop_write(&l, 1);
	assert_int_equal(pthread_create(&t, NULL,
					ring_with_every_signal_blocked, &l),
			 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	loop_close(&l);
}

/* a page past the end of its file: touching it is a real SIGBUS */
static volatile char *bus_error_page(void)
{
	int fd = memfd_create("sigbus", MFD_CLOEXEC);
	void *p;

	assert_true(fd >= 0);
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	close(fd);
	assert_true(p != MAP_FAILED);
	return p;
}

static sigjmp_buf bus_jump;
static void *bus_addr;

static void app_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	bus_addr = si->si_addr;
	siglongjmp(bus_jump, 1);
}

static void test_application_sigbus_handler_still_runs(void **state)
{
	struct sigaction act = { .sa_sigaction = app_sigbus,
				 .sa_flags = SA_SIGINFO },
			 old, seen;
	volatile char *bad = bus_error_page();
	struct loop l;

	(void)state;
	loop_open(&l);
	loop_write(&l, 1);
	assert_int_equal(sigaction(SIGBUS, &act, &old), 0);
	/* the application sees its own handler installed */
	assert_int_equal(sigaction(SIGBUS, NULL, &seen), 0);
	assert_ptr_equal(seen.sa_sigaction, app_sigbus);
	bus_addr = NULL;
	if (!sigsetjmp(bus_jump, 1))
		bad[0] = 1;
	assert_ptr_equal(bus_addr, bad);
	/* and doorbells still fault into the emulator, not into it */
	if (trap_expected())
		assert_true(wait_protected(l.reg));
	loop_write(&l, 2);
	assert_int_equal(sigaction(SIGBUS, &old, NULL), 0);
	munmap((void *)bad, sysconf(_SC_PAGESIZE));
	loop_close(&l);
}

/*
 * The page of a closed device's doorbell, now a file page past the end of
 * its file: a store there is the application's SIGBUS, not a doorbell
 * that raced with the page's removal. SIGALRM guards against a SIGBUS
 * swallowed for ever (the store faulting again and again).
 */
static void test_sigbus_where_uar_was_reaches_application(void **state)
{
	struct sigaction act = { .sa_sigaction = app_sigbus,
				 .sa_flags = SA_SIGINFO },
			 old;
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *bad;
	struct loop l;
	uintptr_t page;
	void *p;
	int fd;

	(void)state;
	if (!signal_expected())
		skip();
	loop_open(&l);
	loop_write(&l, 1);
	assert_true(wait_protected(l.reg));
	page = l.reg & ~(uintptr_t)(ps - 1);
	loop_close(&l);
	fd = memfd_create("where-uar-was", MFD_CLOEXEC);
	assert_true(fd >= 0);
	p = mmap((void *)page, ps, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	close(fd);
	if (p != (void *)page)
		skip(); /* the page is still mapped, or the kernel moved it */
	bad = p;
	assert_int_equal(sigaction(SIGBUS, &act, &old), 0);
	bus_addr = NULL;
	alarm(10);
	if (!sigsetjmp(bus_jump, 1))
		bad[0] = 1;
	alarm(0);
	assert_ptr_equal(bus_addr, bad);
	assert_int_equal(sigaction(SIGBUS, &old, NULL), 0);
	munmap(p, ps);
}

/* SIG_DFL: a SIGBUS that is no doorbell kills, with SIGBUS */
static void test_default_sigbus_still_kills(void **state)
{
	volatile char *bad = bus_error_page();
	struct loop l;
	pid_t pid;
	int status;

	(void)state;
	loop_open(&l);
	loop_write(&l, 1);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		signal(SIGBUS, SIG_DFL);
		bad[0] = 1;
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
	loop_write(&l, 2);
	munmap((void *)bad, sysconf(_SC_PAGESIZE));
	loop_close(&l);
}

/* ---- device memory: refused where get_user_pages() refuses it ---- */

static void test_mr_on_uar_page_is_efault(void **state)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct ibv_mr *mr;
	struct loop l;

	(void)state;
	loop_open(&l);
	errno = 0;
	mr = ibv_reg_mr(l.pd, (void *)(l.reg & ~(uintptr_t)(ps - 1)), ps,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_null(mr);
	assert_int_equal(errno, EFAULT);
	/* read-only, too: no umem on device memory */
	mr = ibv_reg_mr(l.pd, (void *)(l.reg & ~(uintptr_t)(ps - 1)), ps, 0);
	assert_null(mr);
	assert_int_equal(errno, EFAULT);
	/* the device still works, its NIC thread unharmed */
	loop_write(&l, 7);
	loop_close(&l);
}

/*
 * A command whose response lands on the page a QP rings: written by an
 * application thread inside the emulator, it would wait for the NIC thread
 * to lift the protection while holding what the NIC thread needs.
 */
static void test_response_into_uar_page_is_efault(void **state)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_alloc_pd core;
	} cmd = {};
	struct loop l;

	(void)state;
	loop_open(&l);
	loop_write(&l, 1);
	if (trap_expected())
		assert_true(wait_protected(l.reg));
	cmd.hdr.command = IB_USER_VERBS_CMD_ALLOC_PD;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(struct ib_uverbs_alloc_pd_resp) / 4;
	cmd.core.response = (l.reg & ~(uintptr_t)(ps - 1)) + 0x100;
	errno = 0;
	assert_int_equal(write(l.ctx->cmd_fd, &cmd, sizeof(cmd)), -1);
	assert_int_equal(errno, EFAULT);
	loop_write(&l, 3);
	loop_close(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_sleeping_nic_protects_and_serves_doorbells),
		cmocka_unit_test(test_trap_off_protects_nothing),
		cmocka_unit_test(test_doorbell_on_opened_page_is_served),
		cmocka_unit_test(test_nic_thread_runs_where_doorbells_fault),
		cmocka_unit_test(test_thread_blocking_every_signal_rings),
		cmocka_unit_test(test_application_sigbus_handler_still_runs),
		cmocka_unit_test(test_sigbus_where_uar_was_reaches_application),
		cmocka_unit_test(test_default_sigbus_still_kills),
		cmocka_unit_test(test_mr_on_uar_page_is_efault),
		cmocka_unit_test(test_response_into_uar_page_is_efault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
