#!/usr/bin/env bash
# Make SRC_DIR the pinned upstream tree with patches/series applied, as a git
# repository: one commit for upstream (tagged "upstream"), one per patch.
#
# Idempotent: a tree already made from the current queue is left alone, so
# work committed there (the `make tree` / `make export` cycle) is built as
# is. A changed queue re-applies onto the "upstream" tag, which rewrites only
# the files that differ and keeps incremental rebuilds correct.
set -euo pipefail
src=${1:?usage: prepare-source.sh SRC_DIR}
. "$(dirname "$0")/series-lib.sh"

for p in $(series_list); do
	[ -f "$patches/$p" ] || die "patches/series names $p, which is not in patches/"
done
hash=$(series_hash)

if [ -d "$src/.git" ] && [ -f "$src.stamp" ]; then
	read -r stamp_hash _ <"$src.stamp"
	work=$(unexported_work | paste -sd, -)
	if [ "$stamp_hash" = "$hash" ]; then
		[ -z "$work" ] || echo "note: building $(shown "$src") with local $work not yet in patches/ ('make export' keeps them)" >&2
		exit 0
	fi
	[ -z "$work" ] ||
		die "patches/ changed but $(shown "$src") has $work that are not in patches/: run 'make export' to keep them, or remove $(shown "$src") to drop them"
	srcgit reset -q --hard upstream
	srcgit clean -fdxq
else
	tarball=$("$top/cmake/obtain-upstream.sh")
	rm -rf "$src" "$src.tmp" "$src.stamp"
	mkdir -p "$src.tmp"
	tar xzf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
	srcgit init -q
	srcgit add -A
	srcgit commit -q -m "rdma-core 65.0 (pinned upstream tarball)"
	srcgit tag upstream
fi

for p in $(series_list); do
	if ! out=$(srcgit am -q --whitespace=nowarn "$patches/$p" 2>&1); then
		srcgit am --abort >/dev/null 2>&1 || true
		echo "failed $(srcgit rev-parse HEAD)" >"$src.stamp"
		why=$(grep -m1 -e '^error:' -e '^fatal:' <<<"$out" | sed 's/^[a-z]*: //' || true)
		die "patches/$p does not apply to rdma-core 65.0 and the patches before it (${why:-git am failed}); $(shown "$src") holds the series up to the patch before it: redo the change there, commit, 'make export'"
	fi
done
write_stamp
echo "$(shown "$src"): rdma-core 65.0 + $(series_list | wc -l) patches from patches/series" >&2
