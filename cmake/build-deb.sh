#!/usr/bin/env bash
# build-deb.sh OUT: the Debian source package and all binary packages of the
# fork into OUT (build/packages): rdma-core's orig tarball with our series as
# debian/patches (generated here from patches/, never kept twice), plus our
# components as the "tdshare" component tarball.
#
# Nothing is rebuilt when none of the inputs changed since the last build.
set -euo pipefail
out=$(realpath -m "${1:?usage: build-deb.sh OUT}")
. "$(dirname "$0")/package-sources.sh"

version=$(fork_version)
tree=$out/rdma-core-$version
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

make_sources "$out" "$version"
inputs=$({
	sha256sum "$out"/rdma-core_"$version".orig*.tar.gz
	tar -C "$top" -cf - debian patches | sha256sum
} | sha256sum | cut -d' ' -f1)
if [ -f "$out/deb.stamp" ] && [ "$(cat "$out/deb.stamp")" = "$inputs" ] &&
	ls "$out"/libibverbs1_*"$version"*_"$arch".deb >/dev/null 2>&1; then
	echo "$(shown "$out"): Debian packages of $version are up to date" >&2
	exit 0
fi
rm -f "$out/deb.stamp" "$out"/*.deb "$out"/*.ddeb "$out"/*.changes \
	"$out"/*.buildinfo "$out"/*.dsc "$out"/*.debian.tar.*

rm -rf "$tree"
mkdir -p "$tree/tdshare"
tar -C "$tree" -xzf "$out/rdma-core_$version.orig.tar.gz" --strip-components=1
tar -C "$tree/tdshare" -xzf "$out/rdma-core_$version.orig-tdshare.tar.gz" --strip-components=1
# upstream's own debian/ is replaced by ours (3.0 (quilt) ignores it anyway)
rm -rf "$tree/debian"
cp -a "$top/debian" "$tree/debian"
copy_series "$tree/debian/patches"

jobs=$(nproc)
(cd "$tree" && DEB_BUILD_OPTIONS="parallel=$jobs noautodbgsym ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -sa) >"$out/deb-build.log" 2>&1 || {
	tail -n 40 "$out/deb-build.log" >&2
	die "dpkg-buildpackage failed: the whole log is $(shown "$out")/deb-build.log"
}
rm -rf "$tree"
echo "$inputs" >"$out/deb.stamp"
ls "$out"/*.deb | sed "s|^$top/||" >&2
