// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MPI round-trip time between two ranks: rank 0 sends --size bytes, rank 1
 * sends them back, --iters times after --warmup untimed round trips.
 * Prints the median and the 99th percentile of one round trip.
 *
 *   mpirun -np 2 mpi_pingpong [--size=B] [--iters=N] [--warmup=N]
 *
 * Built with an MPI's own compiler wrapper (mpicc.openmpi); latency.sh
 * runs it on the emulated device. A benchmark, not a test.
 */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{}
	};
	int size = 8, iters = 1000, warmup = 100, rank, peer, i, c;
	double *rtt, t;
	char *buf;

	MPI_Init(&argc, &argv);
	while ((c = getopt_long(argc, argv, "s:n:w:", opts, NULL)) != -1) {
		if (c == 's')
			size = atoi(optarg);
		else if (c == 'n')
			iters = atoi(optarg);
		else if (c == 'w')
			warmup = atoi(optarg);
		else
			MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (size < 1 || iters < 1 || warmup < 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = !rank;
	buf = calloc(1, size);
	rtt = calloc(iters, sizeof(*rtt));
	if (!buf || !rtt)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = -warmup; i < iters; i++) {
		t = MPI_Wtime();
		if (!rank) {
			MPI_Send(buf, size, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_CHAR, peer, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_CHAR, peer, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
		}
		if (i >= 0)
			rtt[i] = (MPI_Wtime() - t) * 1e6;
	}
	if (!rank) {
		qsort(rtt, iters, sizeof(*rtt), by_value);
		printf("mpi_pingpong %d B: round trip median %.2f us, 99%% %.2f us (%d iterations)\n",
		       size, rtt[iters / 2], rtt[(int)(iters * 0.99)], iters);
	}
	free(rtt);
	free(buf);
	MPI_Finalize();
	return 0;
}
