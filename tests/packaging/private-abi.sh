#!/usr/bin/env bash
# private-abi.sh OUT [PATCHED_TREE]: the private ABI between libibverbs and
# its users (IBVERBS_PRIVATE_<n>) is kept exact, as Debian does it.
#  - our libibverbs1 defines the private version the tree defines;
#  - each of our packages that imports a private version imports that one;
#  - every package, ours or Debian's, whose binaries import a private
#    version is listed in our libibverbs1's Breaks, so apt never leaves a
#    Debian binary built against another private ABI next to our library.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
out=$(realpath "${1:?usage: private-abi.sh OUT [PATCHED_TREE]}")
tree=${2:-}
fail=0
scratch_dir work

# private versions the binaries of a .deb import (undefined symbols)
imports() {
	rm -rf "$work/x"
	mkdir "$work/x"
	dpkg-deb -x "$1" "$work/x"
	find "$work/x" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
		xargs -0 -r objdump -T 2>/dev/null |
		awk '$0 ~ /\*UND\*/ && /IBVERBS_PRIVATE_/ { for (i = 1; i <= NF; i++)
			if ($i ~ /^\(?IBVERBS_PRIVATE_/) { gsub(/[()]/, "", $i); print $i } }' | sort -u
}

libibverbs=$(ls "$out"/libibverbs1_*.deb | head -n1)
rm -rf "$work/l" && mkdir "$work/l" && dpkg-deb -x "$libibverbs" "$work/l"
defined=$(objdump -T "$work"/l/usr/lib/*/libibverbs.so.1 |
	awk '$0 !~ /\*UND\*/ { for (i = 1; i <= NF; i++) if ($i ~ /^IBVERBS_PRIVATE_[0-9]+$/) print $i }' | sort -u)
echo "our libibverbs1 defines $defined"
pabi=${defined#IBVERBS_PRIVATE_}
if [ -n "$tree" ]; then
	want=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")/\1/p' "$tree/CMakeLists.txt")
	[ "$want" = "$pabi" ] || { echo "FAIL: the tree defines IBVERBS_PRIVATE_$want"; fail=1; }
fi
breaks=$(dpkg-deb -f "$libibverbs" Breaks)
echo "libibverbs1 Breaks: $breaks"

# the version our Breaks gives package $1, or nothing
broken_below() {
	tr ',' '\n' <<<"$breaks" | sed -n "s/^ *$1 (<< \(.*\))$/\1/p"
}

for deb in "$out"/*.deb; do
	p=$(dpkg-deb -f "$deb" Package)
	for v in $(imports "$deb"); do
		if [ "$v" != "$defined" ]; then
			echo "FAIL: our $p imports $v, our libibverbs1 defines $defined"
			fail=1
		elif [ -z "$(broken_below "$p")" ]; then
			echo "FAIL: our $p imports $v but libibverbs1 does not break older $p"
			fail=1
		else
			echo "ours:   $p imports $v; older $p is broken below $(broken_below "$p")"
		fi
	done
done

ref=$("$here/debian-reference.sh" "$out")
for deb in "$ref"/*.deb; do
	p=$(dpkg-deb -f "$deb" Package)
	theirs=$(dpkg-deb -f "$deb" Version)
	for v in $(imports "$deb"); do
		[ "$v" = "$defined" ] && continue
		below=$(broken_below "$p")
		if [ -n "$below" ] && dpkg --compare-versions "$theirs" lt "$below"; then
			echo "Debian: $p $theirs imports $v: broken by our libibverbs1 (<< $below), replaced by ours"
		else
			echo "FAIL: Debian's $p $theirs imports $v, which our libibverbs1 does not define, and is not broken by it"
			fail=1
		fi
	done
done
[ $fail -eq 0 ] && echo "private ABI: exact"
exit $fail
