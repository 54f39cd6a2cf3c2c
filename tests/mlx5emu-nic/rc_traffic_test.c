// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RC traffic on the emulated device, through the real libibverbs/libmlx5.
 *
 * The test forks before touching the device: the child is a second process
 * with its own device context (and so its own emulator instance and NIC
 * thread), reached over the fabric; a socketpair carries the out-of-band
 * exchange and the child's reports of what landed in its memory. The last
 * tests use a loopback pair inside the parent, where WQEs can be forged
 * through mlx5dv.
 *
 *   mlx5emu run -- mlx5emu-nic-rc-traffic-test
 */
#include <endian.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "rc_connect.h"

#define RW_LEN (64 * 1024)
#define RO_LEN 4096
#define RECV_OFF (32 * 1024)
#define RECV_LEN 4096
#define NRECV 8
#define RO_FILL 0x5a

struct info {
	struct rc_addr rc;
	uint32_t rkey_rw, rkey_ro;
	uint64_t addr_rw, addr_ro;
};

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *rw, *ro;
	uint8_t *rw_buf, *ro_buf;
};

/* what the child reports about a command */
struct report {
	uint64_t sum;
	uint32_t status, byte_len, imm, flags, src_qp, state, ok;
};

static int sock = -1;
static pid_t child;
static struct end local;
static struct info remote;

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static int end_open(struct end *e)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 256,
			 .max_recv_wr = NRECV,
			 .max_send_sge = 4,
			 .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};

	if (!list || !list[0])
		return -1;
	e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!e->ctx)
		return -1;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 512, NULL, NULL, 0);
	e->rw_buf = calloc(1, RW_LEN);
	e->ro_buf = malloc(RO_LEN);
	memset(e->ro_buf, RO_FILL, RO_LEN);
	e->rw = ibv_reg_mr(e->pd, e->rw_buf, RW_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	e->ro = ibv_reg_mr(e->pd, e->ro_buf, RO_LEN, IBV_ACCESS_REMOTE_READ);
	if (!e->pd || !e->cq || !e->rw || !e->ro)
		return -1;
	qa.send_cq = qa.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &qa);
	if (!e->qp)
		return -1;
	return rc_qp_init(e->qp, 1,
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC);
}

static void end_info(struct end *e, struct info *i)
{
	memset(i, 0, sizeof(*i)); /* padding goes over the socket too */
	rc_port_addr(e->ctx, 1, -1, &i->rc);
	i->rc.qpn = e->qp->qp_num;
	i->rkey_rw = e->rw->rkey;
	i->rkey_ro = e->ro->rkey;
	i->addr_rw = (uintptr_t)e->rw_buf;
	i->addr_ro = (uintptr_t)e->ro_buf;
}

static int end_connect(struct end *e, const struct info *self,
		       const struct info *peer)
{
	return rc_qp_connect(e->qp, 1, -1, &self->rc, &peer->rc);
}

static int post_recv(struct end *e, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->rw_buf + RECV_OFF + i * RECV_LEN,
		.length = RECV_LEN,
		.lkey = e->rw->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n, spins = 0;

	/* the NIC runs in its own thread: wait for it, but not forever */
	while (!(n = ibv_poll_cq(cq, 1, wc)) && ++spins < 20000000)
		if (!(spins & 1023))
			usleep(10);
	return n;
}

/* ---- the child: a target in its own process ---- */

