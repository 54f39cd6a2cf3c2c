#!/bin/bash
# Fabrics are private: a client in another fabric (MLX5EMU_FABRIC) cannot
# reach a server's QP even knowing its QPN; its first send fails with
# "transport retry counter exceeded" and the server's memory sees nothing.
#   isolation_test.sh MLX5EMU STAGE_BIN PORT
set -u
emu=$1 bin=$2 port=$3
out=${TMPDIR:-/tmp}/iso.$$
trap 'kill $srv 2>/dev/null; wait 2>/dev/null; rm -f "$out".*' EXIT

MLX5EMU_FABRIC=iso-a.$$ timeout -k 2 30 "$emu" run -- \
	"$bin/ibv_rc_pingpong" -n 5 -p "$port" >"$out".srv 2>&1 &
srv=$!
for i in $(seq 100); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
MLX5EMU_FABRIC=iso-b.$$ timeout -k 2 30 "$emu" run -- \
	"$bin/ibv_rc_pingpong" -n 5 -p "$port" localhost >"$out".cli 2>&1
rc=$?
cat "$out".cli
[ $rc -ne 0 ] || { echo "FAIL: the client reached another fabric"; exit 1; }
grep -q "transport retry counter exceeded" "$out".cli ||
	{ echo "FAIL: not a transport error"; exit 1; }
grep -q "iters" "$out".srv && { echo "FAIL: the server completed"; exit 1; }
echo "isolated"
