#!/usr/bin/env bash
# pin-test.sh ROOT DEBDIR: in ROOT, with our packages installed, a local
# repository (file:) offers libibverbs1 both as 66.0-1 (a later upstream
# release, which our epoch sorts above) and as 1:66.0-1 (one that sorts
# above ours), repacked from the suite's own libibverbs1
# (DEBDIR/debian-reference). apt upgrade replaces neither; without the
# pin of rdma-core-tdshare-pin it would take 1:66.0-1; asked for a
# version by name, apt installs it (simulated).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
root=${1:?usage: pin-test.sh ROOT DEBDIR}
debdir=$(realpath "${2:?}")
top=$(cd "$here/../.." && pwd)
. "$top/cmake/suite-root.sh"
pref=/etc/apt/preferences.d/rdma-core-tdshare.pref
list=/etc/apt/sources.list.d/tdshare-pin-test.list
repo=/tmp/tdshare-pin-repo

ref=$(ls "$debdir"/debian-reference/libibverbs1_*.deb | head -n1)
[ -f "$ref" ] || die "no reference libibverbs1 in $debdir/debian-reference"
ours=$(in_root "$root" dpkg-query -W -f '${Version}' libibverbs1)
case $ours in *tdshare*) ;; *) die "libibverbs1 $ours is not ours" ;; esac
[ -f "$root$pref" ] || die "$pref is not installed"

cleanup() {
	rm -f "$root$list"
	[ ! -f "$root$pref.off" ] || mv "$root$pref.off" "$root$pref"
	rm -rf "${root:?}$repo"
	in_root "$root" apt-get update -qq || true
}
at_exit cleanup

scratch_dir work
rm -rf "${root:?}$repo"
mkdir -p "$root$repo"
n=0
for v in 66.0-1 1:66.0-1; do
	n=$((n + 1))
	rm -rf "$work/x"
	dpkg-deb -R "$ref" "$work/x"
	sed -i "s/^Version: .*/Version: $v/" "$work/x/DEBIAN/control"
	dpkg-deb -Zxz -b "$work/x" "$root$repo/libibverbs1-$n.deb" >/dev/null
done
(cd "$root$repo" && dpkg-scanpackages -m . 2>/dev/null) >"$root$repo/Packages"
echo "deb [trusted=yes] file:$repo ./" >"$root$list"
in_root "$root" apt-get update -qq

for v in 66.0-1 1:66.0-1; do
	if dpkg --compare-versions "$ours" gt "$v"; then r=">"; else r="<"; fi
	echo "dpkg --compare-versions: ours $ours $r $v"
done
echo "apt-cache policy libibverbs1:"
in_root "$root" apt-cache policy libibverbs1 | sed 's/^/  /'

# upgrade_takes: what apt full-upgrade (the stronger of the two upgrades:
# it may remove packages) would install for libibverbs1
upgrade_takes() {
	in_root "$root" apt-get -s dist-upgrade | sed -n 's/^Inst libibverbs1 .*(\([^ ]*\) .*/\1/p'
}
took=$(upgrade_takes)
[ -z "$took" ] || die "apt full-upgrade would replace our libibverbs1 $ours by $took"
in_root "$root" apt-get upgrade -y -qq >/dev/null
in_root "$root" apt-get dist-upgrade -y -qq >/dev/null
now=$(in_root "$root" dpkg-query -W -f '${Version}' libibverbs1)
[ "$now" = "$ours" ] || die "apt upgrade replaced our libibverbs1 $ours by $now"
echo "apt upgrade and apt full-upgrade: libibverbs1 stays $ours"

mv "$root$pref" "$root$pref.off"
in_root "$root" apt-get update -qq
took=$(upgrade_takes)
[ "$took" = 1:66.0-1 ] || die "without the pin, apt full-upgrade takes '$took', not 1:66.0-1: the test proves nothing"
echo "without the pin: apt full-upgrade would take $took (the epoch alone keeps 66.0-1 out)"
mv "$root$pref.off" "$root$pref"
in_root "$root" apt-get update -qq

for v in 1:66.0-1 66.0-1; do
	in_root "$root" apt-get -s install --allow-downgrades "libibverbs1=$v" >"$work/asked" 2>&1 ||
		{ cat "$work/asked"; die "apt-get install libibverbs1=$v fails"; }
	grep -q "^Inst libibverbs1 .*($v " "$work/asked" ||
		{ cat "$work/asked"; die "asked for libibverbs1=$v, apt would not install it"; }
	echo "asked (apt install libibverbs1=$v): apt installs it"
done