static void child_main(int fd)
{
	struct end e = {};
	struct info me, peer;
	struct report r;
	char cmd[16];
	unsigned int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
	if (end_open(&e))
		_exit(2);
	end_info(&e, &me);
	for (i = 0; i < NRECV; i++)
		post_recv(&e, i);
	/* at RTR before the parent learns our QPN, as ibv_rc_pingpong does */
	if (read(fd, &peer, sizeof(peer)) != sizeof(peer) ||
	    end_connect(&e, &me, &peer) ||
	    write(fd, &me, sizeof(me)) != sizeof(me))
		_exit(3);
	while (read(fd, cmd, sizeof(cmd)) == sizeof(cmd)) {
		uint32_t off, len;
		struct ibv_wc wc;

		memset(&r, 0, sizeof(r));
		memcpy(&off, cmd + 4, 4);
		memcpy(&len, cmd + 8, 4);
		switch (cmd[0]) {
		case 'C': /* checksum of our RW memory */
			r.sum = fnv(e.rw_buf + off, len);
			break;
		case 'R': /* one receive completion */
			r.ok = poll_one(e.cq, &wc);
			r.status = wc.status;
			r.byte_len = wc.byte_len;
			r.imm = be32toh(wc.imm_data);
			r.flags = wc.wc_flags;
			r.src_qp = wc.src_qp;
			if (r.ok && !wc.status)
				r.sum = fnv(e.rw_buf + RECV_OFF +
						    wc.wr_id * RECV_LEN,
					    wc.byte_len);
			break;
		case 'O': /* read-only MR untouched? */
			r.ok = 1;
			for (i = 0; i < RO_LEN; i++)
				if (e.ro_buf[i] != RO_FILL)
					r.ok = 0;
			break;
		case 'S': {
			struct ibv_qp_attr a;
			struct ibv_qp_init_attr ia;

			ibv_query_qp(e.qp, &a, IBV_QP_STATE, &ia);
			r.state = a.qp_state;
			break;
		}
		default:
			_exit(0);
		}
		if (write(fd, &r, sizeof(r)) != sizeof(r))
			_exit(4);
	}
	_exit(0);
}

static struct report ask(char c, uint32_t off, uint32_t len)
{
	char cmd[16] = { c };
	struct report r = {};

	memcpy(cmd + 4, &off, 4);
	memcpy(cmd + 8, &len, 4);
	assert_int_equal(write(sock, cmd, sizeof(cmd)), sizeof(cmd));
	assert_int_equal(read(sock, &r, sizeof(r)), sizeof(r));
	return r;
}

static int group_setup(void **state)
{
	struct info me;
	int sv[2];

	(void)state;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		close(sv[0]);
		child_main(sv[1]);
	}
	close(sv[1]);
	sock = sv[0];
	if (end_open(&local))
		return -1;
	end_info(&local, &me);
	if (write(sock, &me, sizeof(me)) != sizeof(me) ||
	    read(sock, &remote, sizeof(remote)) != sizeof(remote))
		return -1;
	return end_connect(&local, &me, &remote);
}

static int group_teardown(void **state)
{
	int status = 0;

	(void)state;
	close(sock);
	waitpid(child, &status, 0);
	return 0;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	while (n--)
		*p++ = (uint8_t)(seed = seed * 1103515245 + 12345) >> 3;
}

static void post(struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	assert_int_equal(ibv_post_send(local.qp, wr, &bad), 0);
}

static void expect_wc(uint64_t wr_id, enum ibv_wc_status status)
{
	struct ibv_wc wc;

	assert_int_equal(poll_one(local.cq, &wc), 1);
	assert_int_equal(wc.status, status);
	assert_int_equal(wc.wr_id, wr_id);
}

/* posts wr and expects its successful completion, wr_id */
static void post_ok(struct ibv_send_wr *wr, uint64_t wr_id)
{
	post(wr);
	expect_wc(wr_id, IBV_WC_SUCCESS);
}

/* a 3-SGE RDMA WRITE and an inline one, checked byte for byte remotely */
static void test_write_sgl(void **state)
{
	uint8_t *src = local.rw_buf;
	struct ibv_sge sge[3] = {
		{ (uintptr_t)src, 1000, local.rw->lkey },
		{ (uintptr_t)src + 5000, 2000, local.rw->lkey },
		{ (uintptr_t)src + 9000, 96, local.rw->lkey },
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = sge,
		.num_sge = 3,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { remote.addr_rw + 100, remote.rkey_rw },
	};
	uint8_t expect[3096];
	uint64_t word = 0x0123456789abcdefull;
	struct ibv_sge isge = { (uintptr_t)&word, 8, 0 };

	(void)state;
	fill(src, 10000, 7);
	memcpy(expect, src, 1000);
	memcpy(expect + 1000, src + 5000, 2000);
	memcpy(expect + 3000, src + 9000, 96);
	post_ok(&wr, 1);
	assert_true(ask('C', 100, 3096).sum == fnv(expect, 3096));

	wr.wr_id = 2;
	wr.sg_list = &isge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = remote.addr_rw + 8000;
	post_ok(&wr, 2);
	assert_true(ask('C', 8000, 8).sum == fnv((uint8_t *)&word, 8));
}

