// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbells rung while the NIC thread sleeps.
 *
 * A doorbell is a store into a UAR page, and nothing notices a store: a
 * sleeping NIC thread would find it only when its timer ran out. So while
 * the thread sleeps, the application's mappings of UAR pages are write-
 * protected with userfaultfd, and the store that rings a doorbell faults.
 * libmlx5 writes the doorbell record before the register, with a barrier
 * between, so a pass over the doorbell records at the fault finds the new
 * WQEs; a CQ arm rings the same page. What the fault does:
 *
 *   signal  (opt-in) the kernel raises SIGBUS in the thread that
 *           rang, and our handler makes the page writable, does that pass
 *           itself, on its own CPU, and returns: the store completes.
 *           Waking the NIC thread instead costs two switches between
 *           threads, tens of microseconds each on a small virtual machine
 *           (interpose_signal.c shares the signal with the application).
 *           A timer wakes the NIC thread a little later to protect the
 *           page again; doorbells on it are polled until then.
 *   wake    (the default) the fault blocks the thread that rang and
 *           wakes the NIC thread, which lifts the protection, and the
 *           store completes. Unlike a SIGBUS, it works in threads that
 *           block signals behind our back and on small stacks.
 *           A page is protected again only after the thread has slept
 *           once with it writable: the thread whose store faulted needs a
 *           CPU to redo it, and a real-time NIC thread that protected the
 *           page before that would make it fault forever.
 *
 * While the NIC is busy nothing is protected, and a doorbell costs the
 * application nothing.
 *
 * Needs write protection of shared memory (Linux 5.19); UFFD_USER_MODE_ONLY
 * needs no privilege. Without it, under valgrind, with
 * MLX5EMU_DOORBELL_TRAP=off, and for mappings past NIC_TRAP_MAX, doorbells
 * are found by the thread's timed polling alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "glue.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1 /* Linux 5.11 */
#endif

#define NIC_TRAP_MAX 64 /* protecting a page costs a TLB shootdown */
/*
 * Pages rung in a stream stay writable, their doorbells polled, this long
 * (nic_trap_stream()).
 */
#define NIC_TRAP_HOT_NS 100000000
/*
 * Signal mode: a page that faulted is protected again when the NIC
 * thread's sleep ends, at the latest this long after (a timer), earlier
 * when a peer's frame wakes it. Until then the page's doorbells are
 * polled, so a doorbell rung again on it waits for that. The delay adapts
 * (nic_trap_lift_served()): it starts at the wake mode's cooling time and
 * doubles each time the timer found nothing to do, up to the maximum; it
 * drops back as soon as the timer finds a doorbell. In a round trip the
 * peer's answer comes first, and a timer that fires anyway is a wake-up
 * across CPUs, dear on a small virtual machine: a delay that adapts costs
 * the round trip fewer of them than a fixed short one
 * (bench/RESULTS.md).
 */
#define NIC_TRAP_REARM_MIN_NS 50000
#define NIC_TRAP_REARM_MAX_NS 400000
/* the timer after a fault that found the NIC lock taken: look now */
#define NIC_TRAP_REARM_NOW_NS 1000
/* removed ranges remembered: a store racing the removal faulted in one */
#define NIC_TRAP_GONE 8

enum trap_state {
	TRAP_OPEN, /* writable since the thread last slept */
	TRAP_COOL, /* writable, and the thread slept since: may be armed */
	TRAP_ARMED, /* write-protected: a store wakes the thread */
};

struct trap_range {
	uintptr_t addr;
	size_t len;
	enum trap_state state;
	uint64_t hot_until; /* polled, not protected, until then */
};

