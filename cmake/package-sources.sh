# Shared by build-deb.sh and build-rpm.sh: the sources both package builds
# start from, written into $out (build/packages):
#   rdma-core_<version>.orig.tar.gz          the pinned upstream tarball
#   rdma-core_<version>.orig-tdshare.tar.gz  our components (tdshare/), built
#                                            by packaging/components.cmake,
#                                            and their manual pages (man/)
# <version> is the fork's upstream version (65.0.tdshare1), which the series
# gives the libraries and debian/changelog repeats (tests/packaging checks).
src=${src:-build/src}
. "$(dirname "${BASH_SOURCE[0]}")/series-lib.sh"

fork_version() {
	dpkg-parsechangelog -l "$top/debian/changelog" -SVersion | sed 's/^[0-9]*://; s/-[^-]*$//'
}

# The files of our components that go into the package, from git so that
# build outputs and editor files never do. No test code: the products
# build from their own folders (and the RC bring-up below both, common/).
component_files() {
	git -C "$top" ls-files -- common mlx5emu perftest-ext
}

# make_sources OUT VERSION: both tarballs, rewritten only when they change
make_sources() {
	local out=$1 version=$2 tarball stage mtime f
	mkdir -p "$out"
	tarball=$("$top/cmake/obtain-upstream.sh")
	ln -sf "$tarball" "$out/rdma-core_$version.orig.tar.gz"

	stage=$(mktemp -d)
	mkdir "$stage/tdshare"
	component_files | while read -r f; do
		mkdir -p "$stage/tdshare/$(dirname "$f")"
		cp -p "$top/$f" "$stage/tdshare/$f"
	done
	cp "$top/packaging/components.cmake" "$stage/tdshare/CMakeLists.txt"
	cp -r "$top/packaging/man" "$stage/tdshare/man"
	# same content, same bytes: a rebuild does not change the checksums,
	# and a commit elsewhere in the repository does not rebuild the packages
	mtime=$(git -C "$top" log -1 --format=@%ct -- common mlx5emu perftest-ext \
		packaging 2>/dev/null || true)
	mtime=${mtime:-@0}
	tar -C "$stage" --sort=name --mtime="$mtime" --owner=0 --group=0 \
		--numeric-owner -cf - tdshare | gzip -n9 >"$stage/c.tar.gz"
	if ! cmp -s "$stage/c.tar.gz" "$out/rdma-core_$version.orig-tdshare.tar.gz"; then
		mv "$stage/c.tar.gz" "$out/rdma-core_$version.orig-tdshare.tar.gz"
	fi
	rm -rf "$stage"
}

# the series as a patch list (series file plus the patches it names)
copy_series() {
	local dest=$1 p
	mkdir -p "$dest"
	for p in $(series_list); do
		[ -f "$patches/$p" ] || die "patches/series names $p, which is not in patches/"
		cp "$patches/$p" "$dest/$p"
	done
	series_list >"$dest/series"
}
