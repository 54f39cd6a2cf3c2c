// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The option table (option.h): shared by the launcher and the preload
 * library, so a name, range or default is written once.
 */
#include <stdlib.h>
#include <string.h>

#include "emu_param.h"
#include "fault_spec.h"
#include "peers.h"
#include "option.h"

static const char *const models[] = { "cx4", "cx5", "cx6", NULL };
static const char *const uar_modes[] = { "dynamic", "static", NULL };
static const char *const transports[] = { "write", "ioctl", NULL };
static const char *const nic_modes[] = { "poll", "spin", NULL };
static const char *const nic_scheds[] = { "auto", "fifo", "slice", "other",
					  NULL };
static const char *const doorbell_traps[] = { "signal", "wake", "off", NULL };

#define UINT_RANGE(lo, hi) .kind = EMU_OPT_UINT, .min = (lo), .max = (hi)

static int check_fault_sel(const char *v, char *err, size_t errlen)
{
	struct emu_fault_sel sel;

	return emu_fault_sel_parse(v, &sel, err, errlen);
}

static int check_fault_window(const char *v, char *err, size_t errlen)
{
	uint64_t at, dur;

	return emu_fault_window_parse(v, &at, &dur, err, errlen);
}

static int check_peers(const char *v, char *err, size_t errlen)
{
	struct fabric_peers peers;

	return fabric_peers_parse(v, &peers, err, errlen);
}

