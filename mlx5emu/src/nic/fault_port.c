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

#define PORT_STATE_DOWN 1 /* IB_PORT_DOWN */
#define PORT_STATE_ACTIVE 4 /* IB_PORT_ACTIVE */

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

/* the async event of every port to every open context of dev */
static void port_event(struct emu_device *dev, enum ibv_event_type type)
{
	struct emu_event_file *files[64];
	unsigned int n = 0, i, p;
	struct emu_list *pos, *tmp;

	pthread_mutex_lock(&dev->lock);
	emu_list_for_each_safe(pos, tmp, &dev->contexts)
	{
		struct emu_context *ctx =
			container_of(pos, struct emu_context, node);
		struct emu_event_file *f =
			__atomic_load_n(&ctx->async, __ATOMIC_ACQUIRE);

		if (f && n < sizeof(files) / sizeof(files[0])) {
			emu_event_file_get(f);
			files[n++] = f;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < n; i++) {
		for (p = 1; p <= emu_cfg.nports; p++)
			emu_event_push_async(files[i], NULL, p, type);
		emu_event_file_put(files[i]);
	}
}

static void ports_set(bool up)
{
	unsigned int i, p;

	faults.port_down = !up;
	for (i = 0; i < emu_cfg.ndevices; i++) {
		for (p = 0; p < emu_cfg.nports; p++)
			__atomic_store_n(&emu_devices[i].port[p].state,
					 up ? PORT_STATE_ACTIVE :
					      PORT_STATE_DOWN,
					 __ATOMIC_RELAXED);
		port_event(&emu_devices[i],
			   up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR);
	}
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
