#!/usr/bin/env bash
# check-packages.sh OUT: the .debs of `make deb` (in OUT) on a real Debian 12.
#
# In a fresh Debian 12 root (debootstrap, from the machine's configured
# Debian apt sources), with Debian's own ibverbs-utils, perftest and
# ucx-utils installed from the archive:
#   1. our .debs go over Debian's with apt (the versions replaced are shown);
#   2. ibv_devinfo, Debian's ib_write_bw (server and client), our benchmark
#      and pyverbs run on the emulated device (mlx5emu) against the
#      installed libraries, showing which libibverbs/libmlx5 were loaded;
#      Debian's ucx_perftest (tag_bw over rc_mlx5/ud_mlx5) on it too;
#   3. apt install --allow-downgrades with Debian's versions restores
#      Debian's packages, with nothing of ours left.
# Also checks the private ABI of the packages and, unless
# CHECK_PACKAGES_LINTIAN=0, runs the lintian comparison (lintian-compare.sh).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
out=$(realpath "${1:?usage: check-packages.sh OUT}")
top=$(cd "$here/../.." && pwd)
. "$top/cmake/apt-sources.sh"
suite=bookworm
root=$out/debian12-root
fabric=check-packages-$$

section() {
	printf '\n=== %s\n' "$*"
}