const struct emu_option emu_options[EMU_NOPTIONS] = {
	[EMU_OPTION_MODEL] = {
		.name = "model", .var = "MLX5EMU_MODEL",
		.kind = EMU_OPT_CHOICE, .choices = models, .def = "cx5",
		.help = "device model",
	},
	[EMU_OPTION_DEVICES] = {
		.name = "devices", .var = "MLX5EMU_DEVICES", .arg = "N",
		UINT_RANGE(1, EMU_MAX_DEVICES), .def = "1",
		.help = "number of HCAs, mlx5_0 .. mlx5_{N-1}",
	},
	[EMU_OPTION_PORTS] = {
		.name = "ports", .var = "MLX5EMU_PORTS", .arg = "N",
		UINT_RANGE(1, EMU_MAX_PORTS), .def = "1",
		.help = "ports per HCA",
	},
	[EMU_OPTION_UAR] = {
		.name = "uar", .var = "MLX5EMU_UAR",
		.kind = EMU_OPT_CHOICE, .choices = uar_modes, .def = "dynamic",
		.help = "static: legacy bfregs + ALLOC_WC pages\n"
			"(write-only kernel, profile W);\n"
			"dynamic: UAR objects (profile H)",
	},
	[EMU_OPTION_TRANSPORT] = {
		.name = "transport", .var = "MLX5EMU_TRANSPORT",
		.kind = EMU_OPT_CHOICE, .choices = transports, .def = "write",
		.help = "core commands via write() or via the\n"
			"ioctl INVOKE_WRITE method of current\n"
			"kernels with the common native methods",
	},
	[EMU_OPTION_UARS_PER_PAGE] = {
		.name = "uars-per-page", .var = "MLX5EMU_UARS_PER_PAGE",
		.arg = "N", UINT_RANGE(1, 16), .def = "1",
		.help = "dynamic: 4 KB UARs per UAR object",
	},
	[EMU_OPTION_DYN_BFREGS] = {
		.name = "dyn-bfregs", .var = "MLX5EMU_DYN_BFREGS", .arg = "N",
		UINT_RANGE(0, EMU_MAX_BFREGS * 4), .def = "1024",
		.help = "static: num_dyn_bfregs per context\n"
			"(N/2 ALLOC_WC pages)",
	},
	[EMU_OPTION_UAR_LIMIT] = {
		.name = "uar-limit", .var = "MLX5EMU_UAR_LIMIT", .arg = "N",
		UINT_RANGE(0, 1 << 20), .def = "0",
		.help = "HW UARs a context may hold (0 = no limit)",
	},
	[EMU_OPTION_DEVICE_UARS] = {
		.name = "device-uars", .var = "MLX5EMU_DEVICE_UARS",
		.arg = "N", UINT_RANGE(1, 65000), .unset = "the model's",
		.help = "HW UARs of the whole device (the model's:\n"
			"8192, or 16384 for cx6)",
	},
	[EMU_OPTION_FABRIC] = {
		.name = "fabric", .var = "MLX5EMU_FABRIC", .arg = "NAME",
		.kind = EMU_OPT_STRING, .flags = EMU_OPTF_INHERIT,
		.min = 1, .max = EMU_FABRIC_NAME_MAX, .unset = "default",
		.help = "the fabric to join (not given: inherited\n"
			"MLX5EMU_FABRIC, else \"default\"); only\n"
			"processes on one fabric see each other",
	},
	[EMU_OPTION_PEERS] = {
		.name = "peers", .var = "MLX5EMU_PEERS", .arg = "LIST",
		.kind = EMU_OPT_STRING, .flags = EMU_OPTF_INHERIT,
		.check = check_peers, .unset = "this host only",
		.help = "the fabric spans these hosts, ADDR:PORT,...\n"
			"in one order everywhere (TCP; needs\n"
			"MLX5EMU_FABRIC_SECRET)",
	},
	[EMU_OPTION_HOST_INDEX] = {
		.name = "host-index", .var = "MLX5EMU_HOST_INDEX", .arg = "N",
		UINT_RANGE(0, FABRIC_MAX_HOSTS - 1),
		.flags = EMU_OPTF_INHERIT, .unset = "the peer of this host",
		.help = "this host's position in --peers (not\n"
			"given: the one whose ADDR is this host's)",
	},
	[EMU_OPTION_FABRIC_SECRET] = {
		.var = "MLX5EMU_FABRIC_SECRET", .arg = "TEXT",
		.kind = EMU_OPT_STRING,
		.min = 8, .max = FABRIC_SECRET_MAX, .unset = "none",
		.help = "shared by the hosts of --peers: a TCP peer\n"
			"must show it (sent in clear text)",
	},
	[EMU_OPTION_TRACE] = {
		.name = "trace", .var = "MLX5EMU_TRACE", .arg = "FILE",
		.kind = EMU_OPT_STRING, .flags = EMU_OPTF_OPTIONAL_ARG,
		.implied = "stderr", .unset = "off",
		.help = "log every command and UD datagram (to\n"
			"stderr without FILE)",
	},
	[EMU_OPTION_STAT_DIR] = {
		.name = "stat-dir", .var = "MLX5EMU_STAT_DIR", .arg = "DIR",
		.kind = EMU_OPT_STRING, .unset = "private",
		.help = "keep attribution records in DIR",
	},
	[EMU_OPTION_NETLINK] = {
		.name = "netlink", .var = "MLX5EMU_NETLINK",
		.kind = EMU_OPT_BOOL, .def = "on",
		.help = "answer RDMA netlink sockets;\n"
			"off: refused, libibverbs reads sysfs",
	},
	[EMU_OPTION_NIC] = {
		.var = "MLX5EMU_NIC", .kind = EMU_OPT_CHOICE,
		.choices = nic_modes, .def = "poll",
		.help = "spin: the NIC thread never sleeps (benchmarks)",
	},
	[EMU_OPTION_NIC_IDLE_US] = {
		.var = "MLX5EMU_NIC_IDLE_US", .arg = "N", UINT_RANGE(0, 1000000),
		.def = "5000",
		.help = "longest idle sleep of the NIC thread, in us\n"
			"(200 at most until idle for 0.1 s)",
	},
	[EMU_OPTION_NIC_SCHED] = {
		.var = "MLX5EMU_NIC_SCHED", .kind = EMU_OPT_CHOICE,
		.choices = nic_scheds, .def = "auto",
		.help = "the NIC thread's class: fifo where permitted,\n"
			"else a short slice (Linux 6.12), else other\n"
			"(a woken NIC waits for a scheduler tick)",
	},
	[EMU_OPTION_NIC_BUDGET] = {
		.var = "MLX5EMU_NIC_BUDGET", .arg = "N", UINT_RANGE(0, 65535),
		.def = "64",
		.help = "WQEs per QP per pass; 1 steps every QP\n"
			"one WQE at a time, round robin",
	},
	[EMU_OPTION_MAX_QP] = {
		.var = "MLX5EMU_MAX_QP", .arg = "N", UINT_RANGE(1, EMU_MAX_QP),
		.def = "65280",
		.help = "QPs one process may hold per device (max_qp);\n"
			"at most its QPN slot, 65280",
	},
	[EMU_OPTION_MAPS_QUERY] = {
		.var = "MLX5EMU_MAPS_QUERY", .kind = EMU_OPT_BOOL, .def = "on",
		.help = "check user pointers with PROCMAP_QUERY;\n"
			"off: read /proc/self/maps, as kernels\n"
			"before 6.11 must",
	},
	[EMU_OPTION_DOORBELL_TRAP] = {
		.var = "MLX5EMU_DOORBELL_TRAP", .kind = EMU_OPT_CHOICE,
		.choices = doorbell_traps, .def = "wake",
		.help = "a doorbell rung while the NIC thread sleeps\n"
			"faults (userfaultfd); wake: the fault wakes\n"
			"the NIC thread, signal: the ringing thread\n"
			"does the NIC's work (SIGBUS; a thread that\n"
			"blocks SIGBUS dies), off: the thread finds\n"
			"it when its sleep ends",
	},
	[EMU_OPTION_ONESIDED] = {
		.var = "MLX5EMU_ONESIDED", .kind = EMU_OPT_BOOL, .def = "on",
		.help = "RDMA WRITE, READ and atomics to a process of\n"
			"this host run in the requester's NIC, in the\n"
			"responder's memory (process_vm_writev);\n"
			"off: the responder's NIC executes them",
	},
	[EMU_OPTION_FAULT_DROP] = {
		.name = "fault-drop", .var = "MLX5EMU_FAULT_DROP", .arg = "SPEC",
		.kind = EMU_OPT_STRING, .unset = "off", .check = check_fault_sel,
		.flags = EMU_OPTF_INHERIT,
		.help = "lose packets of every QP: nth:N, every:N,\n"
			"from:N (a vanished peer) or rate:P",
	},
	[EMU_OPTION_FAULT_DELAY] = {
		.name = "fault-delay", .var = "MLX5EMU_FAULT_DELAY",
		.arg = "SPEC", .kind = EMU_OPT_STRING, .unset = "off",
		.check = check_fault_sel,
		.flags = EMU_OPTF_INHERIT,
		.help = "hold requests back --fault-delay-us (SPEC\n"
			"as --fault-drop)",
	},
	[EMU_OPTION_FAULT_DELAY_US] = {
		.name = "fault-delay-us", .var = "MLX5EMU_FAULT_DELAY_US",
		.arg = "N", UINT_RANGE(1, 10000000), .def = "1000",
		.flags = EMU_OPTF_INHERIT,
		.help = "how long a delayed packet is held, in us",
	},
	[EMU_OPTION_FAULT_SEED] = {
		.name = "fault-seed", .var = "MLX5EMU_FAULT_SEED", .arg = "N",
		UINT_RANGE(0, 4294967295u), .def = "1",
		.flags = EMU_OPTF_INHERIT,
		.help = "seed of rate:P (same seed, same packets)",
	},
	[EMU_OPTION_FAULT_TIMEOUT_US] = {
		.name = "fault-timeout-us", .var = "MLX5EMU_FAULT_TIMEOUT_US",
		.arg = "N", UINT_RANGE(0, 100000000), .def = "0",
		.flags = EMU_OPTF_INHERIT,
		.help = "local ACK timeout of every RC QP, in us\n"
			"(0: the QP's, 4.096 us << timeout)",
	},
	[EMU_OPTION_FAULT_PORT_DOWN] = {
		.name = "fault-port-down", .var = "MLX5EMU_FAULT_PORT_DOWN",
		.arg = "AT:DUR", .kind = EMU_OPT_STRING, .unset = "off",
		.check = check_fault_window,
		.flags = EMU_OPTF_INHERIT,
		.help = "ports down AT ms after the NIC started,\n"
			"for DUR ms (PORT_ERR, then PORT_ACTIVE)",
	},
	[EMU_OPTION_FAULT_CQ_OVERRUN] = {
		.name = "fault-cq-overrun", .var = "MLX5EMU_FAULT_CQ_OVERRUN",
		.arg = "N", UINT_RANGE(0, 1u << 30), .def = "0",
		.flags = EMU_OPTF_INHERIT,
		.help = "the Nth CQE of every CQ overruns it\n"
			"(IBV_EVENT_CQ_ERR; 0: never)",
	},
};

