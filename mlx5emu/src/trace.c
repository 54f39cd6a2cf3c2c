// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* --trace: one line per command the emulated kernel answers. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mlx5emu.h"

static const char *const write_names[] = {
	[IB_USER_VERBS_CMD_GET_CONTEXT] = "GET_CONTEXT",
	[IB_USER_VERBS_CMD_QUERY_DEVICE] = "QUERY_DEVICE",
	[IB_USER_VERBS_CMD_QUERY_PORT] = "QUERY_PORT",
	[IB_USER_VERBS_CMD_ALLOC_PD] = "ALLOC_PD",
	[IB_USER_VERBS_CMD_DEALLOC_PD] = "DEALLOC_PD",
	[IB_USER_VERBS_CMD_CREATE_AH] = "CREATE_AH",
	[IB_USER_VERBS_CMD_MODIFY_AH] = "MODIFY_AH",
	[IB_USER_VERBS_CMD_QUERY_AH] = "QUERY_AH",
	[IB_USER_VERBS_CMD_DESTROY_AH] = "DESTROY_AH",
	[IB_USER_VERBS_CMD_REG_MR] = "REG_MR",
	[IB_USER_VERBS_CMD_REG_SMR] = "REG_SMR",
	[IB_USER_VERBS_CMD_REREG_MR] = "REREG_MR",
	[IB_USER_VERBS_CMD_QUERY_MR] = "QUERY_MR",
	[IB_USER_VERBS_CMD_DEREG_MR] = "DEREG_MR",
	[IB_USER_VERBS_CMD_ALLOC_MW] = "ALLOC_MW",
	[IB_USER_VERBS_CMD_BIND_MW] = "BIND_MW",
	[IB_USER_VERBS_CMD_DEALLOC_MW] = "DEALLOC_MW",
	[IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL] = "CREATE_COMP_CHANNEL",
	[IB_USER_VERBS_CMD_CREATE_CQ] = "CREATE_CQ",
	[IB_USER_VERBS_CMD_RESIZE_CQ] = "RESIZE_CQ",
	[IB_USER_VERBS_CMD_DESTROY_CQ] = "DESTROY_CQ",
	[IB_USER_VERBS_CMD_POLL_CQ] = "POLL_CQ",
	[IB_USER_VERBS_CMD_PEEK_CQ] = "PEEK_CQ",
	[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] = "REQ_NOTIFY_CQ",
	[IB_USER_VERBS_CMD_CREATE_QP] = "CREATE_QP",
	[IB_USER_VERBS_CMD_QUERY_QP] = "QUERY_QP",
	[IB_USER_VERBS_CMD_MODIFY_QP] = "MODIFY_QP",
	[IB_USER_VERBS_CMD_DESTROY_QP] = "DESTROY_QP",
	[IB_USER_VERBS_CMD_POST_SEND] = "POST_SEND",
	[IB_USER_VERBS_CMD_POST_RECV] = "POST_RECV",
	[IB_USER_VERBS_CMD_ATTACH_MCAST] = "ATTACH_MCAST",
	[IB_USER_VERBS_CMD_DETACH_MCAST] = "DETACH_MCAST",
	[IB_USER_VERBS_CMD_CREATE_SRQ] = "CREATE_SRQ",
	[IB_USER_VERBS_CMD_MODIFY_SRQ] = "MODIFY_SRQ",
	[IB_USER_VERBS_CMD_QUERY_SRQ] = "QUERY_SRQ",
	[IB_USER_VERBS_CMD_DESTROY_SRQ] = "DESTROY_SRQ",
	[IB_USER_VERBS_CMD_POST_SRQ_RECV] = "POST_SRQ_RECV",
	[IB_USER_VERBS_CMD_OPEN_XRCD] = "OPEN_XRCD",
	[IB_USER_VERBS_CMD_CLOSE_XRCD] = "CLOSE_XRCD",
	[IB_USER_VERBS_CMD_CREATE_XSRQ] = "CREATE_XSRQ",
	[IB_USER_VERBS_CMD_OPEN_QP] = "OPEN_QP",
};

static const char *const ex_names[] = {
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = "EX_QUERY_DEVICE",
	[IB_USER_VERBS_EX_CMD_CREATE_CQ] = "EX_CREATE_CQ",
	[IB_USER_VERBS_EX_CMD_CREATE_QP] = "EX_CREATE_QP",
	[IB_USER_VERBS_EX_CMD_MODIFY_QP] = "EX_MODIFY_QP",
	[IB_USER_VERBS_EX_CMD_CREATE_FLOW] = "EX_CREATE_FLOW",
	[IB_USER_VERBS_EX_CMD_DESTROY_FLOW] = "EX_DESTROY_FLOW",
	[IB_USER_VERBS_EX_CMD_CREATE_WQ] = "EX_CREATE_WQ",
	[IB_USER_VERBS_EX_CMD_MODIFY_WQ] = "EX_MODIFY_WQ",
	[IB_USER_VERBS_EX_CMD_DESTROY_WQ] = "EX_DESTROY_WQ",
	[IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL] = "EX_CREATE_RWQ_IND_TBL",
	[IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL] = "EX_DESTROY_RWQ_IND_TBL",
	[IB_USER_VERBS_EX_CMD_MODIFY_CQ] = "EX_MODIFY_CQ",
};

const char *emu_write_cmd_name(uint32_t cmd, bool ex)
{
	const char *const *tab = ex ? ex_names : write_names;
	size_t n = ex ? ARRAY_SIZE(ex_names) : ARRAY_SIZE(write_names);

	if (cmd < n && tab[cmd])
		return tab[cmd];
	return "UNKNOWN";
}

void emu_trace(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (emu_cfg.trace_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "mlx5emu[%d]: ", getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* one write() so lines of concurrent processes do not interleave */
	if (emu_libc.write)
		emu_libc.write(emu_cfg.trace_fd, line, n);
}
