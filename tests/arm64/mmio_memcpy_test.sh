#!/bin/bash
# mmio_memcpy_test.sh SRC_TREE INCLUDE_DIR: mmio_memcpy_test.c built for
# aarch64 (static, Debian's cross compiler) against the patched tree and
# run under qemu-user. Skipped (77) without the cross compiler or qemu.
. "$(dirname "$0")/../lib.sh"
src=$1 inc=$2
cc=aarch64-linux-gnu-gcc
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if ! command -v $cc >/dev/null || [ -z "$qemu" ]; then
	echo "SKIP: no $cc or qemu-aarch64"
	exit 77
fi
scratch_dir dir
$cc -O2 -static -Wall -Wextra -Werror -I"$src" -I"$inc" \
	-o "$dir/mmio_memcpy_test" "$(dirname "$0")/mmio_memcpy_test.c" ||
	die "the aarch64 build failed"
"$qemu" "$dir/mmio_memcpy_test" || die "mmio_memcpy_x64 copied the wrong bytes on aarch64"