const struct emu_option *emu_option_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < EMU_NOPTIONS; i++)
		if (emu_options[i].name && !strcmp(emu_options[i].name, name))
			return &emu_options[i];
	return NULL;
}

/* "a|b|c" */
static void join_choices(const char *const *choices, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (; *choices && n < len; choices++)
		n += snprintf(buf + n, len - n, "%s%s", n ? "|" : "", *choices);
}

static int parse_choice(const char *const *choices, const char *v,
			unsigned int *out)
{
	unsigned int i;

	for (i = 0; choices[i]; i++)
		if (!strcmp(choices[i], v)) {
			*out = i;
			return 0;
		}
	return -1;
}

int emu_option_parse(const struct emu_option *o, const char *v,
		     unsigned int *out, char *err, size_t errlen)
{
	static const char *const bools[] = { "off", "on", NULL };
	static const char *const bits[] = { "0", "1", NULL };
	char want[64];
	unsigned long n;
	char *end;

	*out = 0;
	switch (o->kind) {
	case EMU_OPT_UINT:
		n = strtoul(v, &end, 0);
		if (*v && *v != '-' && !*end && n >= o->min && n <= o->max) {
			*out = n;
			return 0;
		}
		snprintf(err, errlen, "%u..%u", o->min, o->max);
		return -1;
	case EMU_OPT_CHOICE:
		if (!parse_choice(o->choices, v, out))
			return 0;
		join_choices(o->choices, want, sizeof(want));
		snprintf(err, errlen, "%s", want);
		return -1;
	case EMU_OPT_BOOL:
		/* the launcher says on|off, the environment 1|0 */
		if (!parse_choice(bools, v, out) || !parse_choice(bits, v, out))
			return 0;
		snprintf(err, errlen, "on|off");
		return -1;
	case EMU_OPT_STRING:
		if (o->check)
			return o->check(v, err, errlen);
		n = strlen(v);
		if (!o->max || (n >= o->min && n <= o->max))
			return 0;
		snprintf(err, errlen, "%u..%u characters", o->min, o->max);
		return -1;
	}
	snprintf(err, errlen, "?");
	return -1;
}

