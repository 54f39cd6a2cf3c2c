#!/usr/bin/env bash
# Build libibverbs + libmlx5 of the patch queue as it is at a git revision
# of this repository (e.g. main: the series before a change), for
# callgrind.sh's "before" column. Built the way cmake/Pristine.cmake builds
# pristine 65.0 (RelWithDebInfo, in place, no pyverbs, no man pages).
#
#   perftest-ext/breakdown/bench/build_queue_lib.sh REV DIR
#
# prints the library directory to pass to callgrind.sh (DIR/build/lib).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 REV DIR" >&2; exit 2; }
rev=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
git -C "$repo" rev-parse --verify -q "$rev^{commit}" >/dev/null ||
	{ echo "build_queue_lib.sh: $rev is no revision of $repo" >&2; exit 1; }
tarball=$("$repo/cmake/obtain-upstream.sh")

rm -rf "$dir/src"
mkdir -p "$dir/src"
tar -xzf "$tarball" -C "$dir/src" --strip-components=1
git -C "$repo" show "$rev:patches/series" | sed -e 's/#.*//' -e '/^\s*$/d' |
	while read -r p; do
		git -C "$repo" show "$rev:patches/$p" |
			patch -s -p1 -d "$dir/src" ||
			{ echo "build_queue_lib.sh: $p does not apply" >&2; exit 1; }
	done
cmake -S "$dir/src" -B "$dir/build" -G Ninja -DNO_PYVERBS=1 \
	-DNO_MAN_PAGES=1 -DIN_PLACE=1 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>/dev/null
ninja -C "$dir/build" ibverbs mlx5 >/dev/null
# only mlx5 is built: drop the other providers' driver files
find "$dir/build/etc/libibverbs.d" -name '*.driver' ! -name mlx5.driver -delete
echo "$dir/build/lib"
