// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * How soon the NIC thread runs when there is work.
 *
 * A doorbell is a plain store into a UAR page: nothing wakes the thread,
 * so it looks at the doorbell records between short sleeps, and a peer's
 * request wakes it through its socket. Either way it must then get a CPU.
 * On a 2-core machine the application's threads spin on their CQs and
 * buffers, and a woken thread of the default class waits behind them for
 * the scheduler's next tick, on both sides of a round trip. So the
 * thread asks to preempt the threads it serves when it
 * wakes, in the first of these the process may have:
 *
 *   fifo   SCHED_FIFO (root, CAP_SYS_NICE or RLIMIT_RTPRIO): a wake-up
 *          runs at once. A real-time thread that stays busy, or wakes
 *          every few microseconds, would starve the application on a small
 *          machine, so one that used more than 3/4 of a core in two
 *          10 ms windows in a row spends the next 10 ms in the default
 *          class, with the short slice below where the kernel has it.
 *   slice  a short slice of the default class (sched_attr.sched_runtime,
 *          honoured by Linux 6.12's EEVDF; no privilege): a waking task
 *          whose slice is shorter preempts the running one.
 *   other  neither: the default class, as before; said once in --trace
 *          and in `mlx5emu stat` (nic=other).
 *
 * An application that runs in a real-time class itself (chrt -f 10)
 * spins at a priority no priority-1 thread preempts: with as many
 * spinners as CPUs its NIC thread would never run. The NIC thread starts
 * in its creator's class, so it sees this, and then runs one priority
 * above it and is never demoted: demoted, it would wait behind the same
 * spinners.
 *
 * In the first two the thread never spins while idle: it would only
 * compete with the threads that are about to give it work. MLX5EMU_NIC=spin
 * (benchmarks) keeps the default class: it never sleeps, and a real-time
 * spinner would own a core. MLX5EMU_NIC_SCHED picks a class (tests,
 * benchmarks); under valgrind, which runs one thread at a time, the class
 * is left alone.
 */
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "glue.h"

#define NIC_PACE_SLICE_NS 100000 /* EEVDF's shortest slice */
#define NIC_PACE_WINDOW_NS 10000000 /* real time is granted per 10 ms */
#define NIC_PACE_FIFO_SHARE 75 /* % of a core it may use in real time */

/* include/uapi/linux/sched/types.h; glibc 2.36 has no wrapper */
struct nic_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

static const char *const class_names[] = {
	[EMU_NIC_SCHED_AUTO] = "auto",
	[EMU_NIC_SCHED_FIFO] = "fifo",
	[EMU_NIC_SCHED_SLICE] = "slice",
	[EMU_NIC_SCHED_OTHER] = "other",
};

/* written by the NIC thread as it starts, read by the stat writer */
static enum emu_nic_sched nic_class = EMU_NIC_SCHED_AUTO; /* no thread */
static bool demoted; /* fifo: running in the default class for now */
static int app_rt_prio; /* the creator's real-time priority, 0 if none */
static bool was_over; /* the window before this one was over budget */
static struct {
	uint64_t wall, cpu; /* where the current window started, in ns */
} window;

/*
 * SCHED_FIFO, or the default class with a short slice (where the kernel
 * has one): a thread over its real-time budget still preempts on wake-up,
 * within its fair share.
 */
static int set_fifo(bool on)
{
	int max = sched_get_priority_max(SCHED_FIFO);
	struct nic_sched_attr a = {
		.size = sizeof(a),
		.sched_policy = on ? SCHED_FIFO : SCHED_OTHER,
		.sched_priority = on ? 1 : 0,
		.sched_runtime = on ? 0 : NIC_PACE_SLICE_NS,
	};

	/* above a real-time application, or beside it at the top */
	if (on && app_rt_prio)
		a.sched_priority = app_rt_prio < max ? app_rt_prio + 1 : max;
	if (on && app_rt_prio >= max)
		a.sched_policy = SCHED_RR;
	return syscall(SYS_sched_setattr, 0, &a, 0) ? -1 : 0;
}

/* the real-time priority the thread inherited from its creator, or 0 */
static int inherited_rt_prio(void)
{
	int policy = sched_getscheduler(0);
	struct sched_param p;

	if ((policy != SCHED_FIFO && policy != SCHED_RR) ||
	    sched_getparam(0, &p))
		return 0;
	return p.sched_priority;
}

/* the default class with a short slice; false where the kernel has none */
static bool set_short_slice(void)
{
	struct nic_sched_attr a = { .size = sizeof(a) };

	if (set_fifo(false))
		return false;
	/* older kernels accept and ignore the slice; 6.12+ read it back */
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0))
		return false;
	return a.sched_runtime == NIC_PACE_SLICE_NS;
}

