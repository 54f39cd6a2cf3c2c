#!/usr/bin/env bash
# Install the Debian packages the build and the tests need, if missing.
# As root this runs apt-get; otherwise it prints the command to run.
# Arguments name more packages (the packaging targets' lists).
set -euo pipefail

packages=(
	# the upstream build
	cmake ninja-build gcc g++ binutils git pkg-config libnl-3-dev
	libnl-route-3-dev pandoc cython3 python3-dev python3-docutils
	python3-pkg-resources libudev-dev libsystemd-dev
	# our components and tests
	make libcmocka-dev valgrind perftest procps iproute2 qperf libfabric-bin
	# rdma_cm on the emulated device: rping, ucmatose, udaddy
	rdmacm-utils
	# UCX on the emulated device
	ucx-utils libucx0
	# perftest-ext: plots and the mpirun launcher test
	gnuplot-nox openmpi-bin
	# tests/mpi: the MPI traffic test under both MPIs
	mpich libmpich-dev libopenmpi-dev
	# perftest-ext/breakdown: the aarch64 timer check; tests/arm64: the
	# patched tree's aarch64 code, run under qemu-user
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
	"$@"
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "error: missing Debian packages; as root run: apt-get update && $cmd" >&2
	exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd -qq >/dev/null
