#!/usr/bin/env bash
# make-series.sh SRC_DIR OUT_DIR: the upstream submissions of the queue.
#
# patches/submissions splits the queue into submissions (fixes, then the
# sets that build on them); each is written to OUT_DIR/<name>/ as numbered
# patches with its own cover letter (patches/cover-<name>.txt: first line
# subject, rest body). Each is re-based onto pristine upstream plus the
# submissions it names as its base, so that a patch that does not apply
# there stops the script. Patches whose subject patches/fork-only lists
# are in none of them. OUT_DIR/ORDER lists the submissions in sending
# order with their bases, for check-series.sh and for the submitter.
#
# The queue carries no Signed-off-by and stays neutral: the submitter
# certifies the DCO here, with their own git identity (user.name,
# user.email), which becomes the author and the sign-off of every patch and
# sends the cover letters. Without one the script refuses.
set -euo pipefail
src=${1:?usage: make-series.sh SRC_DIR OUT_DIR}
out=${2:?usage: make-series.sh SRC_DIR OUT_DIR}
. "$(dirname "$0")/series-lib.sh"

[ -d "$src/.git" ] || die "$(shown "$src") is not a patch-queue tree: run 'make tree' first"
plan=$patches/submissions
[ -f "$plan" ] || die "$(shown "$plan") is missing"
# The identity is the one of the project's checkout (its own config, then
# the global one), not build/src's: an identity set only in the checkout
# must not be lost to the extracted tree's global fallback.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	idsrc=$top
else
	idsrc=$src
fi
name=$(git -C "$idsrc" config user.name || true)
email=$(git -C "$idsrc" config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "make series signs off every patch with your git identity and there is none: set it with git config user.name 'Your Name' and git config user.email you@example.org in this checkout (or --global)"
# every commit made below is authored, committed and signed off as that identity
subgit() {
	git -C "$wt" -c user.name="$name" -c user.email="$email" "$@"
}

# The plan: names in order, and per name its bases, options and subjects
declare -a names=()
declare -A bases=() opts=() subjects=() owner=()
current=
while IFS= read -r line; do
	case $line in
	'' | '#'*) continue ;;
	$'\t'*)
		[ -n "$current" ] || die "$(shown "$plan"): a patch before the first submission: $line"
		s=${line#$'\t'}
		[ -z "${owner[$s]:-}" ] || die "$(shown "$plan"): \"$s\" is in ${owner[$s]} and $current"
		owner[$s]=$current
		subjects[$current]+="$s"$'\n'
		;;
	*)
		read -r current rest <<<"$line"
		base=$(grep -o 'base=[^ ]*' <<<"$rest" | cut -d= -f2 | tr , ' ')
		[ -n "$base" ] || die "$(shown "$plan"): $current names no base"
		for b in $base; do
			[ "$b" = 65.0 ] || [ -n "${bases[$b]:-}" ] ||
				die "$(shown "$plan"): $current is based on $b, which is not an earlier submission"
		done
		names+=("$current")
		bases[$current]=$base
		opts[$current]=$(sed 's/base=[^ ]*//' <<<"$rest" | xargs)
		cover=$patches/cover-$current.txt
		[ -f "$cover" ] || die "$(shown "$cover") is missing: every submission needs a cover letter"
		;;
	esac
done <"$plan"

# Every queue patch is in one submission or fork-only; the plan names no
# patch the queue does not have, in the queue's order.
declare -A commit_of=()
for c in $(srcgit rev-list --reverse upstream..HEAD); do
	s=$(srcgit log -1 --format=%s "$c")
	if grep -qxF -- "$s" "$patches/fork-only" 2>/dev/null; then
		[ -z "${owner[$s]:-}" ] || die "\"$s\" is fork-only but $(shown "$plan") puts it in ${owner[$s]}"
		continue
	fi
	[ -n "${owner[$s]:-}" ] || die "\"$s\" is in no submission: add it to $(shown "$plan") or to patches/fork-only"
	commit_of[$s]=$c
done
for n in "${names[@]}"; do
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		[ -n "${commit_of[$s]:-}" ] || die "$(shown "$plan"): \"$s\" ($n) is not in the queue"
	done <<<"${subjects[$n]}"
done

# all bases of a submission, recursively, in sending order
stack_of() {
	local n b want=" "
	for b in ${bases[$1]}; do
		[ "$b" = 65.0 ] && continue
		want+="$(stack_of "$b" | tr '\n' ' ') $b "
	done
	for n in "${names[@]}"; do
		case $want in *" $n "*) echo "$n" ;; esac
	done
}

# "rdma-core 65.0", or that with the bases, one per line, in order
base_text() {
	local n text=
	for n in $(stack_of "$1"); do
		text+=$'\n'"  - $n: \"$(head -n1 "$patches/cover-$n.txt")\""
	done
	echo "rdma-core 65.0${text:+ with these submissions applied first, in this order:$text}"
}

