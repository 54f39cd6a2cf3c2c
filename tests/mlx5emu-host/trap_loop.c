// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The loopback pair of the doorbell trap's tests (trap_loop.h). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/mlx5dv.h>

#include "emu_test.h"
#include "rc_loop.h"
#include "trap_loop.h"

#define PM_UFFD_WP (1ull << 57) /* Documentation/admin-guide/mm/pagemap */

void loop_open(struct loop *l)
{
	struct mlx5dv_qp dq = {};
	struct mlx5dv_obj obj = { .qp = { .out = &dq } };

	memset(l, 0, sizeof(*l));
	l->ctx = emu_test_open();
	l->pd = ibv_alloc_pd(l->ctx);
	assert_non_null(l->pd);
	l->cq = ibv_create_cq(l->ctx, 16, NULL, NULL, 0);
	assert_non_null(l->cq);
	l->a = rc_loop_create_qp(l->pd, l->cq, 8);
	l->b = rc_loop_create_qp(l->pd, l->cq, 8);
	assert_non_null(l->a);
	assert_non_null(l->b);
	rc_loop_connect(l->a, l->b);
	l->mr = ibv_reg_mr(l->pd, l->buf, sizeof(l->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(l->mr);
	obj.qp.in = l->a;
	assert_int_equal(mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	l->reg = (uintptr_t)dq.bf.reg;
}

void loop_close(struct loop *l)
{
	assert_int_equal(ibv_dereg_mr(l->mr), 0);
	assert_int_equal(ibv_destroy_qp(l->a), 0);
	assert_int_equal(ibv_destroy_qp(l->b), 0);
	assert_int_equal(ibv_destroy_cq(l->cq), 0);
	assert_int_equal(ibv_dealloc_pd(l->pd), 0);
	assert_int_equal(ibv_close_device(l->ctx), 0);
}

int loop_page_protected(uintptr_t addr)
{
	long ps = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t ent = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, &ent, sizeof(ent), addr / ps * sizeof(ent));
	close(fd);
	if (n != sizeof(ent))
		return -1;
	return !!(ent & PM_UFFD_WP);
}
