#!/usr/bin/env bash
# build-deb-cross.sh OUT [ARCH]: the fork's binary packages cross-built for
# ARCH (default arm64) from the source package of `make deb` (OUT/*.dsc),
# in a Debian 12 root with Debian's cross toolchain (crossbuild-essential)
# and the ARCH multiarch libraries, with upstream's -DENABLE_WERROR=1
# (DEB_BUILD_OPTIONS=werror) and without pyverbs (nopython profile), into
# OUT/ARCH/. The patched tree and our components both go through the
# cross compiler; the result is checked to be ARCH code.
set -euo pipefail
out=$(realpath -m "${1:?usage: build-deb-cross.sh OUT [ARCH]}")
host=${2:-arm64}
. "$(dirname "$0")/package-sources.sh"
. "$top/cmake/apt-sources.sh"
. "$top/cmake/suite-root.sh"
. "$top/cmake/cross-root.sh"
dest=$out/$host
root=$out/$host-cross-root

[ "$(id -u)" -eq 0 ] || die "the cross build runs in a Debian root and needs root"
dsc=$(ls "$out"/rdma-core_*.dsc 2>/dev/null | head -n1)
[ -f "$dsc" ] || die "no source package in $(shown "$out"): run make deb"
# the stamp: the source package's checksums
inputs=$(cat "$dsc" | sha256sum | cut -d' ' -f1)
if [ -f "$dest/deb.stamp" ] && [ "$(cat "$dest/deb.stamp")" = "$inputs" ]; then
	echo "$(shown "$dest"): $host packages are up to date" >&2
	exit 0
fi

trap 'root_close "$root"' EXIT
start=$EPOCHREALTIME
cross_root_open "$root" "$host" "$dsc"
awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "cross root: %.0f s\n", e - s }' >&2

rm -rf "$dest"
mkdir -p "$dest" "$root/build"
cp -L "$dsc" "$out"/rdma-core_*.orig*.tar.gz "$out"/rdma-core_*.debian.tar.* "$root/build/"
start=$EPOCHREALTIME
in_root "$root" sh -c "cd /build && dpkg-source -x $(basename "$dsc") src >/dev/null && cd src &&
	DEB_BUILD_OPTIONS='parallel=$(nproc) noautodbgsym nocheck werror' DEB_BUILD_PROFILES=nopython \
	dpkg-buildpackage -a $host -Pnopython -B -us -uc" >"$dest/build.log" 2>&1 || {
	grep -E 'error:|Error ' "$dest/build.log" | head -n 20 >&2
	die "the $host cross build failed: the whole log is $(shown "$dest")/build.log"
}
awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "cross dpkg-buildpackage: %.0f s\n", e - s }' >&2
mv "$root"/build/*.deb "$dest/"

# every ELF file of the packages is ARCH code
machine=$(case $host in arm64) echo AArch64 ;; *) echo "$host" ;; esac)
scratch=$(mktemp -d)
n=0
for d in "$dest"/*.deb; do
	dpkg-deb -x "$d" "$scratch"
done
while read -r f; do
	m=$(readelf -h "$f" | sed -n 's/^ *Machine: *//p')
	case $m in *"$machine"*) n=$((n + 1)) ;; *) rm -rf "$scratch"; die "$f is $m code, not $host" ;; esac
done < <(find "$scratch" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
rm -rf "$scratch"
echo "$host: $(ls "$dest"/*.deb | wc -l) packages, $n ELF files, all $machine, built with -Werror" >&2
echo "$inputs" >"$dest/deb.stamp"
