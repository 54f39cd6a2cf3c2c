// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Which CPU the NIC thread runs on.
 *
 * On a small virtual machine anything that reaches another CPU is dear:
 * waking a thread there takes an interrupt between CPUs (an order of
 * magnitude dearer than on the waker's own CPU), and so does
 * write-protecting a page that a thread on another CPU has in its TLB
 * (a TLB shootdown). In a round trip between two processes the
 * peer's frame has to cross; the rest of the NIC thread's work is on its
 * own application's pages (protecting them again for the next doorbell,
 * the handler's lock) and stays local only if the thread runs where its
 * application rings. Left to the scheduler, the real-time NIC threads of
 * two processes often swap CPUs (a woken one that finds the other running
 * moves away) and stay swapped, and the swapped layout pays the crossings
 * on every round trip (bench/RESULTS.md has the figures).
 *
 * So while doorbells fault (the trap's signal mode: the application waits
 * between its posts) the thread follows the CPU of the last doorbell's
 * handler. A stream (pages left to polling) or a thread over its real-time
 * budget gets back the CPUs it started with, to run beside its
 * application rather than on its CPU.
 */
#include <sched.h>

#include "glue.h"

/* a thread whose handlers run on several CPUs moves at most this often */
#define NIC_PLACE_MOVE_NS 1000000

static struct {
	cpu_set_t start; /* the NIC thread's CPUs as it started */
	bool known; /* start is valid */
	int cpu; /* the one CPU it is bound to, or -1 */
	uint64_t moved; /* when it was last bound */
} place = { .cpu = -1 };

/* the CPU of the last doorbell handler, -1 for none; written in a handler */
static int ringer = -1;

/* the NIC thread, as it starts (a fork child's thread too) */
void nic_place_start(void)
{
	place.known = !sched_getaffinity(0, sizeof(place.start), &place.start);
	place.cpu = -1;
	place.moved = 0;
	__atomic_store_n(&ringer, -1, __ATOMIC_RELAXED);
}

/* a doorbell's fault is served on this CPU; async-signal-safe */
void nic_place_ringer(void)
{
	__atomic_store_n(&ringer, sched_getcpu(), __ATOMIC_RELAXED);
}

/*
 * The NIC thread, after a handler lifted a page: run where it rang. Not
 * while over its real-time budget: in the default class it would take
 * turns with its application on that CPU.
 */
void nic_place_follow(void)
{
	int cpu = __atomic_load_n(&ringer, __ATOMIC_RELAXED);
	uint64_t now;
	cpu_set_t one;

	if (cpu < 0 || cpu == place.cpu || !place.known || cpu >= CPU_SETSIZE ||
	    !CPU_ISSET(cpu, &place.start) || nic_pace_demoted())
		return;
	now = nic_now_ns();
	if (place.cpu >= 0 && now - place.moved < NIC_PLACE_MOVE_NS)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	/* a cpuset that changed since: stay where the scheduler puts us */
	if (sched_setaffinity(0, sizeof(one), &one))
		return;
	place.cpu = cpu;
	place.moved = now;
}

/* the NIC thread: back to the CPUs it started with */
void nic_place_release(void)
{
	if (place.cpu < 0)
		return;
	sched_setaffinity(0, sizeof(place.start), &place.start);
	place.cpu = -1;
}
