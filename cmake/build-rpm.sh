#!/usr/bin/env bash
# build-rpm.sh OUT: the SRPM of redhat/rdma-core.spec into OUT
# (build/packages), the deliverable for Fedora/RHEL users, and as proof of
# the spec the binary RPMs it builds here (rpmbuild -ba --nodeps, with the
# Fedora macros Debian's rpm lacks from packaging/rpm-proof.macros).
# Source0 is the pinned upstream tarball, Source1 our components; one
# PatchNNNN line per patch of patches/series is written into the spec here.
set -euo pipefail
out=$(realpath -m "${1:?usage: build-rpm.sh OUT}")
. "$(dirname "$0")/package-sources.sh"

version=$(fork_version)
upstream=${version%%.tdshare*}
rpmtop=$out/rpmbuild
arch=$(rpm --eval '%{_arch}')

make_sources "$out" "$version"
inputs=$({
	sha256sum "$out"/rdma-core_"$version".orig*.tar.gz
	tar -C "$top" -cf - redhat patches packaging/rpm-proof.macros | sha256sum
} | sha256sum | cut -d' ' -f1)
if [ -f "$out/rpm.stamp" ] && [ "$(cat "$out/rpm.stamp")" = "$inputs" ] &&
	ls "$out"/rdma-core-"$version"-*.src.rpm >/dev/null 2>&1; then
	echo "$(shown "$out"): RPM packages of $version are up to date" >&2
	exit 0
fi
rm -rf "$rpmtop" "$out/rpm.stamp" "$out"/*.rpm
mkdir -p "$rpmtop"/{SOURCES,SPECS,BUILD,RPMS,SRPMS}
cp -L "$out/rdma-core_$version.orig.tar.gz" "$rpmtop/SOURCES/rdma-core_$upstream.orig.tar.gz"
cp "$out/rdma-core_$version.orig-tdshare.tar.gz" "$rpmtop/SOURCES/"
copy_series "$rpmtop/SOURCES"
rm "$rpmtop/SOURCES/series"
n=0
for p in $(series_list); do
	n=$((n + 1))
	printf 'Patch%04d: %s\n' "$n" "$p"
done >"$rpmtop/patches.txt"
sed -e "/^@PATCHES@$/{r $rpmtop/patches.txt" -e 'd}' \
	"$top/redhat/rdma-core.spec" >"$rpmtop/SPECS/rdma-core.spec"

rpm_opts=(--define "_topdir $rpmtop" --define "_smp_mflags -j$(nproc)")
rpmbuild "${rpm_opts[@]}" -bs "$rpmtop/SPECS/rdma-core.spec" >"$out/rpm-build.log" 2>&1 || {
	tail -n 20 "$out/rpm-build.log" >&2
	die "rpmbuild -bs failed: the whole log is $(shown "$out")/rpm-build.log"
}
rpmbuild "${rpm_opts[@]}" --load "$top/packaging/rpm-proof.macros" --nodeps \
	--with werror -ba "$rpmtop/SPECS/rdma-core.spec" >>"$out/rpm-build.log" 2>&1 || {
	tail -n 40 "$out/rpm-build.log" >&2
	die "rpmbuild -ba failed: the whole log is $(shown "$out")/rpm-build.log"
}
mv "$rpmtop"/SRPMS/*.src.rpm "$out/"
mv "$rpmtop"/RPMS/*/*.rpm "$out/"
rm -rf "$rpmtop"
echo "$inputs" >"$out/rpm.stamp"
ls "$out"/*.rpm | sed "s|^$top/||" >&2
