#!/usr/bin/env bash
# build-deb.sh OUT: the Debian source package of the fork into OUT
# (build/packages): rdma-core's orig tarball with our series as
# debian/patches (generated here from patches/, never kept twice), plus our
# components as the "tdshare" component tarball; and from that one source
# package, each suite's binary packages, built in a root of that suite
# (cmake/suite-root.sh), into OUT/<suite>/.
#
# DEB_SUITES (default "bookworm trixie") names the suites. The suites of
# DEB_WERROR_SUITES (default bookworm: the compiler make check uses) build
# with -Werror (DEB_BUILD_OPTIONS=werror); the others count their compiler
# warnings into OUT/<suite>/warnings.txt. A suite's packages are not
# rebuilt when none of the inputs changed since its last build.
set -euo pipefail
out=$(realpath -m "${1:?usage: build-deb.sh OUT}")
. "$(dirname "$0")/package-sources.sh"
. "$top/cmake/apt-sources.sh"
. "$top/cmake/suite-root.sh"
suites=${DEB_SUITES-bookworm trixie}
werror_suites=${DEB_WERROR_SUITES:-bookworm}

[ "$(id -u)" -eq 0 ] || die "make deb builds in Debian roots and needs root (debootstrap, chroot)"
version=$(fork_version)
full=$(dpkg-parsechangelog -l "$top/debian/changelog" -SVersion)
noepoch=${full#*:}
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
tree=$out/rdma-core-$version

# build_deps CONTROL [ARCH] [PROFILES]: names of the source's build
# dependencies for ARCH (first of each alternative), for apt-get install
build_deps() {
	perl -MDpkg::Deps -MDpkg::Control::Info -e '
		my ($f, $arch, $prof) = @ARGV;
		my $c = Dpkg::Control::Info->new($f)->get_source;
		my $d = deps_parse($c->{"Build-Depends"}, reduce_arch => 1,
			host_arch => $arch, build_dep => 1, reduce_profiles => 1,
			build_profiles => [split / /, $prof // ""]);
		print join(" ", map { my $p = ($_->isa("Dpkg::Deps::OR") ?
			($_->get_deps)[0] : $_)->{package}; $p =~ s/^debhelper-compat$/debhelper/; $p }
			$d->get_deps), "\n";' "$@"
}

make_sources "$out" "$version"
inputs=$({
	sha256sum "$out"/rdma-core_"$version".orig*.tar.gz
	tar -C "$top" -cf - debian patches | sha256sum
} | sha256sum | cut -d' ' -f1)

# the source package: one .dsc for every suite
dsc=$out/rdma-core_$noepoch.dsc
if [ ! -f "$out/dsc.stamp" ] || [ "$(cat "$out/dsc.stamp")" != "$inputs" ] || [ ! -f "$dsc" ]; then
	rm -f "$out"/*.dsc "$out"/*.debian.tar.* "$out/dsc.stamp"
	rm -rf "$tree"
	mkdir -p "$tree/tdshare"
	tar -C "$tree" -xzf "$out/rdma-core_$version.orig.tar.gz" --strip-components=1
	tar -C "$tree/tdshare" -xzf "$out/rdma-core_$version.orig-tdshare.tar.gz" --strip-components=1
	# upstream's own debian/ is replaced by ours (3.0 (quilt) ignores it anyway)
	rm -rf "$tree/debian"
	cp -a "$top/debian" "$tree/debian"
	copy_series "$tree/debian/patches"
	(cd "$out" && dpkg-source -b "$tree") >"$out/dsc-build.log" 2>&1 || {
		tail -n 20 "$out/dsc-build.log" >&2
		die "dpkg-source -b failed: the whole log is $(shown "$out")/dsc-build.log"
	}
	rm -rf "$tree"
	echo "$inputs" >"$out/dsc.stamp"
	echo "$(shown "$dsc")" >&2
fi

# build_suite SUITE: the binary packages of SUITE into OUT/SUITE
build_suite() {
	local suite=$1 dest=$out/$1 root=$out/$1-build-root start deps opts
	opts="parallel=$(nproc) noautodbgsym ${DEB_BUILD_OPTIONS:-}"
	case " $werror_suites " in *" $suite "*) opts="$opts werror" ;; esac
	if [ -f "$dest/deb.stamp" ] && [ "$(cat "$dest/deb.stamp")" = "$inputs $opts" ] &&
		ls "$dest"/libibverbs1_"$noepoch"_"$arch".deb >/dev/null 2>&1; then
		echo "$(shown "$dest"): $suite's Debian packages of $full are up to date" >&2
		return 0
	fi
	rm -rf "$dest"
	mkdir -p "$dest"
	start=$EPOCHREALTIME
	deps=$(build_deps "$top/debian/control" "$arch")
	at_exit_root=$root
	root_open "$root" "$suite" build build-essential $deps
	awk -v s="$start" -v e="$EPOCHREALTIME" -v n="$suite" \
		'BEGIN { printf "%s build root: %.0f s\n", n, e - s }' >&2
	mkdir -p "$root/build"
	cp -L "$dsc" "$out"/rdma-core_"$version".orig*.tar.gz \
		"$out"/rdma-core_"$noepoch".debian.tar.* "$root/build/"
	start=$EPOCHREALTIME
	in_root "$root" sh -c "cd /build && dpkg-source -x $(basename "$dsc") src >/dev/null &&
		cd src && DEB_BUILD_OPTIONS='$opts' \
		dpkg-buildpackage -b -us -uc" >"$dest/build.log" 2>&1 || {
		tail -n 40 "$dest/build.log" >&2
		die "dpkg-buildpackage in the $suite root failed: the whole log is $(shown "$dest")/build.log"
	}
	awk -v s="$start" -v e="$EPOCHREALTIME" -v n="$suite" \
		'BEGIN { printf "%s dpkg-buildpackage: %.0f s\n", n, e - s }' >&2
	grep -E '^/build/src/.*: warning: ' "$dest/build.log" | sed 's|^/build/src/||' |
		sort -u >"$dest/warnings.txt" || true
	echo "$suite: DEB_BUILD_OPTIONS=$opts, $(wc -l <"$dest/warnings.txt") compiler warnings (in $(shown "$dest")/warnings.txt)" >&2
	mv "$root"/build/*.deb "$root"/build/*.changes "$root"/build/*.buildinfo "$dest/"
	root_close "$root"
	at_exit_root=
	echo "$inputs $opts" >"$dest/deb.stamp"
	ls "$dest"/*.deb | sed "s|^$top/||" >&2
}

at_exit_root=
trap '[ -z "$at_exit_root" ] || root_close "$at_exit_root"' EXIT
for suite in $suites; do
	build_suite "$suite"
done
