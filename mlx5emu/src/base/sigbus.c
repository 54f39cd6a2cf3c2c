// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SIGBUS, shared with the application: our handler, which serves the
 * doorbell trap's faults (nic/engine/doorbell_trap.c) and passes every
 * other SIGBUS on to the application's action. The application's
 * sigaction(), signal() and masks reach the state kept here through the
 * libc edge (libc/interpose_signal.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "emu_libc.h"
#include "sigbus.h"

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

bool emu_sigbus_claimed(void)
{
	return __atomic_load_n(&bus.doorbell, __ATOMIC_ACQUIRE);
}

void emu_sigbus_app_action(const struct sigaction *act, struct sigaction *old)
{
	pthread_mutex_lock(&bus.lock);
	if (old)
		*old = bus.app;
	if (act)
		bus.app = *act;
	pthread_mutex_unlock(&bus.lock);
}
