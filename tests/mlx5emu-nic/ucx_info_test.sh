#!/bin/bash
# `ucx_info -d` under the emulator lists mlx5_0 with UCX's verbs and mlx5
# (direct-verbs) transports, RC and UD, with UCX's default settings.
#   ucx_info_test.sh MLX5EMU [LAUNCHER OPTS]
set -u
emu=$1 opts=${2:-}
# shellcheck disable=SC2086
out=$(timeout -k 2 60 "$emu" run $opts -- ucx_info -d 2>&1)
fail=0
for tl in rc_verbs rc_mlx5 ud_verbs ud_mlx5; do
	if echo "$out" | grep -A1 "Transport: $tl\$" | grep -q "Device: mlx5_0:1"; then
		echo "$tl on mlx5_0:1"
	else
		echo "FAIL: no $tl on mlx5_0:1"
		fail=1
	fi
done
[ $fail -eq 0 ] || echo "$out"
exit $fail
