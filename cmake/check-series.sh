#!/usr/bin/env bash
# check-series.sh SRC_DIR WORK_DIR: every prefix of the queue builds with
# -DENABLE_WERROR=1. One worktree walks the commits in order, so each step
# rebuilds only what that patch touched.
set -euo pipefail
src=${1:?usage: check-series.sh SRC_DIR WORK_DIR}
work=${2:?usage: check-series.sh SRC_DIR WORK_DIR}
. "$(dirname "$0")/series-lib.sh"

[ -d "$src/.git" ] || die "$(shown "$src") is not a patch-queue tree: run 'make tree' first"
work=$(realpath -m "$work")
tree=$work/src
if [ ! -d "$tree" ]; then
	mkdir -p "$work"
	srcgit worktree add -q --detach "$tree" upstream
fi
git -C "$tree" checkout -q --detach upstream
cmake -S "$tree" -B "$work/build" -G Ninja -DENABLE_WERROR=1 -DENABLE_STATIC=1 \
	-DPYTHON_EXECUTABLE=/usr/bin/python3 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

n=0
for c in upstream $(srcgit rev-list --reverse upstream..HEAD); do
	git -C "$tree" checkout -q --detach "$c"
	what=$(git -C "$tree" log -1 --format=%s)
	if ! ninja -C "$work/build" >"$work/build.log" 2>&1; then
		grep -m3 -e 'error' "$work/build.log" >&2 || tail -n 5 "$work/build.log" >&2
		die "the series does not build up to \"$what\" (log: $(shown "$work")/build.log)"
	fi
	echo "ok $n: $what" >&2
	n=$((n + 1))
done
echo "all $n prefixes of the series build with -DENABLE_WERROR=1" >&2
