#!/bin/bash
# `ucx_info -d` under the emulator lists mlx5_0 with UCX's verbs and mlx5
# (direct-verbs) transports, RC and UD, with UCX's default settings.
#   ucx_info_test.sh [LAUNCHER OPTS]
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
opts=${1:-}
# shellcheck disable=SC2086
out=$(timeout -k 2 60 "$MLX5EMU" run $opts -- ucx_info -d 2>&1) || true
fail=0
for tl in rc_verbs rc_mlx5 ud_verbs ud_mlx5; do
	entry=$(grep -A1 "Transport: $tl\$" <<<"$out") || true
	if grep -q "Device: mlx5_0:1" <<<"$entry"; then
		echo "$tl on mlx5_0:1"
	else
		echo "FAIL: no $tl on mlx5_0:1"
		fail=1
	fi
done
[ $fail -eq 0 ] || echo "$out"
exit $fail