const char *emu_option_default(const struct emu_option *o)
{
	return o->def ? o->def : o->unset;
}

/* "--name=ARG", "--name[=ARG]", "--name=a|b", or "VAR=..." */
static void option_form(const struct emu_option *o, char *buf, size_t len)
{
	char arg[64];

	if (o->kind == EMU_OPT_CHOICE)
		join_choices(o->choices, arg, sizeof(arg));
	else if (o->kind == EMU_OPT_BOOL)
		snprintf(arg, sizeof(arg), "on|off");
	else
		snprintf(arg, sizeof(arg), "%s", o->arg);
	if (!o->name)
		snprintf(buf, len, "%s=%s", o->var, arg);
	else if (o->flags & EMU_OPTF_OPTIONAL_ARG)
		snprintf(buf, len, "--%s[=%s]", o->name, arg);
	else
		snprintf(buf, len, "--%s=%s", o->name, arg);
}

/* the form, then the help lines from column 26, range and default */
static void usage_row(FILE *f, const struct emu_option *o)
{
	const char *h = o->help;
	char form[96], extra[64] = "";
	int col;

	option_form(o, form, sizeof(form));
	if (o->kind == EMU_OPT_UINT && o->def)
		snprintf(extra, sizeof(extra), "(%u..%u, default %s)", o->min,
			 o->max, o->def);
	else if (o->kind == EMU_OPT_UINT)
		snprintf(extra, sizeof(extra), "(%u..%u)", o->min, o->max);
	else if (o->def)
		snprintf(extra, sizeof(extra), "(default %s)", o->def);
	col = fprintf(f, "  %s", form);
	for (;;) {
		int n = strcspn(h, "\n");

		col += fprintf(f, "%*s%.*s", col < 26 ? 26 - col : 1, "", n, h);
		h += n;
		if (!*h)
			break;
		fputc('\n', f);
		h++;
		col = 0;
	}
	if (*extra && col + 1 + strlen(extra) > 79)
		fprintf(f, "\n%*s%s\n", 26, "", extra);
	else
		fprintf(f, "%s%s\n", *extra ? " " : "", extra);
}

void emu_option_usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "run options:\n");
	for (i = 0; i < EMU_NOPTIONS; i++)
		if (emu_options[i].name)
			usage_row(f, &emu_options[i]);
	fprintf(f, "\nenvironment of the data path (inherited):\n");
	for (i = 0; i < EMU_NOPTIONS; i++)
		if (!emu_options[i].name)
			usage_row(f, &emu_options[i]);
}
