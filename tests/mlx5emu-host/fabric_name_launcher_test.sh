#!/bin/bash
# mlx5emu run --fabric=NAME: a name longer than the fabric's sockets can
# carry is refused with a message; the longest allowed one works.
#
#   fabric_name_launcher_test.sh IBV_DEVINFO      ($MLX5EMU: the launcher)
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
devinfo=$1
long=$(printf 'f%.0s' $(seq 88))
max=$(printf 'f%.0s' $(seq 64))

rc=0
err=$("$MLX5EMU" run --fabric="$long" -- true 2>&1) || rc=$?
echo "88 characters: exit $rc: $err"
[ $rc -ne 0 ] || die "an 88-character fabric name was taken"
grep -q -- "--fabric wants 1..64 characters" <<<"$err" ||
	die "no message for an 88-character fabric name"

"$MLX5EMU" run --fabric="$max" -- "$devinfo" -d mlx5_0 >/dev/null ||
	die "64 characters: ibv_devinfo failed"

# a name the library gets by inheritance: ignored, with a message
rc=0
err=$(MLX5EMU_FABRIC="$long" "$MLX5EMU" run -- "$devinfo" -d mlx5_0 2>&1 >/dev/null) ||
	rc=$?
echo "inherited 88 characters: exit $rc: $err"
[ $rc -eq 0 ] || die "an inherited long name made ibv_devinfo fail"
grep -q "ignoring MLX5EMU_FABRIC" <<<"$err" || die "no word of the ignored name"
