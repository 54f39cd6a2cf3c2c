#!/usr/bin/env bash
# Print the path of a verified rdma-core 65.0 orig tarball.
#
# Looks, in order, at $RDMA_CORE_TARBALL, ../shared/upstream/ beside this
# repository, a copy downloaded earlier into $FORK_DOWNLOAD_DIR, and finally
# downloads one through the machine's Debian apt sources. Every failure is a
# single line on stderr that says what to do.
set -euo pipefail

version=65.0
name=rdma-core_${version}.orig.tar.gz
sha256=f6ba3d8b2c4aa334c5c883c1ad0772de339011123cff4fb1db32ae7a443fb7ca
top=$(cd "$(dirname "$0")/.." && pwd)
download_dir=${FORK_DOWNLOAD_DIR:-$top/build/download}

die() {
	echo "error: $*" >&2
	exit 1
}

verify() {
	local got
	got=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$got" = "$sha256" ] ||
		die "$1 has sha256 $got, not the pinned $sha256 of $name: set RDMA_CORE_TARBALL to a genuine copy"
}

. "$(dirname "$0")/apt-sources.sh"

# Debian's sid and forky carry 65.0 today; experimental may carry it later.
apt_download() {
	local work mirrors uri line out
	work=$(mktemp -d)
	trap 'rm -rf "$work"' RETURN
	mirrors=$(apt_mirrors)
	[ -n "$mirrors" ] || die "no Debian apt source is configured to download $name from: set RDMA_CORE_TARBALL to a local copy"
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts"
	for uri in $mirrors; do
		for suite in sid forky experimental; do
			# The index is only used to find the file name; the tarball
			# itself is checked against the pinned sha256 below.
			echo "deb-src [trusted=yes] $uri $suite main"
		done
	done >"$work/sources.list"
	local opts=(-o "Dir::Etc::sourcelist=$work/sources.list"
		-o "Dir::Etc::sourceparts=$work/parts"
		-o "Dir::State::Lists=$work/lists"
		-o "Dir::Cache=$work/cache"
		-o "Acquire::Retries=1"
		-o "Acquire::http::Timeout=20")
	out=$(apt-get "${opts[@]}" update 2>&1) || true
	uri=$(apt-get "${opts[@]}" source --print-uris "rdma-core" 2>/dev/null |
		awk -v n="$name" '$2 == n { gsub("\047", "", $1); print $1; exit }' || true)
	if [ -z "$uri" ]; then
		line=$(grep -m1 -e '^Err:' -e '^E:' -e '^W: Failed' <<<"$out" | tr -s ' ' || true)
		[ -z "$line" ] ||
			die "could not reach the apt sources to download $name ($line): set RDMA_CORE_TARBALL to a local copy"
		die "the apt sources ($(echo $mirrors)) carry no rdma-core $version source: set RDMA_CORE_TARBALL to a local copy"
	fi
	mkdir -p "$download_dir"
	if ! out=$(/usr/lib/apt/apt-helper download-file "$uri" "$download_dir/$name.part" "SHA256:$sha256" 2>&1); then
		rm -f "$download_dir/$name.part"
		die "could not download $uri ($(tail -n1 <<<"$out")): set RDMA_CORE_TARBALL to a local copy"
	fi
	mv "$download_dir/$name.part" "$download_dir/$name"
}

if [ -n "${RDMA_CORE_TARBALL:-}" ]; then
	[ -f "$RDMA_CORE_TARBALL" ] || die "RDMA_CORE_TARBALL=$RDMA_CORE_TARBALL does not exist"
	tarball=$RDMA_CORE_TARBALL
elif [ -f "$top/../shared/upstream/$name" ]; then
	tarball=$(cd "$top/../shared/upstream" && pwd)/$name
elif [ -f "$download_dir/$name" ]; then
	tarball=$download_dir/$name
else
	command -v apt-get >/dev/null ||
		die "$name not found and apt-get is not available to download it: set RDMA_CORE_TARBALL to a local copy"
	apt_download
	tarball=$download_dir/$name
fi
verify "$tarball"
echo "$tarball"
