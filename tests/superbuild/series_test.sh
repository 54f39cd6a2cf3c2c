#!/usr/bin/env bash
# series_test.sh CASE: one check of how the superbuild obtains upstream and
# keeps the patch queue. Each case works on copies in a private temp dir and
# never touches build/ or patches/.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
scratch_dir work
tarball=$("$top/cmake/obtain-upstream.sh") || exit 1

# Every case sees only the git identity it sets (none by default).
export GIT_CONFIG_GLOBAL=$work/gitconfig GIT_CONFIG_NOSYSTEM=1
: >"$GIT_CONFIG_GLOBAL"
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

submitter() {
	git config --global user.name "Test Submitter"
	git config --global user.email submitter@example.org
}

# A copy of the queue in $work/patches, applied in $work/src, and a
# submitter's identity: what make series starts from.
submitter_queue() {
	mkdir -p "$work/patches"
	cp "$top"/patches/* "$work/patches/"
	export RDMA_CORE_TARBALL=$tarball FORK_PATCHES_DIR=$work/patches
	"$top/cmake/prepare-source.sh" "$work/src" 2>/dev/null || die "series does not apply"
	submitter
}

# run CMD...: capture stderr in $err and the exit code in $rc
run() {
	rc=0
	err=$("$@" 2>&1 >/dev/null) || rc=$?
}

# The failure must be exactly one line on stderr, saying what went wrong and
# naming the way out.
expect_one_line_error() {
	local what=$1 remedy=$2
	[ $rc -ne 0 ] || die "succeeded, expected an error about $what"
	[ "$(wc -l <<<"$err")" -eq 1 ] || die "error is not one line: $err"
	grep -q -- "$what" <<<"$err" || die "error does not mention '$what': $err"
	grep -q -- "$remedy" <<<"$err" || die "error does not say '$remedy': $err"
	echo "ok: $err"
}

# A copy of the build scripts with no ../shared beside them, so the tarball
# has to come from RDMA_CORE_TARBALL or from apt.
isolated_scripts() {
	mkdir -p "$work/repo/cmake"
	cp "$top"/cmake/*.sh "$work/repo/cmake/"
	echo "$work/repo/cmake"
}

case ${1:?case} in
wrong_checksum)
	head -c 4096 /dev/urandom >"$work/rdma-core_65.0.orig.tar.gz"
	RDMA_CORE_TARBALL=$work/rdma-core_65.0.orig.tar.gz run "$top/cmake/obtain-upstream.sh"
	expect_one_line_error "sha256" "RDMA_CORE_TARBALL"
	;;
missing_tarball)
	RDMA_CORE_TARBALL=$work/nowhere.tar.gz run "$top/cmake/obtain-upstream.sh"
	expect_one_line_error "does not exist" "RDMA_CORE_TARBALL"
	;;
unreachable_apt_source)
	# An apt configuration whose only source is a closed port on loopback.
	mkdir -p "$work/parts"
	echo "deb http://127.0.0.1:9/debian bookworm main" >"$work/sources.list"
	printf 'Dir::Etc::sourcelist "%s";\nDir::Etc::sourceparts "%s";\n' \
		"$work/sources.list" "$work/parts" >"$work/apt.conf"
	scripts=$(isolated_scripts)
	APT_CONFIG=$work/apt.conf FORK_DOWNLOAD_DIR=$work/dl RDMA_CORE_TARBALL= \
		run "$scripts/obtain-upstream.sh"
	expect_one_line_error "could not reach the apt sources" "RDMA_CORE_TARBALL"
	[ ! -e "$work/dl/rdma-core_65.0.orig.tar.gz" ] || die "left a download behind"
	;;
patch_does_not_apply)
	mkdir -p "$work/patches"
	cp "$top"/patches/*.patch "$top/patches/series" "$work/patches/"
	cat >"$work/patches/9999-broken.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Test <test@tdshare.invalid>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] test: a change against text that is not there

---
 README.md | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1,3 +1,3 @@
 This line is not in upstream's README.
-Neither is this one.
+So the patch cannot apply.
 Nor this one.
PATCH
	echo "9999-broken.patch" >>"$work/patches/series"
	RDMA_CORE_TARBALL=$tarball FORK_PATCHES_DIR=$work/patches \
		run "$top/cmake/prepare-source.sh" "$work/src"
	expect_one_line_error "patches/9999-broken.patch does not apply" "make export"
	# build/src keeps every patch before the broken one
	n=$(git -C "$work/src" rev-list --count upstream..HEAD)
	[ "$n" -eq "$(($(grep -c . "$work/patches/series") - 1))" ] ||
		die "build/src holds $n patches, not the ones before the broken patch"
	;;
export_is_stable)
	# make tree && make export on an unchanged queue changes nothing
	mkdir -p "$work/patches"
	cp "$top"/patches/* "$work/patches/"
	export RDMA_CORE_TARBALL=$tarball FORK_PATCHES_DIR=$work/patches
	"$top/cmake/prepare-source.sh" "$work/src" 2>/dev/null || die "series does not apply"
	"$top/cmake/export-series.sh" "$work/src" 2>/dev/null || die "export failed"
	diff -r "$top/patches" "$work/patches" || die "export changed patches/"
	# and a second prepare is a no-op on the same tree
	before=$(git -C "$work/src" rev-parse HEAD)
	"$top/cmake/prepare-source.sh" "$work/src" 2>/dev/null || die "second prepare failed"
	[ "$(git -C "$work/src" rev-parse HEAD)" = "$before" ] || die "second prepare rebuilt the tree"
	echo "ok: $(grep -c . "$work/patches/series") patches round-trip unchanged"
	;;
unexported_work_is_kept)
	mkdir -p "$work/patches"
	cp "$top"/patches/*.patch "$top/patches/series" "$work/patches/"
	export RDMA_CORE_TARBALL=$tarball FORK_PATCHES_DIR=$work/patches
	"$top/cmake/prepare-source.sh" "$work/src" 2>/dev/null || die "series does not apply"
	echo "local work" >>"$work/src/README.md"
	git -C "$work/src" -c user.name=t -c user.email=t@t commit -qam "test: local work"
	touch "$work/patches/series" && echo "# changed" >>"$work/patches/series"
	run "$top/cmake/prepare-source.sh" "$work/src"
	expect_one_line_error "not in patches/" "make export"
	git -C "$work/src" log -1 --format=%s | grep -q "local work" || die "local commit was lost"
	;;
queue_is_not_a_submission)
	# the queue carries no Signed-off-by and no made-up identity
	for p in "$top"/patches/*.patch; do
		! grep -q '^Signed-off-by:' "$p" || die "$(basename "$p") carries a Signed-off-by"
		! grep -qi '\.invalid>' "$p" || die "$(basename "$p") carries a made-up identity"
		# the From: header, unfolded
		sed -n '/^From: /{N;s/\n / /;p;q}' "$p" | grep -q '^From: .* <.*@.*>' ||
			die "$(basename "$p") has no author"
	done
	echo "ok: $(ls "$top"/patches/*.patch | wc -l) patches without sign-off or made-up identity"
	;;
series_needs_identity)
	# make series with no git identity refuses and says how to set one
	mkdir -p "$work/patches"
	cp "$top"/patches/* "$work/patches/"
	export RDMA_CORE_TARBALL=$tarball FORK_PATCHES_DIR=$work/patches HOME=$work
	"$top/cmake/prepare-source.sh" "$work/src" 2>/dev/null || die "series does not apply"
	# a checkout of its own, without an identity, whatever this one has
	scripts=$(isolated_scripts)
	git init -q "$work/repo"
	run "$scripts/make-series.sh" "$work/src" "$work/out"
	expect_one_line_error "git identity" "user.email"
	[ ! -e "$work/out" ] || die "wrote a submission without an identity"
	;;
submission)
	# make series: one directory per submission of patches/submissions, each
	# numbered on its own with its cover letter, authored and signed off by
	# the submitter, without the fork-only patches
	submitter_queue
	"$top/cmake/make-series.sh" "$work/src" "$work/out" 2>/dev/null || die "make-series failed"
	plan=$work/patches/submissions
	names=$(grep -v -e '^#' -e '^$' -e $'^\t' "$plan" | cut -d' ' -f1)
	[ "$(grep -v '^#' "$work/out/ORDER" | cut -d' ' -f1)" = "$names" ] ||
		die "ORDER does not list the submissions of $plan in order"
	total=0
	for name in $names; do
		want=$(awk -v n="$name" '/^[^#\t]/ { on = ($1 == n) } on && /^\t/ { c++ } END { print c + 0 }' "$plan")
		dir=$work/out/$name
		n=$(ls "$dir" | grep -c '^0[0-9]*-.*\.patch$') || true
		[ "$n" -eq $((want + 1)) ] || die "$name: $n files for $want patches"
		letter=$dir/0000-cover-letter.patch
		prefix='PATCH rdma-core'
		grep "^$name " "$plan" | grep -qw rfc && prefix='RFC PATCH rdma-core'
		# git pads the cover letter's 0 to the width of the count (00/15)
		grep -qF "Subject: [$prefix $(printf '%0*d' ${#want} 0)/$want] $(head -n1 "$work/patches/cover-$name.txt")" "$letter" ||
			die "$name: cover letter subject is wrong"
		grep -q '^Applies on rdma-core 65.0' "$letter" || die "$name: the cover letter does not say what it applies on"
		! grep -q '\*\*\*' "$letter" || die "$name: cover letter still has placeholders"
		grep -q '^From: Test Submitter <submitter@example.org>$' "$letter" ||
			die "$name: the cover letter is not from the submitter"
		for p in "$dir"/0*-*.patch; do
			case $p in *0000-cover-letter.patch) continue ;; esac
			grep -q '^From: Test Submitter <submitter@example.org>$' "$p" ||
				die "$name/$(basename "$p") is not authored by the submitter"
			[ "$(grep -c '^Signed-off-by: ' "$p")" -eq 1 ] &&
				grep -qxF 'Signed-off-by: Test Submitter <submitter@example.org>' "$p" ||
				die "$name/$(basename "$p") is not signed off once by the submitter"
		done
		total=$((total + want))
	done
	queue=$(grep -c . "$work/patches/series")
	forkonly=$(grep -c . "$work/patches/fork-only")
	[ "$total" -eq $((queue - forkonly)) ] || die "$total patches submitted for $queue ($forkonly fork-only)"
	while IFS= read -r s; do
		! grep -rqF -- "$s" "$work"/out/*/ || die "fork-only \"$s\" is in a submission"
	done <"$work/patches/fork-only"
	! grep -rqi 'tdshare' "$work"/out/*/ || die "the fork's name or version tag is in the submission"
	grep -q ' yes$' "$work/out/ORDER" || die "no submission is marked as sent later"
	git -C "$work/src" worktree list | grep -q submission && die "temporary worktree left behind"
	# what each pull request needs: title, branch, body; the branch holds the
	# submission's commits on upstream
	for name in $names; do
		pr=$work/out/$name/pull-request.txt
		[ -f "$pr" ] || die "$name: no pull-request.txt"
		title=$(head -n1 "$work/patches/cover-$name.txt")
		grep -qF "Title: " "$pr" && grep -F "Title: " "$pr" | grep -qF -- "$title" ||
			die "$name: the pull request's title is not the cover letter's subject"
		grep -qxF "Body:" "$pr" || die "$name: the pull request has no body"
		grep -q "^Branch: submit/$name " "$pr" || die "$name: the pull request names no branch"
		want=$(($(ls "$work/out/$name" | grep -c '^0[0-9]*-.*\.patch$') - 1))
		got=$(git -C "$work/src" rev-list --count "upstream..submit/$name") ||
			die "$name: no branch submit/$name in the tree"
		bases_of=$(grep "^$name " "$work/out/ORDER" | cut -d' ' -f2)
		[ "$bases_of" != 65.0 ] || [ "$got" -eq "$want" ] ||
			die "$name: submit/$name holds $got commits on upstream, not $want"
		grep -q '^Mailing list: ' "$pr" || die "$name: the pull request does not say whether the list needs it"
	done
	grep -q '^Mailing list: yes' "$work/out/4-td-sharing/pull-request.txt" ||
		die "4-td-sharing adds library API but its pull request does not ask for the mailing list"
	grep -q '^Mailing list: no' "$work/out/1-fixes/pull-request.txt" ||
		die "1-fixes changes no API but its pull request asks for the mailing list"
	echo "ok: $(wc -w <<<"$names") submissions, $total patches"
	;;
series_identity_of_checkout)
	# an identity set only in the project's checkout (no global one) is the
	# submitter's: make series must not fall back to build/src's empty one
	mkdir -p "$work/patches"
	cp "$top"/patches/* "$work/patches/"
	export RDMA_CORE_TARBALL=$tarball FORK_PATCHES_DIR=$work/patches
	"$top/cmake/prepare-source.sh" "$work/src" 2>/dev/null || die "series does not apply"
	scripts=$(isolated_scripts)
	git init -q "$work/repo"
	git -C "$work/repo" config user.name "Checkout Submitter"
	git -C "$work/repo" config user.email checkout@example.org
	"$scripts/make-series.sh" "$work/src" "$work/out" 2>/dev/null ||
		die "make series refused an identity configured in the checkout"
	for p in "$work"/out/*/0*-*.patch; do
		grep -q '^From: Checkout Submitter <checkout@example.org>$' "$p" ||
			die "$(basename "$p") is not from the checkout's identity"
	done
	echo "ok: every patch and cover letter is from the checkout's identity"
	;;
submission_plan_is_complete)
	# a queue patch in no submission and not fork-only stops make series
	submitter_queue
	sed -i '/^\tpyverbs\/mlx5: Fix Mlx5DvQP.uar_mmap_offset$/d' "$work/patches/submissions"
	run "$top/cmake/make-series.sh" "$work/src" "$work/out"
	expect_one_line_error "is in no submission" "fork-only"
	;;
*)
	die "unknown case $1"
	;;
esac
