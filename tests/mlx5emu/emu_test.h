/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Helpers shared by the mlx5emu tests: device, attribution, resources. */
#ifndef MLX5EMU_TEST_H
#define MLX5EMU_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct ibv_context *emu_test_open(void);
bool emu_test_static_mode(void);
unsigned int emu_test_env_uint(const char *name, unsigned int def);

/* `mlx5emu stat --machine` for this process */
struct emu_test_page {
	uint32_t ctx;
	uint32_t page_id;
	char kind[16];
	unsigned int qps;
	unsigned int mapped; /* application mappings */
};

struct emu_test_qp {
	uint32_t ctx;
	uint32_t qpn;
	uint32_t page_id;
	uint32_t uar;
	int bfreg; /* static bfreg number, -1 when libmlx5 chose the UAR */
};

struct emu_test_stat {
	uint32_t last_ctx; /* highest context id seen */
	/* of that context: UAR requests the emulated kernel refused */
	unsigned int refused;
	char last_refused[64]; /* "<request>:<ERRNO>" */
	unsigned int npages;
	struct emu_test_page pages[1024];
	unsigned int nqps;
	struct emu_test_qp qps[1024];
};

void emu_test_read_stat(struct emu_test_stat *st);
unsigned int emu_test_count_pages(const struct emu_test_stat *st, uint32_t ctx,
				  const char *kind);
const struct emu_test_qp *emu_test_find_qp(const struct emu_test_stat *st,
					   uint32_t qpn);

/* the datagrams of this process with that fate ("delivered", "qkey", ...) */
unsigned long long emu_test_datagrams(const char *fate);

unsigned int emu_test_fd_count(void);
long emu_test_rss_kib(void);

#endif