/* 300 writes, one signaled in 50: one CQE per 50, data all there */
static void test_unsignaled_batches(void **state)
{
	uint8_t *src = local.rw_buf + 16384;
	struct ibv_send_wr wr[10], *w;
	struct ibv_sge sge[10];
	unsigned int i, j, n = 0;

	(void)state;
	fill(src, 300 * 32, 99);
	for (i = 0; i < 30; i++) {
		for (j = 0; j < 10; j++, n++) {
			sge[j] = (struct ibv_sge){ (uintptr_t)src + n * 32, 32,
						   local.rw->lkey };
			w = &wr[j];
			memset(w, 0, sizeof(*w));
			w->wr_id = 1000 + n;
			w->sg_list = &sge[j];
			w->num_sge = 1;
			w->opcode = IBV_WR_RDMA_WRITE;
			w->send_flags = (n + 1) % 50 ? 0 : IBV_SEND_SIGNALED;
			w->wr.rdma.remote_addr =
				remote.addr_rw + 10000 + n * 32;
			w->wr.rdma.rkey = remote.rkey_rw;
			w->next = j < 9 ? &wr[j + 1] : NULL;
		}
		post(wr);
		if (n % 50 == 0)
			expect_wc(1000 + n - 1, IBV_WC_SUCCESS);
	}
	assert_true(ask('C', 10000, 300 * 32).sum == fnv(src, 300 * 32));
}

static void test_send_recv(void **state)
{
	uint8_t *src = local.rw_buf + 20000;
	struct ibv_sge sge = { (uintptr_t)src, 3000, local.rw->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 3,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0xfeed),
	};
	struct report r;

	(void)state;
	fill(src, 3000, 3);
	post_ok(&wr, 3);
	r = ask('R', 0, 0);
	assert_int_equal(r.ok, 1);
	assert_int_equal(r.status, IBV_WC_SUCCESS);
	assert_int_equal(r.byte_len, 3000);
	assert_int_equal(r.imm, 0xfeed);
	assert_true(r.flags & IBV_WC_WITH_IMM);
	assert_int_equal(r.src_qp, local.qp->qp_num);
	assert_true(r.sum == fnv(src, 3000));
}

static void test_read(void **state)
{
	uint8_t *dst = local.rw_buf + 40000;
	struct ibv_sge sge = { (uintptr_t)dst, 3096, local.rw->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 4,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { remote.addr_rw + 100, remote.rkey_rw },
	};

	(void)state;
	memset(dst, 0, 3096);
	post_ok(&wr, 4);
	/* what test_write_sgl put there */
	assert_true(fnv(dst, 3096) == ask('C', 100, 3096).sum);
	/* reading the read-only MR is allowed */
	wr.wr_id = 5;
	wr.wr.rdma.remote_addr = remote.addr_ro;
	wr.wr.rdma.rkey = remote.rkey_ro;
	sge.length = 64;
	post_ok(&wr, 5);
	assert_int_equal(dst[0], RO_FILL);
	assert_int_equal(dst[63], RO_FILL);
}

/*
 * fetch-and-add and compare-and-swap on host-order values, returned in
 * host order: what mlx5 does when it reports IBV_ATOMIC_HCA
 */
static void test_atomics(void **state)
{
	uint64_t *res = (uint64_t *)(local.rw_buf + 48000), expect;
	struct ibv_sge sge = { (uintptr_t)res, 8, local.rw->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct {
		enum ibv_wr_opcode op;
		uint64_t add_or_cmp, swap, old;
	} steps[] = {
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 0 },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 7, 0, 5 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 12, 99, 12 }, /* swaps */
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 1, 2, 99 }, /* does not */
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		wr.wr_id = 100 + i;
		wr.opcode = steps[i].op;
		wr.wr.atomic.remote_addr = remote.addr_rw + 60000;
		wr.wr.atomic.rkey = remote.rkey_rw;
		wr.wr.atomic.compare_add = steps[i].add_or_cmp;
		wr.wr.atomic.swap = steps[i].swap;
		*res = ~0ull;
		post_ok(&wr, 100 + i);
		assert_int_equal(*res, steps[i].old);
	}
	expect = 99;
	assert_true(ask('C', 60000, 8).sum == fnv((uint8_t *)&expect, 8));
}

