# Shared by prepare-source.sh and export-series.sh: where the queue lives and
# how build/src remembers which queue it was made from.
#
# build/src.stamp holds "<hash of patches/> <commit of build/src>" as of the
# last time build/src and patches/ were known to agree.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
patches=${FORK_PATCHES_DIR:-$top/patches}
# git -C changes directory: every path handed to it must be absolute
src=$(realpath -m "$src")

# a path as the user should read it: relative to the repository when inside
shown() {
	echo "${1#"$top"/}"
}

die() {
	echo "error: $*" >&2
	exit 1
}

# git in build/src. Commits keep their authors (git am takes them from the
# patches) and new ones get the developer's identity. Only on a machine with
# no identity at all does the tree get a committer that says so; committers
# never reach patches/ (format-patch writes the author).
srcgit() {
	if git -C "$src" config user.email >/dev/null 2>&1; then
		git -C "$src" -c advice.detachedHead=false "$@"
	else
		GIT_COMMITTER_NAME="no git identity" GIT_COMMITTER_EMAIL="" \
			GIT_AUTHOR_NAME="no git identity" GIT_AUTHOR_EMAIL="" \
			git -C "$src" -c advice.detachedHead=false "$@"
	fi
}

series_list() {
	[ -f "$patches/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$patches/series" | grep -v '^$' || true
}

series_hash() {
	local p
	{
		cat "$patches/series" 2>/dev/null || true
		for p in $(series_list); do
			cat "$patches/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

write_stamp() {
	echo "$(series_hash) $(srcgit rev-parse HEAD)" >"$src.stamp"
}

# Prints nothing when build/src holds exactly the stamped commit, clean.
unexported_work() {
	local stamp_head
	read -r _ stamp_head <"$src.stamp" 2>/dev/null || stamp_head=
	[ "$(srcgit rev-parse HEAD)" = "$stamp_head" ] || echo "commits"
	[ -z "$(srcgit status --porcelain)" ] || echo "uncommitted changes"
}
