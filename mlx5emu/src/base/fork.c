// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fork(): one pthread_atfork() for the whole library. Each part whose
 * state a child must not inherit as is (locks, threads, fds of the
 * parent's) registers a hook at init; the hooks run as separate
 * pthread_atfork() handlers would: prepare in the reverse order of
 * registration, parent and child in that order.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "fork.h"

#define EMU_FORK_HOOKS 8

static const struct emu_fork_hook *hooks[EMU_FORK_HOOKS];
static unsigned int nhooks;
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;

static void prepare(void)
{
	unsigned int i = __atomic_load_n(&nhooks, __ATOMIC_ACQUIRE);

	while (i--)
		if (hooks[i]->prepare)
			hooks[i]->prepare();
}

static void parent(void)
{
	unsigned int i, n = __atomic_load_n(&nhooks, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (hooks[i]->parent)
			hooks[i]->parent();
}

static void child(void)
{
	unsigned int i, n = __atomic_load_n(&nhooks, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (hooks[i]->child)
			hooks[i]->child();
}

void emu_fork_register(const struct emu_fork_hook *h)
{
	pthread_mutex_lock(&hooks_lock);
	if (!nhooks)
		pthread_atfork(prepare, parent, child);
	if (nhooks == EMU_FORK_HOOKS) {
		/* a programming error: the table is sized for our parts */
		fprintf(stderr, "mlx5emu: more than %d fork hooks\n",
			EMU_FORK_HOOKS);
		abort();
	}
	hooks[nhooks] = h;
	__atomic_store_n(&nhooks, nhooks + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&hooks_lock);
}
