#!/bin/bash
# mlx5emu run --fabric=NAME: a name longer than the fabric's sockets can
# carry is refused with a message; the longest allowed one works.
#
#   fabric_name_launcher_test.sh MLX5EMU IBV_DEVINFO
set -u
emu=$1 devinfo=$2
long=$(printf 'f%.0s' $(seq 88))
max=$(printf 'f%.0s' $(seq 64))

err=$("$emu" run --fabric="$long" -- true 2>&1)
rc=$?
echo "88 characters: exit $rc: $err"
[ $rc -ne 0 ] || exit 1
grep -q -- "--fabric wants 1..64 characters" <<<"$err" || exit 1

"$emu" run --fabric="$max" -- "$devinfo" -d mlx5_0 >/dev/null || {
	echo "64 characters: ibv_devinfo failed"
	exit 1
}
# a name the library gets by inheritance: ignored, with a message
err=$(MLX5EMU_FABRIC="$long" "$emu" run -- "$devinfo" -d mlx5_0 2>&1 >/dev/null)
rc=$?
echo "inherited 88 characters: exit $rc: $err"
[ $rc -eq 0 ] && grep -q "ignoring MLX5EMU_FABRIC" <<<"$err"
