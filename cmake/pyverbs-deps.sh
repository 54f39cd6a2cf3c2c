#!/usr/bin/env bash
# pyverbs-deps.sh SRC_DIR STAMP: make a changed .pxd rebuild pyverbs.
#
# Upstream's Cython rules depend on each .pyx file only, not on the .pxd
# files it cimports, so a patch that changes only a .pxd (a new enum, a new
# struct field) leaves stale modules behind in an incremental build. When
# any .pxd is newer than STAMP, touch every .pyx so that all of pyverbs is
# re-cythonized; a fresh build is unaffected.
set -euo pipefail
src=$1
stamp=$2
if [ -f "$stamp" ] &&
	[ -z "$(find "$src/pyverbs" -name '*.pxd' -newer "$stamp" -print -quit)" ]; then
	exit 0
fi
if [ -f "$stamp" ]; then
	find "$src/pyverbs" -name '*.pyx' -exec touch {} +
fi
touch "$stamp"