static struct {
	pthread_mutex_t lock;
	bool tried; /* the userfaultfd was asked for */
	bool partial; /* a mapping was left out: some doorbells are polled */
	int fd; /* -1: doorbells are polled */
	int timer; /* >= 0: signal mode; ends the sleep after a lift */
	bool lifted; /* signal mode: by a handler, since the thread looked */
	bool timer_due; /* signal mode: the timer's fd was readable */
	int handlers; /* signal mode: running, their stores not done */
	long rearm_ns; /* signal mode: the timer's delay after a lift */
	long timer_ns; /* the delay it was last set to */
	unsigned int n, armed;
	unsigned int hot; /* ranges polled for now, as of the last arm */
	struct trap_range r[NIC_TRAP_MAX];
	struct trap_range gone[NIC_TRAP_GONE];
	unsigned int gone_next;
} trap = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
	.timer = -1,
	.rearm_ns = NIC_TRAP_REARM_MIN_NS,
};

static int trap_open(uint64_t features)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_WP_HUGETLBFS_SHMEM | features,
	};
	int fd;

	fd = syscall(SYS_userfaultfd,
		     O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		return -errno;
	if (emu_libc.ioctl(fd, UFFDIO_API, &api)) {
		int err = -errno;

		emu_libc.close(fd);
		return err;
	}
	return fd;
}

static bool trap_fault(void *addr);

/* signal mode, on fd; false if the process cannot have it */
static bool trap_signal_start(int fd)
{
	int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (timer < 0)
		return false;
	if (emu_sigbus_claim(trap_fault)) {
		emu_libc.close(timer);
		return false;
	}
	trap.fd = fd;
	trap.timer = timer;
	emu_trace("nic: a doorbell's fault does the NIC's work (SIGBUS)");
	return true;
}

/* once per process (and per fork child); trap.lock held */
static void trap_start(void)
{
	int fd;

	trap.tried = true;
	if (emu_cfg.doorbell_trap == EMU_TRAP_OFF || RUNNING_ON_VALGRIND) {
		emu_trace("nic: doorbells polled (%s)",
			  RUNNING_ON_VALGRIND ? "valgrind" :
						"MLX5EMU_DOORBELL_TRAP=off");
		return;
	}
	if (emu_cfg.doorbell_trap == EMU_TRAP_SIGNAL) {
		fd = trap_open(UFFD_FEATURE_SIGBUS);
		if (fd >= 0 && trap_signal_start(fd))
			return;
		if (fd >= 0)
			emu_libc.close(fd);
	}
	fd = trap_open(0);
	if (fd < 0) {
		emu_trace("nic: doorbells polled: no userfaultfd write "
			  "protection of shared memory (%s)",
			  strerrorname_np(-fd));
		return;
	}
	trap.fd = fd;
	emu_trace("nic: doorbells wake the NIC (userfaultfd)");
}

static int protect(struct trap_range *r, bool on)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = r->addr, .len = r->len },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	/* lifting also wakes the thread whose store faulted */
	return emu_libc.ioctl(trap.fd, UFFDIO_WRITEPROTECT, &wp) ? -errno : 0;
}

/* make an armed page writable; trap.lock held */
static void lift(struct trap_range *r)
{
	protect(r, false);
	r->state = TRAP_OPEN;
	trap.armed--;
}

/* is the mapping at addr trapped already? */
bool nic_trap_has(void *addr)
{
	bool has = false;
	unsigned int i;

	pthread_mutex_lock(&trap.lock);
	for (i = 0; i < trap.n && !has; i++)
		has = trap.r[i].addr == (uintptr_t)addr;
	pthread_mutex_unlock(&trap.lock);
	return has;
}

/*
 * The application mapped a UAR page at addr. nic_writes: a buffer the NIC
 * writes into (an MR or CQ ring the application unmapped while it was
 * registered) has the same address; the NIC thread must never fault on a
 * page only it can lift, so that mapping is polled.
 */
