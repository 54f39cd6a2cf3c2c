// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The capture side of the differential test of libmlx5's post and poll
 * paths (mlx5_diff.sh runs it on pristine rdma-core 65.0 and on the
 * series, under mlx5emu, and requires the two outputs identical).
 *
 *   mlx5_diff [OUTPUT]          (inside mlx5emu run; stdout by default)
 *
 * For every work-request shape of the matrix (QP type x thread domain or
 * not x ibv_post_send or ibv_wr_* x wide or narrow QP, then opcode, SGE
 * count, inline, flags, list length; then three times around the SQ) it
 * prints what the NIC reads: each send WQE's basic blocks in SQ order
 * (the bytes the device does not read as "..", see capture.c), SND_DBR,
 * the BlueFlame half the post wrote; each receive WQE and
 * RCV_DBR, or an SRQ's record and WQEs; and the return value and bad_wr
 * of every post. CQs are plain, extended, a TD's, or lock-free by flag. Every few posts
 * a signaled marker is posted and the CQs are drained once all their CQEs
 * are written, so that the polls (ibv_poll_cq by 1 or 16, or the extended
 * ibv_start_poll/ibv_next_poll) return the same batches in every run; each
 * completion's fields, what one more poll of the then empty CQ
 * returns, and the CQ's SET_CI record are printed. Then the
 * refusals (too many SGEs, inline too long, a bad WR inside a list, a full
 * SQ) and error completions (remote access error, flushed WRs of a QP in
 * error, flushed receives).
 *
 * Addresses are the same in every run (one region at a fixed address).
 * The WQEs carry QPNs as they are: a fresh fabric gives the same ones in
 * every run; completions print them relative to the first QP's. Not
 * compared: the first 8 bytes of a BlueFlame half (the ring, which the
 * emulated NIC swaps to zero when it sees it; they are the first 8 bytes
 * of the WQE's control segment, which the SQ's copy shows), and LOCAL_INV
 * and BIND_MW, which the emulator does not execute (no UMR, no MW).
 *
 * MLX5_DIFF_RANDOM=SEED:COUNT runs COUNT seeded random sequences instead
 * of the matrix (random.c).
 * MLX5_DIFF_TD_SHARING=N asks every TD for sharing level N (the series'
 * ibv_td_init_attr), to compare each level with 65.0's one TD placement.
 * MLX5_DIFF_FLIP=N flips a bit of the Nth send basic block printed,
 * MLX5_DIFF_FLIP_WC=N one of the Nth completion's: the comparison must
 * catch either.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mlx5_diff.h"

void fail(struct diff *d, const char *what)
{
	fprintf(d->out, "FAIL %s\n", what);
	fprintf(stderr, "mlx5_diff: %s\n", what);
	d->failures++;
}

static uint64_t region_hash(struct diff *d)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < EP_REGION_SIZE; i++)
		h = (h ^ d->dev.region[i]) * 0x100000001b3ULL;
	return h;
}

static void run_config(struct diff *d, const struct ep_config *cfg)
{
	struct ep_pair p;

	fprintf(d->out,
		"config type %d td %d wr_api %d cq_ex %d cq_st %d narrow %d srq %d\n",
		cfg->type, cfg->td, cfg->wr_api, cfg->cq_ex,
		cfg->cq_single_threaded, cfg->narrow, cfg->srq);
	d->p = &p;
	d->sent = d->signaled = d->received = d->recv_posted = 0;
	if (ep_pair_open(&d->dev, &p, cfg)) {
		fail(d, "cannot open the QP pair");
		ep_pair_close(&p);
		return;
	}
	post_recvs(d);
	run_matrix(d);
	run_wrap(d);
	run_refusals(d);
	run_errors(d);
	run_full_sq(d);
	run_before_rts(d);
	fprintf(d->out, "region %#llx\n", (unsigned long long)region_hash(d));
	ep_pair_close(&p);
	d->p = NULL;
}

/* MLX5_DIFF_TD_SHARING=N: every TD asks for sharing level N (the series) */
static int td_sharing_from_env(struct diff *d)
{
	const char *s = getenv("MLX5_DIFF_TD_SHARING");
	char *end;

	if (!s)
		return 0;
	d->dev.td_sharing = strtoul(s, &end, 10);
	if (*s && !*end && d->dev.td_sharing <= IBV_TD_SHARING_REGISTER)
		return 0;
	fail(d, "MLX5_DIFF_TD_SHARING takes a level, 0 to 3");
	return -1;
}

/*
 * MLX5_DIFF_RANDOM=SEED:COUNT: COUNT random sequences from SEED instead of
 * the matrix (random.c); returns whether they ran.
 */
static bool random_from_env(struct diff *d)
{
	const char *s = getenv("MLX5_DIFF_RANDOM");
	unsigned long long seed;
	unsigned long count;
	char *end;

	if (!s)
		return false;
	seed = strtoull(s, &end, 0);
	if (end == s || *end != ':') {
		fail(d, "MLX5_DIFF_RANDOM takes SEED:COUNT");
		return true;
	}
	count = strtoul(end + 1, &end, 0);
	if (*end) {
		fail(d, "MLX5_DIFF_RANDOM takes SEED:COUNT");
		return true;
	}
	run_random(d, seed, count);
	fprintf(d->out, "region %#llx\n", (unsigned long long)region_hash(d));
	return true;
}

/* every QP type, with and without a TD, both APIs, wide and narrow QPs */
static void run_all(struct diff *d)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };
	unsigned int i;

	for (i = 0; i < 8 * ARRAY_SIZE(types); i++) {
		struct ep_config cfg = { .type = types[i / 8],
					 .td = i & 4,
					 .wr_api = i & 2,
					 .narrow = i & 1 };

		/*
		 * a TD's CQs come from ibv_create_cq_ex (its parent domain);
		 * without one, the extended CQs of narrow QPs are lock-free
		 */
		cfg.cq_ex = cfg.td || cfg.wr_api;
		cfg.cq_single_threaded = !cfg.td && cfg.wr_api && cfg.narrow;
		/* narrow QPs posting through ibv_post_send receive from an SRQ */
		cfg.srq = !cfg.wr_api && cfg.narrow;
		run_config(d, &cfg);
	}
}

int main(int argc, char **argv)
{
	struct diff *d = calloc(1, sizeof(*d));
	int ret;

	if (!d || argc > 2) {
		fprintf(stderr, "usage: mlx5_diff [OUTPUT]\n");
		free(d);
		return 2;
	}
	d->out = argc == 2 ? fopen(argv[1], "w") : stdout;
	if (!d->out) {
		perror(argv[1]);
		free(d);
		return 2;
	}
	capture_flip_from_env();
	if (ep_device_open(&d->dev))
		fail(d, "cannot open the device");
	else if (!td_sharing_from_env(d) && !random_from_env(d))
		run_all(d);
	ep_device_close(&d->dev);
	fprintf(d->out, "shapes %lu posts %lu completions %lu failures %lu\n",
		d->shapes, d->posts, d->completions, d->failures);
	fprintf(stderr,
		"mlx5_diff: %lu shapes, %lu posts, %lu completions, %lu failures\n",
		d->shapes, d->posts, d->completions, d->failures);
	ret = d->failures ? 1 : 0;
	if (d->out != stdout)
		fclose(d->out);
	free(d);
	return ret;
}