/* Pick the thread's class; called once by the NIC thread as it starts. */
void nic_pace_start(void)
{
	enum emu_nic_sched want = emu_cfg.nic_sched, got;
	const char *rt = "";

	if (emu_cfg.nic_spin || RUNNING_ON_VALGRIND)
		want = EMU_NIC_SCHED_OTHER;
	demoted = was_over = false; /* a fork child's thread starts afresh */
	window.wall = window.cpu = 0;
	app_rt_prio = inherited_rt_prio();
	if ((want == EMU_NIC_SCHED_AUTO || want == EMU_NIC_SCHED_FIFO) &&
	    !set_fifo(true)) {
		got = EMU_NIC_SCHED_FIFO;
		if (app_rt_prio)
			rt = ", above the real-time application";
	} else if (app_rt_prio) {
		got = EMU_NIC_SCHED_FIFO; /* as inherited: never below it */
		rt = ", the real-time application's own priority";
	} else if ((want == EMU_NIC_SCHED_AUTO ||
		    want == EMU_NIC_SCHED_SLICE) &&
		   set_short_slice())
		got = EMU_NIC_SCHED_SLICE;
	else
		got = EMU_NIC_SCHED_OTHER;
	__atomic_store_n(&nic_class, got, __ATOMIC_RELAXED);
	if (got == EMU_NIC_SCHED_OTHER && !emu_cfg.nic_spin)
		emu_trace("nic: slow mode: %s (MLX5EMU_NIC_SCHED=%s); a woken "
			  "NIC thread waits for the next scheduler tick",
			  want == EMU_NIC_SCHED_OTHER ?
				  "the default class" :
				  "no real-time class, no short slice",
			  class_names[emu_cfg.nic_sched]);
	else
		emu_trace("nic: scheduling class %s%s", class_names[got], rt);
}

/* The class the NIC thread runs in, for `mlx5emu stat`. */
const char *nic_pace_class(void)
{
	enum emu_nic_sched c = __atomic_load_n(&nic_class, __ATOMIC_RELAXED);

	return c == EMU_NIC_SCHED_AUTO ? "none" : class_names[c];
}

/* May the thread spin while idle, or must it sleep at once? */
bool nic_pace_may_spin(void)
{
	return nic_class == EMU_NIC_SCHED_OTHER;
}

/* Is a real-time thread in the default class for now (over budget)? */
bool nic_pace_demoted(void)
{
	return demoted;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Called on every pass. A real-time thread that used more than
 * NIC_PACE_FIFO_SHARE of a core over two windows in a row (busy, or waking
 * every few microseconds) spends the next one in the default class. One
 * window is not enough: on a virtual machine a thread's clock also runs
 * while the host holds its vCPU, so a thread that uses little of a core
 * shows single windows over budget, and each demotion is a stall in a
 * round trip's tail (bench/RESULTS.md).
 */
void nic_pace_account(void)
{
	uint64_t wall, cpu;
	bool over, demote;

	if (nic_class != EMU_NIC_SCHED_FIFO || app_rt_prio)
		return;
	wall = clock_ns(CLOCK_MONOTONIC);
	if (wall - window.wall < NIC_PACE_WINDOW_NS)
		return;
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	over = (cpu - window.cpu) * 100 >
	       (wall - window.wall) * NIC_PACE_FIFO_SHARE;
	/* demoted, it comes back after one window within budget */
	demote = demoted ? over : over && was_over;
	if (demote != demoted && !set_fifo(!demote)) {
		demoted = demote;
		/* in the default class, beside the application, not on its CPU */
		if (demoted)
			nic_place_release();
	}
	was_over = over;
	window.wall = wall;
	window.cpu = cpu;
}
