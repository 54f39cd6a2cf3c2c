// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mpi_threads: two ranks, MPI_THREAD_MULTIPLE, THREADS threads per rank,
 * each thread exchanging ROUNDS messages of SIZE bytes with the same
 * thread of the other rank (its own tag). Every byte received is checked.
 * check-packages.sh runs it under the suite's Open MPI over UCX on the
 * emulated device; exit status 0 and "mpi_threads: ok" when all matched.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 200
#define SIZE 65536

static int rank;
static int errors[THREADS];

static unsigned char pattern(int from, int thread, int round, size_t i)
{
	return (unsigned char)(from * 131 + thread * 31 + round * 7 + i);
}

static void *exchange(void *arg)
{
	int t = (int)(long)arg, peer = 1 - rank, round;
	unsigned char *out = malloc(SIZE), *in = malloc(SIZE);
	size_t i;

	if (!out || !in) {
		errors[t] = 1;
		goto out;
	}
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < SIZE; i++)
			out[i] = pattern(rank, t, round, i);
		memset(in, 0, SIZE);
		MPI_Sendrecv(out, SIZE, MPI_BYTE, peer, t, in, SIZE, MPI_BYTE,
			     peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0; i < SIZE; i++)
			if (in[i] != pattern(peer, t, round, i)) {
				errors[t]++;
				break;
			}
	}
out:
	free(out);
	free(in);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];
	int provided, size, t, mine = 0, all = 0;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (provided != MPI_THREAD_MULTIPLE || size != 2) {
		fprintf(stderr, "mpi_threads: needs 2 ranks and MPI_THREAD_MULTIPLE (got %d ranks, level %d)\n",
			size, provided);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, exchange, (void *)(long)t);
	for (t = 0; t < THREADS; t++) {
		pthread_join(threads[t], NULL);
		mine += errors[t];
	}
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_threads: %s: %d threads x %d rounds of %d bytes per rank, %d mismatches\n",
		       all ? "FAILED" : "ok", THREADS, ROUNDS, SIZE, all);
	MPI_Finalize();
	return all ? 1 : 0;
}