void nic_trap_add(void *addr, size_t len, bool nic_writes)
{
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};

	pthread_mutex_lock(&trap.lock);
	if (!trap.tried)
		trap_start();
	if (trap.fd >= 0 && trap.n < NIC_TRAP_MAX && !nic_writes &&
	    !emu_libc.ioctl(trap.fd, UFFDIO_REGISTER, &reg))
		trap.r[trap.n++] = (struct trap_range){
			.addr = (uintptr_t)addr,
			.len = len,
			.state = TRAP_OPEN,
		};
	else
		trap.partial = true;
	pthread_mutex_unlock(&trap.lock);
}

/*
 * The mapping at addr is going away or no longer ours to watch: make it
 * writable first, or a store into it would wait for a lift that never
 * comes.
 */
void nic_trap_remove(void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;
	unsigned int i = 0;

	pthread_mutex_lock(&trap.lock);
	while (i < trap.n) {
		struct trap_range *r = &trap.r[i];
		struct uffdio_range range = { r->addr, r->len };

		if (!(r->addr < a + len && a < r->addr + r->len)) {
			i++;
			continue;
		}
		if (r->state == TRAP_ARMED)
			lift(r);
		/* fails harmlessly when munmap() unregistered it already */
		emu_libc.ioctl(trap.fd, UFFDIO_UNREGISTER, &range);
		trap.gone[trap.gone_next++ % NIC_TRAP_GONE] = *r;
		*r = trap.r[--trap.n];
	}
	pthread_mutex_unlock(&trap.lock);
}

/*
 * Before the NIC thread sleeps: protect the pages that stayed writable
 * through one sleep. True if any was protected now: a doorbell rung just
 * before that did not fault, so the caller looks once more.
 */
bool nic_trap_arm(void)
{
	bool armed = false;
	unsigned int i, hot = 0;
	uint64_t now;

	if (trap.fd < 0)
		return false;
	now = nic_now_ns();
	pthread_mutex_lock(&trap.lock);
	for (i = 0; i < trap.n; i++) {
		struct trap_range *r = &trap.r[i];

		if (r->hot_until > now) {
			hot++;
		} else if (r->state == TRAP_OPEN) {
			r->state = TRAP_COOL;
		} else if (r->state != TRAP_COOL ||
			   __atomic_load_n(&trap.handlers, __ATOMIC_ACQUIRE)) {
			/*
			 * A handler has not returned (one we preempted): protected
			 * now, its page would fault again when the store is
			 * redone, and open with nothing rung.
			 */
			continue;
		} else if (!protect(r, true)) {
			r->state = TRAP_ARMED;
			trap.armed++;
			armed = true;
		} else {
			/* unmapped behind our back: the kernel forgot it */
			*r = trap.r[--trap.n];
			i--; /* look at the one moved here */
		}
	}
	trap.hot = hot;
	pthread_mutex_unlock(&trap.lock);
	return armed;
}

/*
 * Is every doorbell page protected? Then a doorbell wakes the thread,
 * whatever it sleeps: only timers (RNR, retries) and peers, which wake
 * it through their sockets, are left to bound its sleep.
 */
bool nic_trap_all_armed(void)
{
	return trap.fd >= 0 && !trap.partial && trap.n &&
	       __atomic_load_n(&trap.armed, __ATOMIC_RELAXED) == trap.n;
}

/*
 * The application refilled its queue while its pages cooled: it posts in
 * a stream (post, poll CQEs, post again), and a fault and a cooling sleep
 * per burst cost ib_write_mt three quarters of its rate. In a round trip
 * it waits for its peer instead. Leave every page to polling for a while.
 */
void nic_trap_stream(void)
{
	uint64_t until = nic_now_ns() + NIC_TRAP_HOT_NS;
	unsigned int i;

	pthread_mutex_lock(&trap.lock);
	for (i = 0; i < trap.n; i++) {
		struct trap_range *r = &trap.r[i];

		/* its other threads ring pages of their own */
		if (r->state == TRAP_ARMED)
			lift(r);
		r->state = TRAP_OPEN;
		r->hot_until = until;
	}
	trap.hot = trap.n;
	pthread_mutex_unlock(&trap.lock);
}

