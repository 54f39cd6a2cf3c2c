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

# git in build/src, with an identity for machines that have none
srcgit() {
	git -C "$src" -c user.name="rdma-core tdshare build" \
		-c user.email=build@tdshare.invalid -c advice.detachedHead=false "$@"
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
