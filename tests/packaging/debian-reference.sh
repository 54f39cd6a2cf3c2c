#!/usr/bin/env bash
# debian-reference.sh OUT: Debian's own binary packages of rdma-core (the
# machine's candidate version, 44.0-2 on Debian 12) that have the names of
# ours, downloaded once into OUT/debian-reference/ with apt-get download.
# Prints that directory. The private-ABI check and the lintian comparison
# measure our packages against these.
. "$(dirname "$0")/../lib.sh"
out=$(realpath "${1:?usage: debian-reference.sh OUT}")
dir=$out/debian-reference
mkdir -p "$dir"
if ! ls "$dir"/*.deb >/dev/null 2>&1; then
	names=$(for d in "$out"/*.deb; do dpkg-deb -f "$d" Package; done | sort -u)
	want=()
	for p in $names; do
		# only packages that Debian builds from rdma-core (no Source:
		# field means the source has the package's name)
		info=$(apt-cache show --no-all-versions "$p" 2>/dev/null || true)
		[ -n "$info" ] || continue
		src=$(sed -n 's/^Source: \([^ ]*\).*/\1/p' <<<"$info" | head -n1)
		src=${src:-$p}
		if [ "$src" = rdma-core ]; then want+=("$p"); fi
	done
	[ ${#want[@]} -gt 0 ] || { echo "error: apt knows none of Debian's rdma-core packages (apt-get update?)" >&2; exit 1; }
	(cd "$dir" && apt-get download -q "${want[@]}" >/dev/null 2>&1) || {
		echo "error: apt-get download ${want[*]} failed" >&2
		exit 1
	}
fi
echo "$dir"