/* Does every doorbell page have a trap, armed or cooling? */
bool nic_trap_covers_all(void)
{
	return trap.fd >= 0 && !trap.partial && trap.n && !trap.hot;
}

/* the range a fault at addr hit, or NULL; trap.lock held */
static struct trap_range *range_of(uintptr_t addr)
{
	unsigned int i;

	for (i = 0; i < trap.n; i++)
		if (trap.r[i].addr <= addr &&
		    addr < trap.r[i].addr + trap.r[i].len)
			return &trap.r[i];
	return NULL;
}

/* was addr in a range removed lately? trap.lock held */
static bool gone_lately(uintptr_t addr)
{
	unsigned int i;

	for (i = 0; i < NIC_TRAP_GONE; i++)
		if (trap.gone[i].addr <= addr &&
		    addr < trap.gone[i].addr + trap.gone[i].len)
			return true;
	return false;
}

/*
 * The address of a removed page this thread's store was let try again at.
 * A store that faulted as its page went needs one more try; if it faults
 * there again, what is mapped there now faulted (a file page past its
 * end, say), and that SIGBUS is the application's, not swallowed for ever.
 * Initial-exec: a signal handler must not make glibc allocate the slot.
 */
static __thread uintptr_t gone_tried __attribute__((tls_model("initial-exec")));

/*
 * Signal mode, in the SIGBUS handler of the thread whose store faulted at
 * addr: make the page writable and do the pass the NIC thread would have
 * woken for. False if addr is none of ours: the application's fault.
 */
static bool trap_fault(void *addr)
{
	struct itimerspec rearm = {};
	struct trap_range *r;

	/*
	 * Held only by threads that ring no doorbell while they hold it, but
	 * a handler that slept here would sleep in the default class, a
	 * scheduler tick: the store faults again until it is free.
	 */
	if (pthread_mutex_trylock(&trap.lock))
		return true;
	r = range_of((uintptr_t)addr);
	if (!r) {
		bool gone = gone_lately((uintptr_t)addr);

		/* unprotected on removal: the store just tries again, once */
		pthread_mutex_unlock(&trap.lock);
		if (gone && gone_tried != (uintptr_t)addr) {
			gone_tried = (uintptr_t)addr;
			return true;
		}
		gone_tried = 0;
		return false;
	}
	gone_tried = 0;
	__atomic_add_fetch(&trap.handlers, 1, __ATOMIC_ACQ_REL);
	if (r->state == TRAP_ARMED) {
		lift(r);
		/* the store completes when we return: protect it next time */
		r->state = TRAP_COOL;
	}
	pthread_mutex_unlock(&trap.lock);
	nic_place_ringer();
	rearm.it_value.tv_nsec =
		__atomic_load_n(&trap.rearm_ns, __ATOMIC_RELAXED);
	/* the NIC thread had the lock: it is awake, make it look now */
	if (!nic_serve_doorbells())
		rearm.it_value.tv_nsec = NIC_TRAP_REARM_NOW_NS;
	__atomic_store_n(&trap.timer_ns, rearm.it_value.tv_nsec,
			 __ATOMIC_RELAXED);
	/* the timer first: the thread that sees the flag reads its expiry */
	timerfd_settime(trap.timer, 0, &rearm, NULL);
	__atomic_store_n(&trap.lifted, true, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&trap.handlers, 1, __ATOMIC_ACQ_REL);
	return true;
}

/*
 * Signal mode: did a handler lift a page since the NIC thread last asked?
 * Then the sleep that ends now let it cool; *fired says whether the timer
 * expired since the last look. The timer is not stopped: that reprograms
 * the CPU's timer, a trap to the hypervisor on a virtual machine, paid on
 * every wake-up before the frame that woke it was served; the next fault
 * sets it again anyway. An expiry that found no lift came
 * after the page was protected again: the delay was too short.
 */
