// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The NIC thread.
 *
 * One thread per process executes every QP's SQ, so all NIC work is
 * serialised by nic.lock; the control path takes the same lock, which is
 * what makes modify-to-RESET and destroy synchronous (no CQE after return).
 *
 * Doorbells are plain stores into the application's memory: the thread
 * polls SND_DBR/ARM_DB and, when idle, sleeps with growing intervals, in
 * poll() on the fabric's sockets, so that a peer's request wakes it at
 * once, and on the userfaultfd that makes a doorbell store wake it too
 * (doorbell_trap.c); in the default scheduling class only it spins a
 * little first (pace.c says why). MLX5EMU_NIC=spin
 * never sleeps (benchmarks); MLX5EMU_NIC_IDLE_US caps the sleep;
 * MLX5EMU_NIC_BUDGET=1 steps every QP one WQE per pass (determinism).
 */
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#else
#define VALGRIND_HG_DISABLE_CHECKING(addr, len) ((void)(addr), (void)(len))
#endif
#include <time.h>

#include "glue.h"
#include "fabric/fabric.h"

#define NIC_BUDGET 64 /* WQEs per QP per pass, for fairness */
#define NIC_SPIN_PASSES 256 /* idle passes before the first sleep */
#define NIC_DRAIN_PASSES 64 /* at most, for a QP being destroyed */
#define NIC_SETTLE_ROUNDS 64 /* at most, of fabric input before a CM event */
/*
 * Idle sleeps stop growing at NIC_WARM_SLEEP_US until the thread has slept
 * NIC_WARM_US in a row: traffic that pauses briefly is picked up quickly.
 * Past that they grow to MLX5EMU_NIC_IDLE_US: on a virtual machine a
 * wake-up costs tens of microseconds of CPU, and an idle process must stay
 * cheap.
 */
#define NIC_WARM_SLEEP_US 200
#define NIC_WARM_US 100000
/*
 * How long pages that rang stay writable before their protection
 * (doorbell_trap.c), unless a peer's answer ends the sleep first: long
 * enough for a round trip's next doorbell to be polled, short enough
 * that a longer cooling time does not add to every round trip
 * (bench/RESULTS.md, "Round trips on a small machine").
 */
#define NIC_TRAP_COOL_US 50
/*
 * WQEs found after a cooling sleep that make the application a stream:
 * it refilled its queue meanwhile, where a round trip posts one or two.
 */
#define NIC_TRAP_STREAM_WQES 4
/* how long a woken thread waits for a doorbell handler's unlock, at most */
#define NIC_LOCK_SPIN_NS 30000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

struct nic_engine nic = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.qps = { &nic.qps, &nic.qps },
	.cqs = { &nic.cqs, &nic.cqs },
	.handler_cpu = -1,
};

/* the thread's settings, fixed when it starts */
static struct {
	bool spin;
	unsigned int idle_max_us;
	unsigned int budget; /* WQEs per QP per pass */
	struct timespec stat_time;
} run;

/* every QP's new WQEs, up to the budget, sent; nic.lock held */
static unsigned int sq_pass(void)
{
	unsigned int work = 0;
	struct emu_list *pos, *tmp;

	emu_list_for_each_safe(pos, tmp, &nic.qps)
	{
		struct emu_nic_qp *q =
			container_of(pos, struct emu_nic_qp, node);

		nic_doorbell_watch(q);
		work += nic_sq_process(&q->nq, run.budget);
		/*
		 * Again once its CQEs are out: a thread sharing the register
		 * rings the same half next, perhaps before the next pass.
		 */
		nic_doorbell_watch(q);
	}
	fabric_flush();
	return work;
}

/* CQs armed since the last look; nic.lock held */
static unsigned int cq_arm_pass(void)
{
	unsigned int work = 0;
	struct emu_list *pos, *tmp;

	emu_list_for_each_safe(pos, tmp, &nic.cqs)
	{
		struct emu_nic_cq *c =
			container_of(pos, struct emu_nic_cq, node);

		work += nic_cq_poll_arm(c->dev, &c->nc);
	}
	return work;
}

