#!/usr/bin/env bash
# The packages carry the version the series gives the libraries
# (PACKAGE_VERSION of the patched tree), in debian/changelog (after the
# epoch) and in the RPM spec, and the epoch makes that version sort above
# every version of rdma-core a distribution ships or will ship without one:
# Debian's revisions of the same release and of the later ones (65.1,
# 66.0, binNMUs, NMUs), so that no routine upgrade replaces the fork.
. "$(dirname "$0")/../lib.sh"
src=${1:?usage: version_test.sh PATCHED_TREE REPO}
repo=${2:?}
fail=0

tree=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' "$src/CMakeLists.txt")
deb=$(dpkg-parsechangelog -l "$repo/debian/changelog" -SVersion)
echo "series: $tree; debian/changelog: $deb"
upstream=${deb#*:}
upstream=${upstream%-*}
if [ "$upstream" != "$tree" ]; then
	echo "FAIL: debian/changelog has $upstream, the series gives $tree"
	fail=1
fi
case $deb in
1:*) ;;
*) echo "FAIL: debian/changelog's $deb has not the fork's epoch 1"; fail=1 ;;
esac
if [ -f "$repo/redhat/rdma-core.spec" ]; then
	spec=$(sed -n 's/^Version:[[:space:]]*//p' "$repo/redhat/rdma-core.spec")
	epoch=$(sed -n 's/^Epoch:[[:space:]]*//p' "$repo/redhat/rdma-core.spec")
	echo "redhat/rdma-core.spec: $epoch:$spec"
	[ "$spec" = "$tree" ] || { echo "FAIL: the spec has $spec, the series gives $tree"; fail=1; }
	[ "$epoch" = 1 ] || { echo "FAIL: the spec's Epoch is '$epoch', not 1"; fail=1; }
fi
for theirs in 44.0-2 56.1-1 65.0-1 65.0-1.1 65.0-2 65.1-1 66.0-1 66.0-1+b1 66.0-1.1~bpo13+1 99.0-1; do
	if dpkg --compare-versions "$deb" gt "$theirs"; then
		echo "$deb > $theirs"
	else
		echo "FAIL: $deb does not sort above $theirs"
		fail=1
	fi
done
exit $fail