# Upstream takes every change as a GitHub pull request from a dedicated
# branch, and wants patches that change the library API or its versioned
# symbols on linux-rdma@vger.kernel.org too (Documentation/contributing.md).
# OUT/<name>/pull-request.txt says what the pull request needs; the branch
# submit/<name> in SRC holds the submission's commits, ready to push.
write_pull_request() {
	local n=$1 from=$2 prefix=$3 later=$4 note=$5 api list title
	api=$(git -C "$wt" diff --name-only "$from" HEAD |
		grep -E '\.map(\.in)?$|^libibverbs/verbs\.h$|^providers/[^/]*/[^/]*dv\.h$|^libibverbs/man/|^providers/[^/]*/man/' |
		sort -u | xargs || true)
	if [ -n "$api" ]; then
		list="yes: it changes the library API or its man pages ($api), so send the patches to linux-rdma@vger.kernel.org as well, naming the pull request in the cover letter"
	else
		list="no: no library API changes, the pull request alone is enough"
	fi
	title=$(head -n1 "$patches/cover-$n.txt")
	case $prefix in RFC*) title="[RFC] $title" ;; esac
	{
		echo "Title: $title"
		echo "Branch: submit/$n (in $(shown "$src"); push it to your GitHub fork under that name)"
		echo "Base: linux-rdma/rdma-core master; $(base_text "$n")"
		[ "${bases[$n]}" = 65.0 ] ||
			echo "(the branch carries those submissions' commits first, until they are merged)"
		echo "Mailing list: $list"
		[ "$later" = no ] || echo "When: after the submissions it builds on are agreed"
		echo "Commits: $(git -C "$wt" rev-list --count "$from"..HEAD)"
		echo
		echo "Body:"
		echo
		echo "$note"
		echo
		tail -n +2 "$patches/cover-$n.txt" | sed '/./,$!d'
		echo
		git -C "$wt" log --reverse --format='- %s' "$from"..HEAD
	} >"$out/$n/pull-request.txt"
}

out=$(realpath -m "$out")
wt=$src.submission
cleanup() {
	srcgit worktree remove --force "$wt" >/dev/null 2>&1 || true
	srcgit branch -D submission >/dev/null 2>&1 || true
}
trap cleanup EXIT
rm -rf "$out"
mkdir -p "$out"
echo "# submission base later (written by make-series.sh)" >"$out/ORDER"
for n in "${names[@]}"; do
	cleanup
	srcgit worktree add -q -b submission "$wt" upstream
	# the bases, from the files written for them: they apply as sent
	for b in $(stack_of "$n"); do
		# shellcheck disable=SC2046
		subgit am -q $(ls "$out/$b"/0*.patch | grep -v /0000-cover-letter.patch) >/dev/null 2>&1 ||
			die "$b does not apply on its base (${bases[$b]// /, })"
	done
	from=$(git -C "$wt" rev-parse HEAD)
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		c=${commit_of[$s]}
		{ subgit cherry-pick -n "$c" &&
			subgit commit -q -C "$c" --reset-author --signoff; } >/dev/null 2>&1 ||
			die "\"$s\" ($n) does not apply on its base (${bases[$n]// /, }) and the patches before it in $n"
	done <<<"${subjects[$n]}"

	prefix="PATCH rdma-core"
	case " ${opts[$n]} " in *" rfc "*) prefix="RFC PATCH rdma-core" ;; esac
	later=no
	case " ${opts[$n]} " in *" later "*) later=yes ;; esac
	subgit format-patch -q --cover-letter --zero-commit --no-signature \
		--subject-prefix="$prefix" -o "$out/$n" "$from"..HEAD
	cover=$patches/cover-$n.txt
	note="Applies on $(base_text "$n")."
	[ $later = no ] || note+=$'\n\n'"Not sent with the others: it follows once they are agreed."
	SUBJECT=$(head -n1 "$cover") BODY="$note"$'\n\n'$(tail -n +2 "$cover") \
		python3 - "$out/$n/0000-cover-letter.patch" <<'PY'
import os, sys
path = sys.argv[1]
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", os.environ["SUBJECT"])
text = text.replace("*** BLURB HERE ***", os.environ["BODY"].strip("\n"))
open(path, "w").write(text)
PY
	write_pull_request "$n" "$from" "$prefix" "$later" "$note"
	srcgit branch -f "submit/$n" "$(git -C "$wt" rev-parse HEAD)" >/dev/null
	echo "$n $(tr ' ' , <<<"${bases[$n]}") $later" >>"$out/ORDER"
	when=
	[ $later = no ] || when=" (sent later)"
	echo "$(shown "$out/$n"): cover letter + $(($(ls "$out/$n" | grep -c '^0') - 1)) patches, on ${bases[$n]// /, }$when" >&2
done
