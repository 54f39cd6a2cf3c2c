#!/usr/bin/env bash
# Rewrite patches/ from the commits on top of "upstream" in SRC_DIR.
#
# The output is stable: zeroed commit ids, no version signature and no
# numbering in subjects, so re-exporting an unchanged queue changes nothing
# and a diff of patches/ shows only real changes.
set -euo pipefail
src=${1:?usage: export-series.sh SRC_DIR}
. "$(dirname "$0")/series-lib.sh"

[ -d "$src/.git" ] || die "$src is not a patch-queue tree: run 'make tree' first"
[ -z "$(srcgit status --porcelain)" ] ||
	die "$(shown "$src") has uncommitted changes: commit them (one change per commit) before 'make export'"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
srcgit format-patch -q -N --zero-commit --no-signature \
	-o "$out" upstream..HEAD
mkdir -p "$patches"
rm -f "$patches"/*.patch
(cd "$out" && ls) | grep '\.patch$' >"$patches/series" || true
cp "$out"/*.patch "$patches/" 2>/dev/null || true
write_stamp
echo "patches/: $(series_list | wc -l) patches exported from $(shown "$src")" >&2