/* the doorbells alone: what the sleep's poll() does not watch */
static unsigned int doorbell_pass(void)
{
	return sq_pass() + cq_arm_pass();
}

static unsigned int nic_pass(unsigned int *sq_work)
{
	unsigned int work = sq_pass();

	*sq_work = work;
	/*
	 * A store that faulted on a protected page waits for this; the
	 * doorbell record it follows was read above, so the frames are out
	 * first.
	 */
	nic_trap_service();
	/* an arm that comes after its CQE fires here */
	work += cq_arm_pass();
	/* peers' requests: every pass when idle, now and then when busy */
	if (!work || !(++nic.passes & 15)) {
		nic_fault_tick();
		work += fabric_serve();
	}
	return work;
}

/* does a QP wait for an answer, so that a sleeping NIC must wake for one? */
static bool answers_awaited(void)
{
	struct emu_list *pos, *tmp;

	emu_list_for_each_safe(pos, tmp, &nic.qps)
	{
		struct emu_nic_qp *q =
			container_of(pos, struct emu_nic_qp, node);

		if (nic_req_awaits_answer(&q->nq))
			return true;
	}
	return false;
}

/*
 * Rewrite the attribution file when ring or datagram counts changed, at most once a
 * second. Called with nic.lock held; drops it, since the stat writer
 * takes the stat lock and then ours.
 */
static void stat_refresh(void)
{
	struct timespec now;

	if (!nic_doorbell_dirty() && !nic_ud_counts_dirty())
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec == run.stat_time.tv_sec)
		return;
	run.stat_time = now;
	nic_doorbell_clean();
	nic_ud_counts_clean();
	pthread_mutex_unlock(&nic.lock);
	nic_host->stat_changed();
	pthread_mutex_lock(&nic.lock);
}

/*
 * Woken, the thread often finds the lock held by a doorbell's handler
 * (doorbell_trap.c) on the other CPU, for the few microseconds of one
 * pass. Blocking would make its unlock one more wake-up across CPUs, tens
 * of microseconds on a virtual machine (in a UCX ping-pong on 2 cores, a
 * third of the wake-ups were these): wait for it instead. Not for a
 * handler on this CPU, which we preempted and which cannot let go until
 * we block, nor for the control path, which may hold the lock long.
 */
static void lock_after_sleep(void)
{
	uint64_t until = 0;
	int cpu;

	while (pthread_mutex_trylock(&nic.lock)) {
		cpu = __atomic_load_n(&nic.handler_cpu, __ATOMIC_RELAXED);
		if (cpu < 0 || cpu == sched_getcpu() ||
		    (until && nic_now_ns() > until)) {
			pthread_mutex_lock(&nic.lock);
			return;
		}
		if (!until)
			until = nic_now_ns() + NIC_LOCK_SPIN_NS;
		cpu_relax();
	}
}

static void nic_sleep(unsigned int us)
{
	struct pollfd fds[FABRIC_MAX_FDS + 1];
	int n = fabric_fds(fds, FABRIC_MAX_FDS, answers_awaited());
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };
	struct pollfd *trap_fd = &fds[n];

	/* so does a doorbell, on a page protected for the purpose */
	trap_fd->fd = nic_trap_fd();
	trap_fd->events = POLLIN;
	trap_fd->revents = 0;
	if (trap_fd->fd >= 0)
		n++;

	pthread_mutex_unlock(&nic.lock);
	/* a request from a peer process ends the sleep early */
	ppoll(fds, n, &ts, NULL);
	lock_after_sleep();
	if (trap_fd->revents & POLLIN)
		nic_trap_woken();
}

