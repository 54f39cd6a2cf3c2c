# shellcheck shell=bash
# Shared by build-deb-cross.sh and tests/packaging/check-arm64.sh: the
# Debian 12 root that cross-builds the source package DSC for HOST
# (cmake/suite-root.sh caches it): Debian's cross toolchain
# (crossbuild-essential-HOST), the HOST multiarch libraries of the
# source's build dependencies as apt resolves them (build-dep -a HOST, no
# pyverbs), and qemu-user-static to run HOST programs.
#   cross_root_open ROOT HOST DSC
cross_root_open() {
	local root=$1
	cross_host=$2 cross_dsc=$3
	root_hash_extra=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$cross_dsc")
	root_open "$root" bookworm "cross-$cross_host" \
		crossbuild-essential-"$cross_host" qemu-user-static
}
root_setup() {
	local r=$1
	cp "$cross_dsc" "$r/tmp/"
	in_root "$r" dpkg --add-architecture "$cross_host"
	in_root "$r" apt-get update -qq
	in_root "$r" apt-get build-dep -y -qq -a "$cross_host" -Pnopython "/tmp/$(basename "$cross_dsc")"
	rm -f "$r/tmp/$(basename "$cross_dsc")"
}
