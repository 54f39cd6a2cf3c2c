// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbells that wake the NIC thread.
 *
 * A doorbell is a store into a UAR page, and nothing notices a store: a
 * sleeping NIC thread would find it only when its timer ran out. So while
 * the thread sleeps, the application's mappings of UAR pages are write-
 * protected with userfaultfd. The store that rings a doorbell faults, the
 * fault wakes the thread at once, and the thread lifts the protection,
 * which lets the store complete. libmlx5 writes the doorbell record before
 * the register, with a barrier between, so the pass that follows finds
 * the new WQEs; a CQ arm rings the same page.
 *
 * A page is protected again only after the thread has slept once with it
 * writable: the thread whose store faulted needs a CPU to redo it, and a
 * real-time NIC thread that protected the page before that would make it
 * fault forever. While the NIC is busy nothing is protected, and a
 * doorbell costs the application nothing.
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
	unsigned int n, armed;
	unsigned int hot; /* ranges polled for now, as of the last arm */
	struct trap_range r[NIC_TRAP_MAX];
} trap = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static uint64_t trap_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int trap_open(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_WP_HUGETLBFS_SHMEM,
	};
	int fd;

	fd = syscall(SYS_userfaultfd,
		     O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, UFFDIO_API, &api)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* once per process (and per fork child); trap.lock held */
static void trap_start(void)
{
	int fd;

	trap.tried = true;
	if (!emu_cfg.doorbell_trap || RUNNING_ON_VALGRIND) {
		emu_trace("nic: doorbells polled (%s)",
			  RUNNING_ON_VALGRIND ? "valgrind" :
						"MLX5EMU_DOORBELL_TRAP=off");
		return;
	}
	fd = trap_open();
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
	return ioctl(trap.fd, UFFDIO_WRITEPROTECT, &wp) ? -errno : 0;
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
	    !ioctl(trap.fd, UFFDIO_REGISTER, &reg))
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
		ioctl(trap.fd, UFFDIO_UNREGISTER, &range);
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
	now = trap_now();
	pthread_mutex_lock(&trap.lock);
	for (i = 0; i < trap.n; i++) {
		struct trap_range *r = &trap.r[i];

		if (r->hot_until > now) {
			hot++;
		} else if (r->state == TRAP_OPEN) {
			r->state = TRAP_COOL;
		} else if (r->state != TRAP_COOL) {
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
	uint64_t until = trap_now() + NIC_TRAP_HOT_NS;
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

/*
 * Lift the protection of every page whose doorbell faulted. Called on
 * every pass, once its frames are out.
 */
void nic_trap_service(void)
{
	struct uffd_msg msg;

	if (!__atomic_load_n(&trap.armed, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&trap.lock);
	while (read(trap.fd, &msg, sizeof(msg)) == sizeof(msg)) {
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

			ioctl(trap.fd, UFFDIO_WAKE, &page);
		}
	}
	pthread_mutex_unlock(&trap.lock);
}

/* what the sleeping thread polls besides the fabric, or -1 */
int nic_trap_fd(void)
{
	return __atomic_load_n(&trap.armed, __ATOMIC_RELAXED) ? trap.fd : -1;
}

/* for `mlx5emu stat` */
const char *nic_trap_mode(void)
{
	return trap.fd >= 0 ? "trapped" : "polled";
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
		close(trap.fd);
	trap.lock = lock;
	trap.fd = -1;
	trap.tried = trap.partial = false;
	trap.n = trap.armed = trap.hot = 0;
}
