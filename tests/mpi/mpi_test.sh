#!/bin/bash
# mpi_test.sh openmpi|mpich PROGRAM: PROGRAM on two ranks of that MPI under
# `$MLX5EMU run`; exit 77 (skipped) when the MPI is not installed.
#
# Both MPIs go through UCX, which picks its own transports (rc_mlx5 for
# the data, ud_mlx5 where it wants it); only the ones that would bypass the
# device between two ranks of one host are taken away: shared memory and
# TCP (UCX_TLS=^sm,tcp), MPICH's own shared memory (MPIR_CVAR_NOLOCAL), and
# Open MPI's BTLs (pml ucx carries everything).
. "$(dirname "$0")/../lib.sh"
mpi=$1 prog=$2

if ! command -v "mpirun.$mpi" >/dev/null || [ ! -x "$prog" ]; then
	echo "SKIP: mpirun.$mpi or the program built with mpicc.$mpi is" \
		"missing (Debian: apt-get install mpich libmpich-dev" \
		"libopenmpi-dev; then rebuild)"
	exit 77
fi
export UCX_TLS=^sm,tcp
case $mpi in
openmpi)
	launch=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 2
		--mca pml ucx --mca btl self -x UCX_TLS)
	;;
mpich)
	export MPIR_CVAR_NOLOCAL=1
	launch=(mpirun.mpich -np 2)
	;;
*)
	echo "unknown MPI $mpi" >&2
	exit 2
	;;
esac
exec timeout -k 5 110 "$MLX5EMU" run -- "${launch[@]}" "$prog"
