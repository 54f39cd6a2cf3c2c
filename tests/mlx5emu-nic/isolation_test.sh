#!/bin/bash
# Fabrics are private: a client in another fabric (MLX5EMU_FABRIC) cannot
# reach a server's QP even knowing its QPN; its first send fails with
# "transport retry counter exceeded" and the server's memory sees nothing.
#   isolation_test.sh STAGE_BIN PORT
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
bin=$1 port=$2
scratch_dir dir

MLX5EMU_FABRIC=iso-a.$$ timeout -k 2 30 "$MLX5EMU" run -- \
	"$bin/ibv_rc_pingpong" -n 5 -p "$port" >"$dir/srv" 2>&1 &
srv=$!
at_exit "kill $srv 2>/dev/null; wait 2>/dev/null"
wait_listening "$port" $srv || true
rc=0
MLX5EMU_FABRIC=iso-b.$$ timeout -k 2 30 "$MLX5EMU" run -- \
	"$bin/ibv_rc_pingpong" -n 5 -p "$port" localhost >"$dir/cli" 2>&1 || rc=$?
cat "$dir/cli"
[ $rc -ne 0 ] || die "the client reached another fabric"
grep -q "transport retry counter exceeded" "$dir/cli" || die "not a transport error"
! grep -q "iters" "$dir/srv" || die "the server completed"
echo "isolated"
