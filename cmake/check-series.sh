#!/usr/bin/env bash
# check-series.sh SRC_DIR WORK_DIR: every submission applies on its stated
# base and builds with -DENABLE_WERROR=1 at every prefix, and so does the
# fork's queue with its fork-only patches.
#
# The submissions are the ones make-series.sh writes (into WORK_DIR/series),
# applied with git am from those files, as a maintainer would. One worktree
# walks them in sending order, so each step rebuilds only what changed.
set -euo pipefail
src=${1:?usage: check-series.sh SRC_DIR WORK_DIR}
work=${2:?usage: check-series.sh SRC_DIR WORK_DIR}
. "$(dirname "$0")/series-lib.sh"

[ -d "$src/.git" ] || die "$(shown "$src") is not a patch-queue tree: run 'make tree' first"
work=$(realpath -m "$work")

# make-series.sh signs off with the submitter's identity; a check needs none
if ! git -C "$src" config user.email >/dev/null 2>&1; then
	export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="check-series" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="check-series@localhost"
fi
"$top/cmake/make-series.sh" "$src" "$work/series"

tree=$work/src
if [ ! -d "$tree" ]; then
	mkdir -p "$work"
	srcgit worktree add -q --detach "$tree" upstream
fi
git -C "$tree" am --abort >/dev/null 2>&1 || true
git -C "$tree" checkout -q --detach upstream
cmake -S "$tree" -B "$work/build" -G Ninja -DENABLE_WERROR=1 -DENABLE_STATIC=1 \
	-DPYTHON_EXECUTABLE=/usr/bin/python3 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

n=0
build() {
	if ! ninja -C "$work/build" >"$work/build.log" 2>&1; then
		grep -m3 -e 'error' "$work/build.log" >&2 || tail -n 5 "$work/build.log" >&2
		die "$1 does not build (log: $(shown "$work")/build.log)"
	fi
	echo "ok $n: $1" >&2
	n=$((n + 1))
}

# apply PATCH_FILE WHAT: git am one file into the walk's tree
apply() {
	git -C "$tree" am -q "$1" >/dev/null 2>&1 || {
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		die "$2 does not apply"
	}
}

build "rdma-core 65.0"
subs=0
while read -r name base _; do
	case $name in '#'* | '') continue ;; esac
	git -C "$tree" checkout -q --detach upstream
	# the bases with everything they are based on, in sending order
	want=" $(tr , ' ' <<<"$base") "
	while read -r b bb _; do
		case $b in '#'*) continue ;; esac
		case $want in *" $b "*) want+=" $(tr , ' ' <<<"$bb") " ;; esac
	done < <(tac "$work/series/ORDER")
	while read -r b _; do
		case $b in '#'*) continue ;; esac
		case $want in *" $b "*) ;; *) continue ;; esac
		for p in "$work/series/$b"/0[0-9][0-9][0-9]-*.patch; do
			case $p in */0000-cover-letter.patch) continue ;; esac
			apply "$p" "$b ($(basename "$p")), a base of $name,"
		done
	done <"$work/series/ORDER"
	for p in "$work/series/$name"/0[0-9][0-9][0-9]-*.patch; do
		case $p in */0000-cover-letter.patch) continue ;; esac
		apply "$p" "$name/$(basename "$p") on its base ($base)"
		build "$name/$(basename "$p")"
	done
	subs=$((subs + 1))
done <"$work/series/ORDER"

# The fork: each fork-only patch at its place in the queue
for c in $(srcgit rev-list --reverse upstream..HEAD); do
	what=$(srcgit log -1 --format=%s "$c")
	grep -qxF -- "$what" "$patches/fork-only" || continue
	git -C "$tree" checkout -q --detach "$c"
	build "the queue up to fork-only \"$what\""
done
echo "all $subs submissions apply on their bases and all $n steps build with -DENABLE_WERROR=1" >&2
