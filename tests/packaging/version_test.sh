#!/usr/bin/env bash
# The packages carry the version the series gives the libraries
# (PACKAGE_VERSION of the patched tree), in debian/changelog and in the RPM
# spec, and that version sorts above every Debian revision of the same
# upstream release, so apt replaces Debian's packages with ours.
. "$(dirname "$0")/../lib.sh"
src=${1:?usage: version_test.sh PATCHED_TREE REPO}
repo=${2:?}
fail=0

tree=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' "$src/CMakeLists.txt")
deb=$(dpkg-parsechangelog -l "$repo/debian/changelog" -SVersion)
upstream=${tree%%.tdshare*}
echo "series: $tree; debian/changelog: $deb"
if [ "${deb%-*}" != "$tree" ]; then
	echo "FAIL: debian/changelog has ${deb%-*}, the series gives $tree"
	fail=1
fi
if [ -f "$repo/redhat/rdma-core.spec" ]; then
	spec=$(sed -n 's/^Version:[[:space:]]*//p' "$repo/redhat/rdma-core.spec")
	echo "redhat/rdma-core.spec: $spec"
	[ "$spec" = "$tree" ] || { echo "FAIL: the spec has $spec, the series gives $tree"; fail=1; }
fi
for theirs in "$upstream-1" "$upstream-1.1" "$upstream-2" "$upstream-9" 44.0-2; do
	if dpkg --compare-versions "$deb" gt "$theirs"; then
		echo "$deb > $theirs"
	else
		echo "FAIL: $deb does not sort above Debian's $theirs"
		fail=1
	fi
done
# but below the next upstream release, which must replace ours
next=$((${upstream%%.*} + 1)).0-1
if dpkg --compare-versions "$deb" lt "$next"; then
	echo "$deb < $next"
else
	echo "FAIL: $deb sorts above the next upstream release $next"
	fail=1
fi
exit $fail