[ "$(id -u)" -eq 0 ] || die "check-packages needs root (debootstrap, chroot)"
debs=("$out"/*.deb)
[ -e "${debs[0]}" ] || die "no .deb in $out: run make deb"
mirror=$(apt_mirrors | head -n1)
[ -n "$mirror" ] || die "no Debian apt source is configured to debootstrap $suite from"

in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
mounted=()
cleanup() {
	local m
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[$i]}" 2>/dev/null || true
	done
	rm -rf "$root"
}
at_exit cleanup

section "private ABI of the packages"
"$here/private-abi.sh" "$out"

section "Debian 12 root from $mirror"
rm -rf "$root"
start=$EPOCHREALTIME
# the bare root of a first run is kept (as a tarball) for the next ones
base=$out/debian12-minbase.tar
if [ -f "$base" ]; then
	mkdir -p "$root"
	tar -C "$root" -xf "$base"
else
	debootstrap --variant=minbase "$suite" "$root" "$mirror" \
		>"$out/debootstrap.log" 2>&1 || {
		tail -n 20 "$out/debootstrap.log" >&2
		die "debootstrap $suite $mirror failed (log: $out/debootstrap.log)"
	}
	tar -C "$root" -cf "$base.tmp" . && mv "$base.tmp" "$base"
fi
# UCX needs /sys (its ucs library asserts without it); the emulator's
# device view comes from SYSFS_PATH, not from this /sys
for m in proc sys dev dev/pts; do
	case $m in
	proc) mount -t proc proc "$root/proc" ;;
	sys) mount -t sysfs -o ro sysfs "$root/sys" ;;
	*) mount --bind "/$m" "$root/$m" ;;
	esac
	mounted+=("$root/$m")
done
cp /etc/hosts "$root/etc/hosts"
grep -q localhost "$root/etc/hosts" || echo "127.0.0.1 localhost" >>"$root/etc/hosts"
# no daemon of a package starts inside the root
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
echo "deb $mirror $suite main" >"$root/etc/apt/sources.list"
awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "debootstrap: %.0f s\n", e - s }'

section "Debian's packages from the archive"
in_root apt-get update -qq
in_root apt-get install -y -qq --no-install-recommends \
	ibverbs-utils perftest ucx-utils >/dev/null
ours=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sort)
installed_versions() {
	in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' |
		awk '$1 == "ii" { print $2, $3 }' | sort
}
installed_versions >"$out/before.txt"
echo "installed from Debian (packages we replace):"
join <(echo "$ours") "$out/before.txt" | sed 's/^/  /'

section "our packages over Debian's (apt install ./*.deb)"
mkdir -p "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/"
in_root sh -c 'apt-get install -y -qq --no-install-recommends /tmp/debs/*.deb' \
	>"$out/install.log" 2>&1 || {
	tail -n 30 "$out/install.log" >&2
	die "apt could not install our packages (log: $out/install.log)"
}
installed_versions >"$out/after.txt"
join -a2 <(join <(echo "$ours") "$out/before.txt") \
	<(join <(echo "$ours") "$out/after.txt") |
	awk 'NF == 3 { printf "  %-20s %s -> %s\n", $1, $2, $3; next }
	     { printf "  %-20s (new) %s\n", $1, $2 }'
# everything that uses the verbs libraries is still installed
for p in ibverbs-utils perftest ucx-utils; do
	grep -q "^$p " "$out/after.txt" || die "installing our packages removed $p"
done

section "the emulated device, installed libraries"
emu() {
	in_root mlx5emu run --fabric="$fabric" -- "$@"
}
emu ibv_devinfo
# the libraries the dynamic loader actually ran, and the package of each
emu env LD_DEBUG=files ibv_devinfo 2>&1 >/dev/null |
	sed -n 's/.*calling init: \(.*lib\(ibverbs\|mlx5\)[-.][^/]*\)$/\1/p' | sort -u >"$out/loaded.txt"
for lib in libibverbs.so.1 libmlx5.so.1; do
	path=$(grep "/${lib%%.so.1}[-.]" "$out/loaded.txt" | head -n1 || true)
	[ -n "$path" ] || die "ibv_devinfo did not load $lib"
	real=$(in_root readlink -f "$path")
	owner=$(in_root dpkg -S "$real" | cut -d: -f1)
	version=$(in_root dpkg-query -W -f '${Version}' "$owner")
	echo "loaded $lib: $path -> $real ($owner $version)"
	case $version in *tdshare*) ;; *) die "$lib came from $owner $version, not from our packages" ;; esac
done
emu sh -c 'echo "mlx5emu preloads: $LD_PRELOAD"'

section "Debian's ib_write_bw (perftest $(awk '$1 == "perftest" { print $2 }' "$out/after.txt")) on the emulated device"
port=$((20000 + $$ % 10000))
emu ib_write_bw -p $port -D 2 -F >"$out/ib_write_bw.server" 2>&1 &
server=$!
sleep 1
emu ib_write_bw -p $port -D 2 -F localhost 2>&1 | tee "$out/ib_write_bw.client"
wait $server || { cat "$out/ib_write_bw.server"; die "ib_write_bw server failed"; }
grep -q 'BW average' "$out/ib_write_bw.client" || die "ib_write_bw printed no result"

section "our benchmark: ib_write_mt (perftest-ext)"
emu ib_write_mt --loopback --endpoints=levels --threads=4 -n 2000 2>&1 | tail -n 12

section "pyverbs"
in_root python3 -c 'import pyverbs; print("import pyverbs:", pyverbs.__file__)'
emu python3 -c 'import pyverbs.device as d; print("pyverbs sees:", [x.name.decode() for x in d.get_device_list()])'

section "Debian's ucx_perftest (ucx-utils $(awk '$1 == "ucx-utils" { print $2 }' "$out/after.txt")) on the emulated device"
# captured first: grep -q would end the pipe early (SIGPIPE, under pipefail)
emu ucx_info -d >"$out/ucx_info.txt" 2>&1 || die "ucx_info -d failed (output: $out/ucx_info.txt)"
grep -A1 'Transport: rc_mlx5$' "$out/ucx_info.txt" | grep 'Device: mlx5_0:1' >/dev/null ||
	die "UCX does not list rc_mlx5 on mlx5_0:1 (output: $out/ucx_info.txt)"
echo "ucx_info -d: rc_mlx5 on mlx5_0:1"
# the mlx5 transports only: with its defaults UCX picks shared memory
# between two local processes, never the device
ucx() {
	emu env UCX_TLS=rc_mlx5,ud_mlx5,self ${UCX_LOG_LEVEL:+UCX_LOG_LEVEL=$UCX_LOG_LEVEL} \
		timeout -k 5 60 ucx_perftest -p $((port + 1)) "$@"
}
ucx >"$out/ucx.server" 2>&1 &
server=$!
sleep 1
# UCX's info log names the transport and device of the endpoint
UCX_LOG_LEVEL=info ucx -t tag_bw -n 10000 localhost >"$out/ucx.client" 2>&1 || {
	kill $server 2>/dev/null || true
	cat "$out/ucx.client"
	die "ucx_perftest client failed"
}
wait $server || { cat "$out/ucx.server"; die "ucx_perftest server failed"; }
grep -o 'ep_cfg.*' "$out/ucx.client" | grep mlx5_0:1 ||
	die "ucx_perftest did not run over the emulated device (output: $out/ucx.client)"
grep '^Final:' "$out/ucx.client" || die "ucx_perftest printed no result"

section "the way back: Debian's versions with apt install --allow-downgrades"
back=()
for p in $ours; do
	v=$(awk -v p="$p" '$1 == p { print $2 }' "$out/before.txt")
	# Debian's version where Debian had it installed, else purged
	if [ -n "$v" ]; then back+=("$p=$v"); else back+=("$p-"); fi
done
echo "apt-get install --allow-downgrades --purge ${back[*]}"
in_root apt-get install -y -qq --allow-downgrades --purge --no-install-recommends \
	"${back[@]}" >"$out/restore.log" 2>&1 || {
	tail -n 30 "$out/restore.log" >&2
	die "apt could not restore Debian's packages (log: $out/restore.log)"
}
in_root apt-get autoremove -y -qq >/dev/null
installed_versions >"$out/restored.txt"
join <(echo "$ours") "$out/restored.txt" | sed 's/^/  restored: /'
left=$(in_root dpkg-query -W -f '${Package} ${Version} ${db:Status-Abbrev}\n' |
	grep tdshare || true)
[ -z "$left" ] || die "still in dpkg's database after the restore: $left"
for f in /usr/lib/mlx5emu /usr/bin/mlx5emu /usr/bin/ib_write_mt; do
	[ ! -e "$root$f" ] || die "$f is still there after the restore"
done
missing=$(comm -23 "$out/before.txt" "$out/restored.txt")
[ -z "$missing" ] || die "not as before the install: $missing"
in_root ibv_devices >/dev/null 2>&1 || true
echo "Debian's packages are back, nothing of ours is left"

if [ "${CHECK_PACKAGES_LINTIAN:-1}" != 0 ]; then
	section "lintian, against Debian's own packages"
	"$here/lintian-compare.sh" "$out"
fi
