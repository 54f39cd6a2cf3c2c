// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The mlx5 send opcodes a QP may post, as one table (rxe_opcode.c does
 * the same for IBA opcodes) so the requester and responder ask it instead
 * of switching on opcodes. Anything absent, or posted on a transport that
 * does not carry it, is a local QP operation error. The transports are a
 * table too, so no file asks which transport a QP is.
 */
#include "nic.h"

#define RC (1u << NIC_QPT_RC)
#define UC (1u << NIC_QPT_UC)
#define UD (1u << NIC_QPT_UD)

static const struct nic_opcode nic_opcodes[256] = {
	[MLX5_OPCODE_NOP] = {
		.name = "NOP",
		.transports = RC | UC | UD,
		.flags = NIC_OPF_VALID,
	},
	[MLX5_OPCODE_RDMA_WRITE] = {
		.name = "RDMA_WRITE",
		.transports = RC | UC,
		.flags = NIC_OPF_VALID | NIC_OPF_RADDR | NIC_OPF_PAYLOAD,
		.remote_access = NIC_ACCESS_REMOTE_WRITE,
	},
	[MLX5_OPCODE_RDMA_WRITE_IMM] = {
		.name = "RDMA_WRITE_IMM",
		.transports = RC | UC,
		.flags = NIC_OPF_VALID | NIC_OPF_RADDR | NIC_OPF_PAYLOAD |
			 NIC_OPF_RECV | NIC_OPF_IMM,
		.remote_access = NIC_ACCESS_REMOTE_WRITE,
		.resp_cqe = MLX5_CQE_RESP_WR_IMM,
	},
	[MLX5_OPCODE_SEND] = {
		.name = "SEND",
		.transports = RC | UC | UD,
		.flags = NIC_OPF_VALID | NIC_OPF_PAYLOAD | NIC_OPF_RECV,
		.resp_cqe = MLX5_CQE_RESP_SEND,
	},
	[MLX5_OPCODE_SEND_IMM] = {
		.name = "SEND_IMM",
		.transports = RC | UC | UD,
		.flags = NIC_OPF_VALID | NIC_OPF_PAYLOAD | NIC_OPF_RECV |
			 NIC_OPF_IMM,
		.resp_cqe = MLX5_CQE_RESP_SEND_IMM,
	},
	[MLX5_OPCODE_SEND_INVAL] = {
		.name = "SEND_INVAL",
		.transports = RC,
		.flags = NIC_OPF_VALID | NIC_OPF_PAYLOAD | NIC_OPF_RECV |
			 NIC_OPF_INV,
		.resp_cqe = MLX5_CQE_RESP_SEND_INV,
	},
	[MLX5_OPCODE_RDMA_READ] = {
		.name = "RDMA_READ",
		.transports = RC,
		.flags = NIC_OPF_VALID | NIC_OPF_RADDR | NIC_OPF_READ,
		.remote_access = NIC_ACCESS_REMOTE_READ,
	},
	/* 64-bit, in host order in remote memory and in the reply */
	[MLX5_OPCODE_ATOMIC_CS] = {
		.name = "ATOMIC_CS",
		.transports = RC,
		.flags = NIC_OPF_VALID | NIC_OPF_RADDR | NIC_OPF_READ |
			 NIC_OPF_ATOMIC,
		.remote_access = NIC_ACCESS_REMOTE_ATOMIC,
	},
	[MLX5_OPCODE_ATOMIC_FA] = {
		.name = "ATOMIC_FA",
		.transports = RC,
		.flags = NIC_OPF_VALID | NIC_OPF_RADDR | NIC_OPF_READ |
			 NIC_OPF_ATOMIC,
		.remote_access = NIC_ACCESS_REMOTE_ATOMIC,
	},
};

static const struct nic_transport nic_transports[] = {
	[NIC_QPT_RC] = {
		.name = "RC",
		.reliable = true,
		.connected = true,
	},
	[NIC_QPT_UC] = {
		.name = "UC",
		.connected = true,
	},
	[NIC_QPT_UD] = {
		.name = "UD",
		.recv_hdr = NIC_GRH_LEN,
		.max_msg = NIC_UD_MTU, /* one packet */
	},
};

const struct nic_transport *nic_transport(enum nic_qp_type type)
{
	static const struct nic_transport none = { .name = "?" };

	if ((unsigned int)type >=
		    sizeof(nic_transports) / sizeof(nic_transports[0]) ||
	    !nic_transports[type].name)
		return &none;
	return &nic_transports[type];
}

const struct nic_opcode *nic_opcode(uint8_t opcode)
{
	const struct nic_opcode *op = &nic_opcodes[opcode];

	return (op->flags & NIC_OPF_VALID) ? op : NULL;
}
