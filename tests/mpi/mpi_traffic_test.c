// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MPI traffic on the emulated device, with every byte checked: what UCX
 * does under Open MPI (pml ucx) and MPICH (ch4:ucx) with its default
 * transports, eager inline, zero-copy (inline header + pointer segments)
 * and rendezvous. Two ranks; each runs the same cmocka tests, which
 * communicate, so a failing rank makes the other one wait for CTest's
 * timeout rather than pass.
 *
 *   ping-pong  1 B .. 4 MiB (powers of two and their neighbours)
 *   allreduce  sums of 1 .. 1 Mi ints
 *   threads    MPI_THREAD_MULTIPLE: 4 threads per rank, each exchanging
 *              its own messages with its twin on the other rank
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpi.h>

#define MAX_MSG (4u << 20)
#define NTHREADS 4

static int rank, peer;

/* the byte at offset i of a message of len bytes, sent by rank r */
static uint8_t pattern(size_t i, size_t len, int r, unsigned int iter)
{
	return (uint8_t)(i * 7 + len * 13 + r * 101 + iter * 31 + (i >> 8));
}

static void fill(uint8_t *buf, size_t len, int r, unsigned int iter)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(i, len, r, iter);
}

/* the first wrong byte of buf, or len */
static size_t check(const uint8_t *buf, size_t len, int r, unsigned int iter)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != pattern(i, len, r, iter))
			return i;
	return len;
}

/* the message sizes: 1 B .. MAX_MSG, powers of two, +-1 and a few odd */
static size_t sizes[128];
static unsigned int nsizes;

static void make_sizes(void)
{
	static const size_t odd[] = { 2000,  2055,	  8191 + 17, 29000,
				      30000, 65537 + 100, 1000000 };
	size_t s;
	unsigned int i;

	for (s = 1; s <= MAX_MSG; s *= 2) {
		if (s > 2)
			sizes[nsizes++] = s - 1;
		sizes[nsizes++] = s;
		if (s < MAX_MSG)
			sizes[nsizes++] = s + 1;
	}
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		sizes[nsizes++] = odd[i];
}

/* fewer iterations where each is expensive: run time stays in seconds */
static unsigned int iters_for(size_t len)
{
	return len <= 65536 ? 4 : 2;
}

static void test_pingpong(void **state)
{
	uint8_t *sbuf = malloc(MAX_MSG), *rbuf = malloc(MAX_MSG);
	unsigned int i, it;

	(void)state;
	assert_non_null(sbuf);
	assert_non_null(rbuf);
	for (i = 0; i < nsizes; i++) {
		size_t len = sizes[i];

		for (it = 0; it < iters_for(len); it++) {
			MPI_Request req;
			MPI_Status st;
			int count;

			memset(rbuf, 0xee, len);
			fill(sbuf, len, rank, it);
			/* odd iterations non-blocking: UCX's zero-copy
			 * thresholds differ between the two */
			if (rank == 1)
				MPI_Recv(rbuf, len, MPI_BYTE, peer, it,
					 MPI_COMM_WORLD, &st);
			if (it & 1) {
				MPI_Isend(sbuf, len, MPI_BYTE, peer, it,
					  MPI_COMM_WORLD, &req);
				MPI_Wait(&req, MPI_STATUS_IGNORE);
			} else {
				MPI_Send(sbuf, len, MPI_BYTE, peer, it,
					 MPI_COMM_WORLD);
			}
			if (rank == 0)
				MPI_Recv(rbuf, len, MPI_BYTE, peer, it,
					 MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			if ((size_t)count != len ||
			    check(rbuf, len, peer, it) != len)
				fail_msg(
					"rank %d: %zu-byte message %u: %d bytes "
					"received, first bad byte at %zu",
					rank, len, it, count,
					check(rbuf, len, peer, it));
		}
	}
	free(sbuf);
	free(rbuf);
}

static void test_allreduce(void **state)
{
	size_t n;

	(void)state;
	for (n = 1; n <= (1u << 20); n *= 4) {
		int *in = malloc(n * sizeof(int)),
		    *out = malloc(n * sizeof(int));
		size_t i;

		assert_non_null(in);
		assert_non_null(out);
		for (i = 0; i < n; i++)
			in[i] = (int)(i * 3 + rank * 1000003);
		MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		for (i = 0; i < n; i++)
			if (out[i] != (int)(2 * i * 3 + 1000003))
				fail_msg("rank %d: allreduce of %zu ints: "
					 "element %zu is %d",
					 rank, n, i, out[i]);
		free(in);
		free(out);
	}
}

struct thread_arg {
	int id;
	size_t bad; /* messages received wrong */
};

/* thread id exchanges with its twin, tag id: sizes up to 256 KiB */
static void *thread_exchange(void *p)
{
	struct thread_arg *a = p;
	uint8_t *sbuf = malloc(1u << 18), *rbuf = malloc(1u << 18);
	unsigned int it;
	size_t len;

	for (len = 1; len <= (1u << 18); len *= 4) {
		for (it = 0; it < 4; it++) {
			MPI_Request req[2];
			MPI_Status st[2];
			int count;

			fill(sbuf, len, rank * 16 + a->id, it);
			memset(rbuf, 0xee, len);
			MPI_Irecv(rbuf, len, MPI_BYTE, peer, a->id,
				  MPI_COMM_WORLD, &req[0]);
			MPI_Isend(sbuf, len, MPI_BYTE, peer, a->id,
				  MPI_COMM_WORLD, &req[1]);
			MPI_Waitall(2, req, st);
			MPI_Get_count(&st[0], MPI_BYTE, &count);
			if ((size_t)count != len ||
			    check(rbuf, len, peer * 16 + a->id, it) != len)
				a->bad++;
		}
	}
	free(sbuf);
	free(rbuf);
	return NULL;
}

static void test_threads(void **state)
{
	struct thread_arg arg[NTHREADS] = {};
	pthread_t t[NTHREADS];
	int i;

	(void)state;
	for (i = 0; i < NTHREADS; i++) {
		arg[i].id = i;
		assert_int_equal(pthread_create(&t[i], NULL, thread_exchange,
						&arg[i]),
				 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(arg[i].bad, 0);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pingpong),
		cmocka_unit_test(test_allreduce),
		cmocka_unit_test(test_threads),
	};
	int size, provided, failed;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || provided != MPI_THREAD_MULTIPLE) {
		fprintf(stderr,
			"needs 2 ranks and MPI_THREAD_MULTIPLE "
			"(have %d ranks, thread level %d)\n",
			size, provided);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	peer = 1 - rank;
	make_sizes();
	failed = cmocka_run_group_tests_name(rank ? "rank 1" : "rank 0", tests,
					     NULL, NULL);
	MPI_Finalize();
	return failed ? 1 : 0;
}
