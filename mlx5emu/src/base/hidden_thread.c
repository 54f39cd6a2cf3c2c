// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The emulator's own threads (the NIC, the attribution writer). The
 * application does not know they exist, so a signal it sends to the
 * process (SIGALRM, SIGCHLD, SIGPIPE, SIGINT) must never run its handler
 * on one of them: they start with every signal blocked, and the kernel
 * delivers process-directed signals to the application's threads only.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "emu_util.h"

int emu_thread_start(void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all;
	int ret;

	sigfillset(&all);
	ret = pthread_attr_init(&attr);
	if (ret)
		return -ret;
	ret = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (!ret)
		ret = pthread_attr_setsigmask_np(&attr, &all);
	if (!ret)
		ret = pthread_create(&t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -ret;
}