bool nic_trap_take_lift(bool *fired)
{
	uint64_t expiries;
	bool lifted;

	if (!trap.timer_due && !__atomic_load_n(&trap.lifted, __ATOMIC_RELAXED))
		return false;
	/* read, or the fd stays readable and the sleep ends at once */
	*fired = false;
	if (trap.timer_due)
		*fired = emu_libc.read(trap.timer, &expiries,
				       sizeof(expiries)) > 0;
	trap.timer_due = false;
	lifted = __atomic_exchange_n(&trap.lifted, false, __ATOMIC_ACQ_REL);
	if (*fired && !lifted)
		nic_trap_lift_served(true, 0);
	return lifted;
}

/* the sleep ended with nic_trap_fd() readable */
void nic_trap_woken(void)
{
	if (trap.timer >= 0)
		trap.timer_due = true;
}

/*
 * Signal mode, after the pass that followed a lift: sq_work WQEs were
 * found. If the timer ended the sleep, the delay was too long when it
 * found some (a doorbell on the open page waited for it) and too short
 * when it found none (a peer's frame would have come first, or nothing
 * was coming: either way the wake-up was wasted).
 */
void nic_trap_lift_served(bool fired, unsigned int sq_work)
{
	long ns = trap.rearm_ns;

	/* not the timer, or the one that asked to look at once */
	if (!fired || __atomic_load_n(&trap.timer_ns, __ATOMIC_RELAXED) < ns)
		return;
	if (sq_work)
		ns = NIC_TRAP_REARM_MIN_NS;
	else if (ns <= NIC_TRAP_REARM_MAX_NS / 2)
		ns *= 2;
	else
		ns = NIC_TRAP_REARM_MAX_NS;
	__atomic_store_n(&trap.rearm_ns, ns, __ATOMIC_RELAXED);
}

/*
 * Wake mode: lift the protection of every page whose doorbell faulted.
 * Called on every pass, once its frames are out.
 */
void nic_trap_service(void)
{
	struct uffd_msg msg;

	if (trap.timer >= 0 || !__atomic_load_n(&trap.armed, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&trap.lock);
	while (emu_libc.read(trap.fd, &msg, sizeof(msg)) == sizeof(msg)) {
		uintptr_t addr = msg.arg.pagefault.address;
		struct trap_range *r;

		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		r = range_of(addr);
		if (r && r->state == TRAP_ARMED) {
			lift(r);
		} else {
			/* lifted already (removed, or a second fault) */
			uintptr_t ps = sysconf(_SC_PAGESIZE);
			struct uffdio_range page = { addr & ~(ps - 1), ps };

			emu_libc.ioctl(trap.fd, UFFDIO_WAKE, &page);
		}
	}
	pthread_mutex_unlock(&trap.lock);
}

/* what the sleeping thread polls besides the fabric, or -1 */
int nic_trap_fd(void)
{
	if (trap.timer >= 0)
		return trap.timer;
	return __atomic_load_n(&trap.armed, __ATOMIC_RELAXED) ? trap.fd : -1;
}

/* for `mlx5emu stat` */
const char *nic_trap_mode(void)
{
	return trap.fd < 0 ? "polled" : trap.timer >= 0 ? "signal" : "wake";
}

/*
 * fork() child: its mappings are not registered (no UFFD_FEATURE_EVENT_FORK)
 * and the descriptor watches the parent; start again when it opens a
 * device.
 */
void nic_trap_forked(void)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

	if (trap.fd >= 0)
		emu_libc.close(trap.fd);
	if (trap.timer >= 0)
		emu_libc.close(trap.timer);
	trap.lock = lock;
	trap.fd = trap.timer = -1;
	trap.tried = trap.partial = trap.lifted = trap.timer_due = false;
	trap.handlers = 0;
	trap.rearm_ns = NIC_TRAP_REARM_MIN_NS;
	trap.n = trap.armed = trap.hot = trap.gone_next = 0;
	memset(trap.gone, 0, sizeof(trap.gone));
}