static void *nic_thread(void *arg)
{
	unsigned int idle = 0, sleep_us = 1, kicks = 0, slept_us = 0;
	unsigned int work, sq_work;
	bool cooled = false; /* the last sleep let rung pages cool */
	bool lifted, fired;

	(void)arg;
	/* the back-off relies on short sleeps being short */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* for top -H, perf and the tests */
	pthread_setname_np(pthread_self(), "mlx5emu-nic");
	nic_pace_start();
	nic_place_start();
	pthread_mutex_lock(&nic.lock);
	for (;;) {
		if (!(nic.passes & 4095))
			stat_refresh();
		nic_pace_account();
		/* a doorbell's fault lifted a page while we slept */
		lifted = nic_trap_take_lift(&fired);
		work = nic_pass(&sq_work);
		if (lifted) {
			nic_trap_lift_served(fired, sq_work);
			cooled = true;
			nic_place_follow();
		}
		/* WQEs posted while the pages cooled: a stream */
		if (cooled && sq_work >= NIC_TRAP_STREAM_WQES) {
			nic_trap_stream();
			nic_place_release();
		}
		cooled = false;
		if (work) {
			idle = slept_us = 0;
			sleep_us = 1;
			continue;
		}
		if (kicks != nic.kicks) {
			kicks = nic.kicks;
			idle = slept_us = 0;
			sleep_us = 1;
			continue;
		}
		if (emu_list_empty(&nic.qps) && emu_list_empty(&nic.cqs)) {
			/* nothing to watch: wait for the control path */
			pthread_cond_wait(&nic.wake, &nic.lock);
			continue;
		}
		if (run.spin ||
		    (nic_pace_may_spin() && ++idle < NIC_SPIN_PASSES)) {
			pthread_mutex_unlock(&nic.lock);
			if (!(idle & 63))
				sched_yield();
			pthread_mutex_lock(&nic.lock);
			continue;
		}
		stat_refresh();
		/* a doorbell rung just before its page was protected */
		if (nic_trap_arm() && doorbell_pass())
			continue;
		if (nic_trap_all_armed()) {
			/* a doorbell wakes us: no need to look for one */
			nic_sleep(run.idle_max_us);
			continue;
		}
		if (nic_trap_covers_all()) {
			/*
			 * Pages that rang are cooling before their
			 * protection: one short sleep, ended early when a
			 * peer's answer comes, as it does in a round trip.
			 */
			nic_sleep(NIC_TRAP_COOL_US);
			cooled = true;
			continue;
		}
		nic_sleep(sleep_us);
		if (slept_us < NIC_WARM_US)
			slept_us += sleep_us;
		if (sleep_us < run.idle_max_us &&
		    (sleep_us < NIC_WARM_SLEEP_US || slept_us >= NIC_WARM_US))
			sleep_us *= 2;
		if (sleep_us > run.idle_max_us)
			sleep_us = run.idle_max_us;
	}
	return NULL;
}

/*
 * The doorbell trap's signal mode: the thread whose doorbell store faulted
 * (doorbell_trap.c) sends what its doorbell asked for itself, on its own
 * CPU, where waking this thread would cost two switches between threads.
 * It must not wait: the lock may be held by the thread it interrupted.
 * False if the lock was taken; its holder's pass, or the NIC thread's
 * next one, sees the doorbell record.
 */
bool nic_serve_doorbells(void)
{
	if (pthread_mutex_trylock(&nic.lock))
		return false;
	__atomic_store_n(&nic.handler_cpu, sched_getcpu(), __ATOMIC_RELAXED);
	sq_pass();
	__atomic_store_n(&nic.handler_cpu, -1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&nic.lock);
	return true;
}

/*
 * fork(): the child has no NIC thread and a copy of our lock in whatever
 * state the thread left it. The parent's contexts are dead in the child,
 * so start from nothing; a context it opens gets a NIC and a fabric slot
 * of its own.
 */
/* the NIC thread takes dev->lock only inside nic.lock: hold that */
static void nic_atfork_prepare(void)
{
	pthread_mutex_lock(&nic.lock);
}

static void nic_atfork_parent(void)
{
	pthread_mutex_unlock(&nic.lock);
}