/* writing a read-only MR: REM_ACCESS_ERR, target untouched, flush after */
static void test_remote_access_error(void **state)
{
	uint64_t word = 0x1111111111111111ull;
	struct ibv_sge sge = { (uintptr_t)&word, 8, 0 };
	struct ibv_send_wr wr[2] = {
		{
			.wr_id = 6,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_INLINE, /* unsignaled */
			.wr.rdma = { remote.addr_ro, remote.rkey_ro },
			.next = &wr[1],
		},
		{
			.wr_id = 7,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
			.wr.rdma = { remote.addr_rw, remote.rkey_rw },
		},
	};

	(void)state;
	post(wr);
	expect_wc(6, IBV_WC_REM_ACCESS_ERR);
	expect_wc(7, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(ask('O', 0, 0).ok, 1);
	/* the responder moved to ERR as well, and flushes its receives */
	assert_int_equal(ask('S', 0, 0).state, IBV_QPS_ERR);
	assert_int_equal(ask('R', 0, 0).status, IBV_WC_WR_FLUSH_ERR);
}

/* ---- forged WQEs on a loopback pair inside this process ---- */

struct pair {
	struct end a, b;
};

static void pair_open(struct pair *p)
{
	struct info ia, ib;

	assert_int_equal(end_open(&p->a), 0);
	assert_int_equal(end_open(&p->b), 0);
	end_info(&p->a, &ia);
	end_info(&p->b, &ib);
	assert_int_equal(end_connect(&p->a, &ia, &ib), 0);
	assert_int_equal(end_connect(&p->b, &ib, &ia), 0);
}

static void end_close(struct end *e)
{
	ibv_destroy_qp(e->qp);
	ibv_dereg_mr(e->rw);
	ibv_dereg_mr(e->ro);
	ibv_destroy_cq(e->cq);
	ibv_dealloc_pd(e->pd);
	ibv_close_device(e->ctx);
	free(e->rw_buf);
	free(e->ro_buf);
}

/* write one control segment at SQ index 0 and ring SND_DBR directly */
static void forge(struct end *e, uint8_t opcode, uint8_t ds, uint32_t nbb)
{
	struct mlx5dv_qp dq = {}; /* comp_mask is an input */
	struct mlx5dv_obj obj = { .qp = { .in = e->qp, .out = &dq } };
	struct mlx5_wqe_ctrl_seg *ctrl;

	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	ctrl = dq.sq.buf;
	memset(ctrl, 0, 64);
	ctrl->opmod_idx_opcode = htobe32(opcode);
	ctrl->qpn_ds = htobe32(e->qp->qp_num << 8 | ds);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	dq.dbrec[MLX5_SND_DBR] = htobe32(nbb);
}

static void test_loopback_and_malformed(void **state)
{
	struct pair p = {};
	uint64_t word = 0xabcdef;
	struct ibv_sge sge = { (uintptr_t)&word, 8, 0 };
	struct ibv_send_wr wr = {
		.wr_id = 8,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	(void)state;
	pair_open(&p);
	/* in-process loopback moves data too */
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.rw_buf + 8;
	wr.wr.rdma.rkey = p.b.rw->rkey;
	assert_int_equal(ibv_post_send(p.a.qp, &wr, &bad), 0);
	assert_int_equal(poll_one(p.a.cq, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(p.b.rw_buf + 8, &word, 8);

	/* an opcode the device does not have */
	forge(&p.b, 0x77, 2, 1);
	assert_int_equal(poll_one(p.b.cq, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_LOC_QP_OP_ERR);
	end_close(&p.a);
	end_close(&p.b);

	/* a DS count of zero */
	memset(&p, 0, sizeof(p));
	pair_open(&p);
	forge(&p.a, MLX5_OPCODE_RDMA_WRITE, 0, 1);
	assert_int_equal(poll_one(p.a.cq, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_LOC_QP_OP_ERR);
	/* a DS count past what SND_DBR says was posted */
	memset(&wc, 0, sizeof(wc));
	end_close(&p.a);
	end_close(&p.b);
	memset(&p, 0, sizeof(p));
	pair_open(&p);
	forge(&p.a, MLX5_OPCODE_RDMA_WRITE, 12, 1);
	assert_int_equal(poll_one(p.a.cq, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_LOC_QP_OP_ERR);
	assert_int_equal(p.b.rw_buf[0], 0);
	end_close(&p.a);
	end_close(&p.b);
}

/*
 * A QP created without a send queue (max_send_wr 0), its send doorbell
 * record moved by hand and its register rung: the device ignores it (the
 * NIC once read megabytes past the QP's buffer), and the NIC still moves
 * the other QPs' data afterwards.
 */
static void test_doorbell_without_send_queue(void **state)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_recv_wr = 4, .max_recv_sge = 1 },
	};
	struct mlx5dv_qp dq = {};
	struct mlx5dv_obj obj = { .qp = { .out = &dq } };
	uint64_t word = 0x5e5e;
	struct ibv_sge sge = { (uintptr_t)&word, 8, 0 };
	struct ibv_send_wr wr = {
		.wr_id = 9,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
	}, *bad;
	struct pair p = {};
	struct ibv_qp *nosq, *peer;
	struct ibv_wc wc;
	unsigned int i;

	(void)state;
	pair_open(&p);
	qa.send_cq = qa.recv_cq = p.a.cq;
	nosq = ibv_create_qp(p.a.pd, &qa);
	peer = ibv_create_qp(p.a.pd, &qa);
	assert_non_null(nosq);
	assert_non_null(peer);
	/* in RTS, where the NIC walks a send queue */
	assert_int_equal(
		rc_connect_pair(nosq, peer, 1, IBV_ACCESS_REMOTE_WRITE), 0);
	obj.qp.in = nosq;
	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	assert_int_equal(dq.sq.wqe_cnt, 0);
	for (i = 1; i <= 3; i++) {
		dq.dbrec[MLX5_SND_DBR] = htobe32(i * 1000);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		*(volatile uint64_t *)dq.bf.reg = 0;
		usleep(20000); /* the NIC looks at every doorbell meanwhile */
	}
	assert_int_equal(ibv_poll_cq(p.a.cq, 1, &wc), 0);
	/* the NIC is alive and serves the other QPs */
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.rw_buf;
	wr.wr.rdma.rkey = p.b.rw->rkey;
	assert_int_equal(ibv_post_send(p.a.qp, &wr, &bad), 0);
	assert_int_equal(poll_one(p.a.cq, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 9);
	assert_memory_equal(p.b.rw_buf, &word, 8);
	assert_int_equal(ibv_destroy_qp(nosq), 0);
	assert_int_equal(ibv_destroy_qp(peer), 0);
	end_close(&p.a);
	end_close(&p.b);
}

/* a fork() child gets a NIC of its own for the contexts it opens */
static void test_fork_child(void **state)
{
	int status = -1;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct pair p = {};
		uint64_t word = 0x5555aaaa;
		struct ibv_sge sge = { (uintptr_t)&word, 8, 0 };
		struct ibv_send_wr wr = {
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		}, *bad;
		struct ibv_wc wc;
		struct info ia, ib;

		if (end_open(&p.a) || end_open(&p.b))
			_exit(2);
		end_info(&p.a, &ia);
		end_info(&p.b, &ib);
		if (end_connect(&p.a, &ia, &ib) || end_connect(&p.b, &ib, &ia))
			_exit(3);
		wr.wr.rdma.remote_addr = (uintptr_t)p.b.rw_buf;
		wr.wr.rdma.rkey = p.b.rw->rkey;
		if (ibv_post_send(p.a.qp, &wr, &bad) ||
		    poll_one(p.a.cq, &wc) != 1 || wc.status)
			_exit(4);
		_exit(memcmp(p.b.rw_buf, &word, 8) ? 5 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_sgl),
		cmocka_unit_test(test_unsignaled_batches),
		cmocka_unit_test(test_send_recv),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_remote_access_error),
		cmocka_unit_test(test_loopback_and_malformed),
		cmocka_unit_test(test_doorbell_without_send_queue),
		cmocka_unit_test(test_fork_child),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
