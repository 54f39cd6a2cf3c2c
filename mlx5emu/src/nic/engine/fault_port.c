// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Fault injection in the library: the settings (MLX5EMU_FAULT_*) handed
 * to the NIC core's devices, and the port outage of
 * MLX5EMU_FAULT_PORT_DOWN=AT:DUR. A port that goes down does what
 * mlx5_ib reports of a link that drops: ibv_query_port says DOWN,
 * every context of the device gets IBV_EVENT_PORT_ERR, and nothing
 * reaches the wire until it comes back with IBV_EVENT_PORT_ACTIVE
 * (RC requests meanwhile are retried and may exhaust their retries).
 */
#include <stdio.h>

#include "glue.h"

static struct nic_faults faults;

static struct {
	bool armed; /* an outage is still to come or under way */
	bool down;
	uint64_t down_at, up_at; /* CLOCK_MONOTONIC ns */
} outage;

struct nic_faults *nic_fault_setup(void)
{
	const struct emu_fault_cfg *c = &emu_cfg.fault;
	uint64_t now = nic_now_ns();

	if (!c->on)
		return NULL;
	faults.seed = c->seed;
	faults.drop = c->drop;
	faults.delay = c->delay;
	faults.delay_ns = c->delay_us * 1000ull;
	faults.ack_timeout_ns = c->timeout_us * 1000ull;
	faults.cq_overrun = c->cq_overrun;
	faults.port_down = false;
	outage.armed = c->port_down;
	outage.down = false;
	outage.down_at = now + c->port_at_ms * 1000000ull;
	outage.up_at = outage.down_at + c->port_dur_ms * 1000000ull;
	return &faults;
}

/* the control path moves the ports and tells the contexts */
static void ports_set(bool up)
{
	faults.port_down = !up;
	nic_host->ports_set(up);
	emu_trace("nic: fault: ports %s", up ? "active" : "down");
}

void nic_fault_tick(void)
{
	uint64_t now;

	if (!outage.armed)
		return;
	now = nic_now_ns();
	if (!outage.down && now >= outage.down_at) {
		outage.down = true;
		ports_set(false);
	}
	if (outage.down && now >= outage.up_at) {
		outage.armed = false;
		ports_set(true);
	}
}

/* faults pid=.. lost=.. delayed=.. timeouts=.. retry_exc=.. */
void nic_stat_write_faults(FILE *f, int pid)
{
	if (!emu_cfg.fault.on)
		return;
	pthread_mutex_lock(&nic.lock);
	fprintf(f,
		"faults pid=%d lost=%llu delayed=%llu timeouts=%llu retry_exc=%llu\n",
		pid, (unsigned long long)faults.lost,
		(unsigned long long)faults.delayed,
		(unsigned long long)faults.timeouts,
		(unsigned long long)faults.retry_exc);
	pthread_mutex_unlock(&nic.lock);
}
