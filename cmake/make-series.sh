#!/usr/bin/env bash
# make-series.sh SRC_DIR OUT_DIR: the upstream submission of the queue.
#
# Every patch of the queue except those whose subject patches/fork-only lists
# (our distributor tag), re-based onto pristine upstream, numbered, with a
# cover letter from patches/cover-letter.txt (first line: subject; rest: body).
#
# The queue carries no Signed-off-by: the submitter certifies the DCO here,
# with their own git identity (user.name, user.email), which signs off every
# patch and sends the cover letter. Without one the script refuses.
set -euo pipefail
src=${1:?usage: make-series.sh SRC_DIR OUT_DIR}
out=${2:?usage: make-series.sh SRC_DIR OUT_DIR}
. "$(dirname "$0")/series-lib.sh"

[ -d "$src/.git" ] || die "$(shown "$src") is not a patch-queue tree: run 'make tree' first"
cover=$patches/cover-letter.txt
[ -f "$cover" ] || die "$(shown "$cover") is missing"
name=$(git -C "$src" config user.name || true)
email=$(git -C "$src" config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "make series signs off every patch with your git identity and there is none: set it with git config --global user.name 'Your Name' and git config --global user.email you@example.org"

branch=submission
srcgit worktree remove --force "$src.submission" >/dev/null 2>&1 || true
srcgit branch -D "$branch" >/dev/null 2>&1 || true
srcgit worktree add -q -b "$branch" "$src.submission" upstream
trap 'srcgit worktree remove --force "$src.submission" >/dev/null 2>&1; srcgit branch -D "$branch" >/dev/null 2>&1' EXIT
for c in $(srcgit rev-list --reverse upstream..HEAD); do
	subject=$(srcgit log -1 --format=%s "$c")
	grep -qxF -- "$subject" "$patches/fork-only" 2>/dev/null && continue
	git -C "$src.submission" cherry-pick "$c" >/dev/null 2>&1 ||
		die "\"$subject\" does not apply without the fork-only patches before it"
done

out=$(realpath -m "$out")
rm -rf "$out"
mkdir -p "$out"
git -C "$src.submission" format-patch -q --signoff --cover-letter --zero-commit --no-signature \
	-o "$out" upstream.."$branch"
subject=$(head -n1 "$cover")
body=$(tail -n +2 "$cover")
letter=$(ls "$out"/0000-cover-letter.patch)
SUBJECT="$subject" BODY="$body" python3 - "$letter" <<'PY'
import os, sys
path = sys.argv[1]
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", os.environ["SUBJECT"])
text = text.replace("*** BLURB HERE ***", os.environ["BODY"].strip("\n"))
open(path, "w").write(text)
PY
echo "$(shown "$out"): $(ls "$out" | grep -c '^0' ) files (cover letter + $(($(ls "$out" | grep -c '^0') - 1)) patches)" >&2
