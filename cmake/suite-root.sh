# shellcheck shell=bash
# Shared by build-deb.sh, build-deb-cross.sh and tests/packaging: a Debian
# root of one suite (debootstrap, from the machine's configured Debian apt
# sources), with some packages installed, to build or test in.
#
#   root_open ROOT SUITE TAG [PACKAGES...]  ROOT: SUITE's minimal root plus
#                                           PACKAGES, mounted and ready
#   in_root ROOT COMMAND...                 COMMAND inside ROOT, clean env
#   root_close ROOT                         unmount and remove ROOT
#
# Roots are kept as tarballs in $TDSHARE_ROOT_CACHE (default
# /var/cache/rdma-core-tdshare; outside the clone, so that a fresh clone on
# the same machine reuses them): SUITE-minbase.tar as debootstrap left it,
# SUITE-TAG-<hash of PACKAGES>.tar with PACKAGES installed. A caller that
# defines root_setup has it run in the new root after the install (its
# definition and $root_hash_extra are part of the hash). A run whose
# tarballs exist spends seconds here, a first one minutes.
# Needs: die, top (the repository) and apt_mirrors (cmake/apt-sources.sh).
root_cache=${TDSHARE_ROOT_CACHE:-/var/cache/rdma-core-tdshare}
root_mounts=()

in_root() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# the suite's apt sources inside the root; the archive's Release files may
# be past their Valid-Until on a snapshot mirror (unstable's are, within
# days), which is no reason to refuse them here
root_apt_setup() {
	local root=$1 suite=$2 mirror=$3
	echo "deb $mirror $suite main" >"$root/etc/apt/sources.list"
	cat >"$root/etc/apt/apt.conf.d/90tdshare" <<-EOF
		Acquire::Check-Valid-Until "false";
		APT::Install-Recommends "false";
		Acquire::Languages "none";
	EOF
	cp /etc/hosts "$root/etc/hosts"
	grep -q localhost "$root/etc/hosts" || echo "127.0.0.1 localhost" >>"$root/etc/hosts"
	# no daemon of a package starts inside the root
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
}

root_mount() {
	local root=$1 m
	# UCX needs /sys (its ucs library asserts without it); the emulator's
	# device view comes from SYSFS_PATH, not from this /sys
	for m in proc sys dev dev/pts; do
		case $m in
		proc) mount -t proc proc "$root/proc" ;;
		sys) mount -t sysfs -o ro sysfs "$root/sys" ;;
		*) mount --bind "/$m" "$root/$m" ;;
		esac
		root_mounts+=("$root/$m")
	done
}

root_umount() {
	local root=$1 i keep=()
	for ((i = ${#root_mounts[@]} - 1; i >= 0; i--)); do
		case ${root_mounts[$i]} in
		"$root"/*) umount -l "${root_mounts[$i]}" 2>/dev/null || true ;;
		*) keep+=("${root_mounts[$i]}") ;;
		esac
	done
	root_mounts=("${keep[@]}")
}

root_close() {
	local root=$1
	root_umount "$root"
	# nothing may be mounted below a root that is removed
	if grep -q " $root/" /proc/mounts; then
		echo "warning: still mounted below $root, not removed" >&2
		return 0
	fi
	rm -rf "$root"
}

root_open() {
	local root=$1 suite=$2 tag=$3 mirror hash base tar log
	shift 3
	mirror=$(apt_mirrors | head -n1)
	[ -n "$mirror" ] || die "no Debian apt source is configured to debootstrap $suite from"
	mkdir -p "$root_cache"
	base=$root_cache/$suite-minbase.tar
	hash=$({
		echo "$suite $* ${root_hash_extra:-} v1"
		declare -f root_setup || true
	} | sha256sum | cut -c1-12)
	tar=$root_cache/$suite-$tag-$hash.tar
	log=$root_cache/$suite-$tag.log
	root_close "$root"
	mkdir -p "$root"
	if [ -f "$tar" ]; then
		tar -C "$root" -xf "$tar"
		root_mount "$root"
		return 0
	fi
	if [ -f "$base" ]; then
		tar -C "$root" -xf "$base"
	else
		debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$log" 2>&1 || {
			tail -n 20 "$log" >&2
			die "debootstrap $suite $mirror failed (log: $log)"
		}
		tar -C "$root" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	fi
	root_apt_setup "$root" "$suite" "$mirror"
	root_mount "$root"
	in_root "$root" apt-get update -qq >"$log" 2>&1 &&
		in_root "$root" apt-get install -y -qq "$@" >>"$log" 2>&1 || {
		tail -n 20 "$log" >&2
		die "apt-get install in the $suite root failed (log: $log)"
	}
	if declare -F root_setup >/dev/null; then
		root_setup "$root" >>"$log" 2>&1 || {
			tail -n 20 "$log" >&2
			die "setting up the $suite root failed (log: $log)"
		}
	fi
	in_root "$root" apt-get clean
	root_umount "$root"
	tar -C "$root" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
	root_mount "$root"
	# older tarballs of this suite and tag are stale
	find "$root_cache" -maxdepth 1 -name "$suite-$tag-*.tar" ! -path "$tar" -delete
}
