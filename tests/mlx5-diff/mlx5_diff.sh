#!/usr/bin/env bash
# The differential test of libmlx5's post and poll paths (issue 18): runs
# the capture program (mlx5_diff.c says what it prints) on the emulated
# device twice, on pristine rdma-core 65.0 and on the series, each in a
# fabric of its own, and requires the two captures byte for byte identical:
# what the NIC reads (WQEs, doorbell records, BlueFlame writes) and what
# the application gets from its CQs.
#
#   mlx5_diff.sh PROGRAM PRISTINE_LIBDIR [--flip N]
#
# --flip N is the self-check: the series' run corrupts one bit of its Nth
# send basic block, and the script passes only if the comparison catches
# exactly that line.
set -uo pipefail
prog=$1 pristine=$2 flip=
[ "${3:-}" = --flip ] && flip=${4:?--flip needs a basic block number}
emu=${MLX5EMU:?MLX5EMU: the mlx5emu launcher}
fabric=${MLX5EMU_FABRIC:-mlx5-diff}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# capture <name> <env...>: one run, its capture in $tmp/<name>
capture() {
	local name=$1
	shift
	if ! "$emu" run --fabric="$fabric-$name" -- env "$@" "$prog" \
		"$tmp/$name" 2>"$tmp/$name.err"; then
		echo "mlx5-diff: the $name run failed:" >&2
		cat "$tmp/$name.err" >&2
		exit 1
	fi
}

# compare <label> <env...>: the pristine and the series runs of one setting
# compared; prints what was compared, returns 1 if they differ
compare() {
	local label=$1 shapes posts completions bbs bfs rqs
	shift
	capture "pristine$label" LD_LIBRARY_PATH="$pristine" "$@"
	capture "series$label" ${flip:+MLX5_DIFF_FLIP=$flip} "$@"
	read -r _ shapes _ posts _ completions _ < <(tail -n 1 "$tmp/series$label")
	bbs=$(grep -c '^  sq\[' "$tmp/series$label")
	bfs=$(grep -c '^  bf' "$tmp/series$label")
	rqs=$(grep -c '^  rq\[' "$tmp/series$label")
	echo "mlx5-diff$label: $shapes shapes ($posts posts: $bbs send WQE" \
		"basic blocks, $bfs BlueFlame writes, $rqs receive WQEs)," \
		"$completions completions"
	diff "$tmp/pristine$label" "$tmp/series$label" >"$tmp/diff$label"
}

if [ -n "$flip" ]; then
	if compare ""; then
		echo "mlx5-diff: FAIL: a flipped bit in basic block $flip went unnoticed"
		exit 1
	fi
	# one changed line, a send basic block, nothing else
	if [ "$(grep -c '^[<>]' "$tmp/diff")" = 2 ] &&
		[ "$(grep -c '^[<>]   sq\[' "$tmp/diff")" = 2 ]; then
		echo "mlx5-diff: the flipped bit in basic block $flip was caught:"
		cat "$tmp/diff"
		exit 0
	fi
	echo "mlx5-diff: FAIL: the flipped bit gave another difference:"
	head -n 20 "$tmp/diff"
	exit 1
fi

status=0
# as the application asks; then every QP and CQ lock-free by the
# environment (MLX5_SINGLE_THREADED), the other way to a single thread
for setting in "" "-single-threaded MLX5_SINGLE_THREADED=1"; do
	read -r label env <<<"$setting"
	if compare "$label" $env; then
		echo "mlx5-diff$label: pristine 65.0 and the series identical"
	else
		echo "mlx5-diff$label: FAIL: pristine 65.0 (<) and the series (>) differ; first differences:"
		head -n 40 "$tmp/diff$label"
		status=1
	fi
done
exit $status
