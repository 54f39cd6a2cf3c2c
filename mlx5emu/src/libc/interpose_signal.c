// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SIGBUS, shared with the application (the handler is base/sigbus.c's).
 *
 * In the doorbell trap's signal mode (nic/engine/doorbell_trap.c) a doorbell
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
#include <signal.h>

#include "verbs/mlx5emu.h"

static bool claimed(int sig)
{
	return sig == SIGBUS && emu_sigbus_claimed();
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	emu_libc_init();
	if (!claimed(sig))
		return emu_libc.sigaction(sig, act, old);
	emu_sigbus_app_action(act, old);
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