static void nic_atfork_child(void)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

	nic.lock = lock;
	nic.wake = wake;
	nic.started = false;
	nic.handler_cpu = -1;
	emu_list_init(&nic.qps);
	emu_list_init(&nic.cqs);
	nic_doorbell_forget();
	nic_ud_counts_forget();
	nic_trap_forked();
	fabric_atfork_child();
}

static const struct emu_fork_hook nic_fork = {
	.prepare = nic_atfork_prepare,
	.parent = nic_atfork_parent,
	.child = nic_atfork_child,
};

static void read_settings(void)
{
	run.spin = emu_cfg.nic_spin;
	/* 1 makes QPs advance one WQE at a time, round robin: for tests */
	run.budget = emu_cfg.nic_budget ? emu_cfg.nic_budget : NIC_BUDGET;
	run.idle_max_us = emu_cfg.nic_idle_us ? emu_cfg.nic_idle_us : 1;
}

int nic_start(void)
{
	unsigned int i;
	int ret;

	if (nic.started)
		return 0;
	read_settings();
	for (i = 0; i < EMU_MAX_DEVICES; i++) {
		nic.dev[i].ops = &nic_emu_ops;
		nic.dev[i].faults = nic_fault_setup();
		nic.dev[i].lid = nic_host->devices[i].port[0].lid;
		nic.dev[i].index = i;
	}
	ret = fabric_init(&nic_fabric_ops);
	if (ret)
		return ret;
	if (!nic.atfork) {
		emu_fork_register(&nic_fork);
		nic.atfork = true;
	}
	ret = emu_thread_start(nic_thread, NULL);
	if (ret)
		return ret;
	nic.started = true;
	return 0;
}

/*
 * Under helgrind: the NIC reads WQEs and doorbell records and writes CQEs
 * as a device does, ordered by doorbells and owner bits no race detector
 * follows. No suppression can name these accesses: helgrind reports the
 * application's (libmlx5's frames) and shows ours only as the earlier
 * conflicting one. So the rings are not checked at all; a no-op without
 * valgrind.
 */
void nic_dma_area(const void *addr, size_t len)
{
	VALGRIND_HG_DISABLE_CHECKING(addr, len);
}

/*
 * An HCA fetches a WQE within microseconds of its doorbell, long before a
 * destroy command reaches its firmware; the NIC thread may sleep or wait
 * for a CPU for much longer. So the sends a QP rang for go out before it
 * is destroyed: a UD acknowledgement posted just before ibv_destroy_qp
 * (libfabric's ofi_rxd at exit) is not lost. Answers to RC requests sent
 * here find no QP and are dropped, as they would be.
 */
void nic_drain_sq(struct emu_nic_qp *q)
{
	unsigned int i;

	if (q->nq.state != NIC_QPS_RTS)
		return;
	/* a pass sends a window's worth; RC's answers never come here */
	for (i = 0; i < NIC_DRAIN_PASSES; i++)
		if (!nic_sq_process(&q->nq, UINT_MAX))
			break;
	fabric_flush();
}

/*
 * A CM message and the fabric traffic sent before it travel on different
 * sockets, where a wire would carry them in order. A peer that
 * disconnects as soon as it received our SEND sends its DREQ right behind
 * the SEND's acknowledgement; told DISCONNECTED before we read that
 * acknowledgement, the consumer closes the QP and the SEND is flushed or
 * lost although it arrived (libfabric's ofi_rxm at teardown). So the CM
 * settles the fabric before a message leaves and after one arrives: what
 * peers sent is served, and what we owe them is written out. Called
 * without the NIC lock.
 */
void nic_settle(void)
{
	unsigned int i;

	pthread_mutex_lock(&nic.lock);
	fabric_flush();
	for (i = 0; i < NIC_SETTLE_ROUNDS && fabric_serve(); i++)
		;
	fabric_flush();
	pthread_mutex_unlock(&nic.lock);
}

void nic_kick(void)
{
	nic.kicks++;
	pthread_cond_signal(&nic.wake);
}
