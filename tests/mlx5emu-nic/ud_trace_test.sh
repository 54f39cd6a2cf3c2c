#!/bin/bash
# --trace follows every UD datagram across processes: ibv_ud_pingpong's
# server and client, one trace file; every datagram sent has exactly one
# fate, in order (mlx5emu/bench/ud_trace_check.sh), all of them delivered,
# and `mlx5emu stat` counts as many.
#
#   ud_trace_test.sh STAGE_BIN PORT
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
bin=$1 port=$2 n=50
check=$(dirname "$0")/../../mlx5emu/bench/ud_trace_check.sh
scratch_dir dir
"$(dirname "$0")/pair_test.sh" "$port" \
	"$bin/ibv_ud_pingpong -n $n -p @PORT@" \
	"$bin/ibv_ud_pingpong -n $n -p @PORT@ localhost" \
	--trace="$dir/trace" --stat-dir="$dir/stat" >"$dir/pair" 2>&1 ||
	die "ibv_ud_pingpong failed: $(cat "$dir/pair")"
"$check" "$dir/trace" >"$dir/fates" || die "$(cat "$dir/fates")"
# each side receives n (ibv_ud_pingpong's exchange), nothing is lost
[ "$(cat "$dir/fates")" = "delivered $((2 * n))" ] ||
	die "fates: $(cat "$dir/fates")"
delivered=$("$MLX5EMU" stat --dir="$dir/stat" --json |
	grep -o '"delivered":[0-9]*' | awk -F: '{ n += $2 } END { print n }')
[ "$delivered" = $((2 * n)) ] || die "stat counts $delivered delivered"
# a sent line and a fate line name the same datagram
grep -q "ud sent src_qpn=0x[0-9a-f]* slid=1 dlid=1 dest_qpn=0x[0-9a-f]* psn=[0-9]* len=" "$dir/trace" ||
	die "no sent line: $(head "$dir/trace")"
echo "ok: $(cat "$dir/fates")"
