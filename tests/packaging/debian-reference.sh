#!/usr/bin/env bash
# debian-reference.sh OUT: the distribution's own binary packages of
# rdma-core that have the names of ours (the .debs in OUT), downloaded once
# into OUT/debian-reference/ with apt-get download. Prints that directory.
# With DEBIAN_REFERENCE_ROOT set, they are the candidates of that root's
# suite (cmake/suite-root.sh), else of this machine's apt (44.0-2 on
# Debian 12). The private-ABI check and the lintian comparison measure our
# packages against these.
. "$(dirname "$0")/../lib.sh"
out=$(realpath "${1:?usage: debian-reference.sh OUT}")
dir=$out/debian-reference
root=${DEBIAN_REFERENCE_ROOT:-}
in_apt() {
	if [ -n "$root" ]; then
		chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"
	else
		"$@"
	fi
}
mkdir -p "$dir"
if ! ls "$dir"/*.deb >/dev/null 2>&1; then
	names=$(for d in "$out"/*.deb; do dpkg-deb -f "$d" Package; done | sort -u)
	want=()
	for p in $names; do
		# only packages that Debian builds from rdma-core (no Source:
		# field means the source has the package's name); not ours
		info=$(in_apt apt-cache show --no-all-versions "$p" 2>/dev/null || true)
		[ -n "$info" ] || continue
		grep -q '^Version: .*tdshare' <<<"$info" && continue
		src=$(sed -n 's/^Source: \([^ ]*\).*/\1/p' <<<"$info" | head -n1)
		src=${src:-$p}
		if [ "$src" = rdma-core ]; then want+=("$p"); fi
	done
	[ ${#want[@]} -gt 0 ] || { echo "error: apt knows none of Debian's rdma-core packages (apt-get update?)" >&2; exit 1; }
	if [ -n "$root" ]; then
		rm -rf "$root/tmp/debian-reference"
		mkdir -p "$root/tmp/debian-reference"
		in_apt sh -c "cd /tmp/debian-reference && apt-get download -q ${want[*]}" >/dev/null 2>&1 &&
			mv "$root"/tmp/debian-reference/*.deb "$dir/" || {
			echo "error: apt-get download ${want[*]} failed in $root" >&2
			exit 1
		}
		rm -rf "$root/tmp/debian-reference"
	else
		(cd "$dir" && apt-get download -q "${want[@]}" >/dev/null 2>&1) || {
			echo "error: apt-get download ${want[*]} failed" >&2
			exit 1
		}
	fi
fi
echo "$dir"
