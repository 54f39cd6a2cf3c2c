// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SIGBUS, shared with the application.
 *
 * In the doorbell trap's signal mode (nic/doorbell_trap.c) a doorbell
 * store into a protected UAR page raises SIGBUS in the thread that rang,
 * and our handler does the NIC's work there. The application may want the
 * signal too (a crash reporter, Python's faulthandler, a sanitizer): its
 * handler is kept here, reported back by sigaction() and signal() as if
 * it were installed, and called for every SIGBUS that is not a doorbell.
 *
 * A SIGBUS raised by a fault in a thread that blocks it kills the
 * process, and threads that block every signal ring doorbells too (UCX's
 * async thread). So while the signal is ours no mask may block it; a mask
 * a thread asks for is applied without SIGBUS.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "mlx5emu.h"

static struct {
	pthread_mutex_t lock;
	bool (*doorbell)(void *addr); /* set: the signal is ours */
	struct sigaction app; /* what the application installed */
} bus = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* the application's SIGBUS action, run as the kernel would have */
static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = bus.app;

	if (a.sa_handler == SIG_IGN && si->si_code <= 0)
		return; /* sent with kill(): ignored */
	if (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		/*
		 * The default action, as if we were not here: a fault
		 * repeats when we return, a sent signal is sent again.
		 */
		emu_libc.sigaction(SIGBUS, &dfl, NULL);
		if (si->si_code <= 0)
			raise(SIGBUS);
		return;
	}
	if (a.sa_flags & SA_RESETHAND)
		bus.app.sa_handler = SIG_DFL;
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	/* si_code > 0: raised by the kernel for a fault, not sent */
	if (si->si_code > 0 && bus.doorbell(si->si_addr)) {
		errno = saved;
		return;
	}
	errno = saved;
	chain(sig, si, uc);
}

/*
 * Take SIGBUS; doorbell(addr) says whether a fault at addr was a doorbell
 * it served. 0 or -errno.
 */
int emu_sigbus_claim(bool (*doorbell)(void *addr))
{
	struct sigaction ours = {
		.sa_sigaction = on_sigbus,
		.sa_flags = SA_SIGINFO | SA_RESTART,
	};
	int ret = 0;

	emu_libc_init();
	pthread_mutex_lock(&bus.lock);
	if (!bus.doorbell) {
		bus.doorbell = doorbell;
		if (emu_libc.sigaction(SIGBUS, &ours, &bus.app)) {
			ret = -errno;
			bus.doorbell = NULL;
		}
	}
	pthread_mutex_unlock(&bus.lock);
	return ret;
}

static bool claimed(int sig)
{
	return sig == SIGBUS &&
	       __atomic_load_n(&bus.doorbell, __ATOMIC_ACQUIRE);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	emu_libc_init();
	if (!claimed(sig))
		return emu_libc.sigaction(sig, act, old);
	pthread_mutex_lock(&bus.lock);
	if (old)
		*old = bus.app;
	if (act)
		bus.app = *act;
	pthread_mutex_unlock(&bus.lock);
	return 0;
}

sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act = {
		.sa_handler = handler,
		.sa_flags = SA_RESTART, /* glibc's signal(): BSD semantics */
	}, old;

	emu_libc_init();
	if (!claimed(sig))
		return emu_libc.signal(sig, handler);
	sigaddset(&act.sa_mask, sig);
	sigaction(sig, &act, &old);
	return old.sa_handler;
}

/* set without SIGBUS, in copy, while the signal is ours */
static const sigset_t *unblocking(int how, const sigset_t *set, sigset_t *copy)
{
	if (!set || how == SIG_UNBLOCK || !claimed(SIGBUS) ||
	    !sigismember(set, SIGBUS))
		return set;
	*copy = *set;
	sigdelset(copy, SIGBUS);
	return copy;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	emu_libc_init();
	return emu_libc.sigprocmask(how, unblocking(how, set, &copy), old);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	emu_libc_init();
	return emu_libc.pthread_sigmask(how, unblocking(how, set, &copy), old);
}
