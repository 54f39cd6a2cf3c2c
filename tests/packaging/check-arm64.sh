#!/usr/bin/env bash
# check-arm64.sh OUT [ARCH]: the cross-built packages of OUT/ARCH
# (build-deb-cross.sh) run under Debian's qemu-user-static in the cross
# root: ibv_devinfo and an ibv_rc_pingpong pair, ARCH programs with the
# ARCH libibverbs, libmlx5 and mlx5emu, on the emulated device.
#
# Without binfmt_misc (none here) the kernel cannot run an ARCH program by
# itself: each is started as qemu-ARCH-static PROGRAM. The ARCH launcher
# execs the (native, static) qemu, which runs the ARCH program with the
# launcher's environment, so LD_PRELOAD names the ARCH libmlx5emu.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
out=$(realpath "${1:?usage: check-arm64.sh OUT [ARCH]}")
host=${2:-arm64}
top=$(cd "$here/../.." && pwd)
. "$top/cmake/apt-sources.sh"
. "$top/cmake/suite-root.sh"
. "$top/cmake/cross-root.sh"
root=$out/$host-check-root
fabric=check-arm64-$$
qemu=/usr/bin/qemu-$(case $host in arm64) echo aarch64 ;; *) echo "$host" ;; esac)-static

dsc=$(ls "$out"/rdma-core_*.dsc 2>/dev/null | head -n1)
[ -f "$dsc" ] || die "no source package in $out: run make deb"
ls "$out/$host"/libibverbs1_*.deb >/dev/null 2>&1 || die "no $host packages in $out/$host (build-deb-cross.sh)"
at_exit 'root_close "$root"'
cross_root_open "$root" "$host" "$dsc"
for p in libibverbs1 ibverbs-providers ibverbs-utils mlx5emu; do
	dpkg-deb -x "$(ls "$out/$host/${p}"_*.deb)" "$root/"
done
in_root "$root" ldconfig
emu() {
	in_root "$root" "$qemu" /usr/bin/mlx5emu run --fabric="$fabric" -- "$qemu" "$@"
}
echo "=== $host: ibv_devinfo ($(file -b "$root/usr/bin/ibv_devinfo" | cut -d, -f1-2))"
emu /usr/bin/ibv_devinfo >"$out/$host/ibv_devinfo.txt" 2>&1 || {
	cat "$out/$host/ibv_devinfo.txt"
	die "ibv_devinfo under $qemu failed"
}
head -n 12 "$out/$host/ibv_devinfo.txt"
grep -q 'hca_id:.*mlx5_0' "$out/$host/ibv_devinfo.txt" || die "ibv_devinfo saw no mlx5_0"

echo "=== $host: ibv_rc_pingpong on the emulated device"
port=$((21000 + $$ % 10000))
emu /usr/bin/ibv_rc_pingpong -d mlx5_0 -p $port -n 200 >"$out/$host/pingpong.server" 2>&1 &
server=$!
sleep 2
emu /usr/bin/ibv_rc_pingpong -d mlx5_0 -p $port -n 200 localhost >"$out/$host/pingpong.client" 2>&1 || {
	kill $server 2>/dev/null || true
	cat "$out/$host/pingpong.client"
	die "ibv_rc_pingpong client under $qemu failed"
}
wait $server || { cat "$out/$host/pingpong.server"; die "ibv_rc_pingpong server under $qemu failed"; }
grep 'iters in' "$out/$host/pingpong.client"
echo "$host: ibv_devinfo and ibv_rc_pingpong ran under qemu on the emulated device"
