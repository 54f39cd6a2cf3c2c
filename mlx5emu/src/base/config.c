// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The configuration (emu_cfg of emu_param.h), read once from the
 * launcher's environment through the option table (option.h).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_libc.h"
#include "emu_param.h"
#include "option.h"

/* filled by parse_env() */
struct emu_config emu_cfg = {
	.trace_fd = -1,
};

/*
 * Option id from the environment: its value (option.h), the string in
 * *str; the default when unset, empty or not a value of the option.
 */
static unsigned int env_option(enum emu_opt_id id, const char **str)
{
	const struct emu_option *o = &emu_options[id];
	const char *v = getenv(o->var);
	unsigned int n = 0;
	char want[64];

	if (v && *v) {
		if (!emu_option_parse(o, v, &n, want, sizeof(want)))
			goto out;
		fprintf(stderr, "mlx5emu: ignoring %s=%s (want %s)\n", o->var,
			v, want);
	}
	v = o->def;
	if (v)
		emu_option_parse(o, v, &n, want, sizeof(want));
out:
	if (str)
		*str = v;
	return n;
}

/* the function's UARs (its BAR size), shared by all contexts */
static unsigned int env_device_uars(void)
{
	unsigned int max = emu_cfg.model->max_uars - EMU_FIRST_UAR_ID;
	unsigned int n = env_option(EMU_OPTION_DEVICE_UARS, NULL);

	if (n > max) {
		fprintf(stderr, "mlx5emu: ignoring %s=%u (want 1..%u)\n",
			emu_options[EMU_OPTION_DEVICE_UARS].var, n, max);
		n = 0;
	}
	return n ? n : max;
}

/* MLX5EMU_FAULT_*: a spec that does not parse was refused above */
static void parse_fault_env(struct emu_fault_cfg *f)
{
	const char *v;
	char err[64];

	env_option(EMU_OPTION_FAULT_DROP, &v);
	if (v)
		emu_fault_sel_parse(v, &f->drop, err, sizeof(err));
	env_option(EMU_OPTION_FAULT_DELAY, &v);
	if (v)
		emu_fault_sel_parse(v, &f->delay, err, sizeof(err));
	f->delay_us = env_option(EMU_OPTION_FAULT_DELAY_US, NULL);
	f->seed = env_option(EMU_OPTION_FAULT_SEED, NULL);
	f->timeout_us = env_option(EMU_OPTION_FAULT_TIMEOUT_US, NULL);
	f->cq_overrun = env_option(EMU_OPTION_FAULT_CQ_OVERRUN, NULL);
	env_option(EMU_OPTION_FAULT_PORT_DOWN, &v);
	f->port_down =
		v && !emu_fault_window_parse(v, &f->port_at_ms, &f->port_dur_ms,
					     err, sizeof(err));
	f->on = f->drop.kind || f->delay.kind || f->timeout_us ||
		f->cq_overrun || f->port_down;
}

/*
 * MLX5EMU_PEERS: the hosts of the fabric and which one this is. A list
 * that cannot be used here (the launcher refuses it first) leaves the
 * fabric to this host, said once.
 */
static void parse_peers_env(void)
{
	const char *list = getenv(emu_options[EMU_OPTION_PEERS].var);
	const char *secret;
	char err[160];

	if (!list || !*list)
		return;
	env_option(EMU_OPTION_FABRIC_SECRET, &secret);
	if (fabric_peers_parse(list, &emu_cfg.peers, err, sizeof(err)) ||
	    fabric_peers_find_self(
		    &emu_cfg.peers,
		    getenv(emu_options[EMU_OPTION_HOST_INDEX].var), err,
		    sizeof(err)) ||
	    (!secret && snprintf(err, sizeof(err), "no %s",
				 emu_options[EMU_OPTION_FABRIC_SECRET].var))) {
		fprintf(stderr, "mlx5emu: %s: %s; the fabric is this host's\n",
			emu_options[EMU_OPTION_PEERS].var, err);
		memset(&emu_cfg.peers, 0, sizeof(emu_cfg.peers));
		return;
	}
	snprintf(emu_cfg.fabric_secret, sizeof(emu_cfg.fabric_secret), "%s",
		 secret);
}

static void parse_env(void)
{
	const char *v;

	env_option(EMU_OPTION_MODEL, &v);
	emu_cfg.model = emu_model_find(v);
	emu_cfg.ndevices = env_option(EMU_OPTION_DEVICES, NULL);
	emu_cfg.nports = env_option(EMU_OPTION_PORTS, NULL);
	/* the choices are listed in the order of the enums */
	emu_cfg.uar_mode = env_option(EMU_OPTION_UAR, NULL);
	emu_cfg.transport = env_option(EMU_OPTION_TRANSPORT, NULL);
	emu_cfg.uars_per_page = env_option(EMU_OPTION_UARS_PER_PAGE, NULL);
	if (emu_cfg.uar_mode == EMU_UAR_STATIC)
		emu_cfg.uars_per_page = 1;
	emu_cfg.dyn_bfregs = env_option(EMU_OPTION_DYN_BFREGS, NULL);
	emu_cfg.uar_limit = env_option(EMU_OPTION_UAR_LIMIT, NULL);
	emu_cfg.uar_id_end = EMU_FIRST_UAR_ID + env_device_uars();
	emu_cfg.netlink = env_option(EMU_OPTION_NETLINK, NULL);
	env_option(EMU_OPTION_TRACE, &v);
	if (v && *v && strcmp(v, "0")) {
		if (!strcmp(v, "1") || !strcmp(v, "stderr"))
			emu_cfg.trace_fd =
				emu_libc.fcntl(2, F_DUPFD_CLOEXEC, 100);
		else
			emu_cfg.trace_fd = emu_libc.openat(
				AT_FDCWD, v,
				O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
				0644);
	}
	env_option(EMU_OPTION_STAT_DIR, &v);
	if (v)
		snprintf(emu_cfg.stat_dir, sizeof(emu_cfg.stat_dir), "%s", v);
	env_option(EMU_OPTION_FABRIC, &v);
	snprintf(emu_cfg.fabric, sizeof(emu_cfg.fabric), "%s",
		 v ? v : emu_option_default(&emu_options[EMU_OPTION_FABRIC]));
	emu_cfg.nic_spin = env_option(EMU_OPTION_NIC, NULL) == EMU_NIC_SPIN;
	emu_cfg.nic_idle_us = env_option(EMU_OPTION_NIC_IDLE_US, NULL);
	emu_cfg.nic_sched = env_option(EMU_OPTION_NIC_SCHED, NULL);
	emu_cfg.nic_budget = env_option(EMU_OPTION_NIC_BUDGET, NULL);
	emu_cfg.max_qp = env_option(EMU_OPTION_MAX_QP, NULL);
	emu_cfg.maps_query = env_option(EMU_OPTION_MAPS_QUERY, NULL);
	emu_cfg.doorbell_trap = env_option(EMU_OPTION_DOORBELL_TRAP, NULL);
	emu_cfg.onesided = env_option(EMU_OPTION_ONESIDED, NULL);
	parse_fault_env(&emu_cfg.fault);
	parse_peers_env();
}

void emu_config_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	emu_libc_init();
	pthread_once(&once, parse_env);
}
