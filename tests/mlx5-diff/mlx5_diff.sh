#!/usr/bin/env bash
# The differential test of libmlx5's post and poll paths (issue 18): runs
# the capture program (mlx5_diff.c says what it prints) on the emulated
# device twice, on pristine rdma-core 65.0 and on the series, each in a
# fabric of its own, and requires the two captures byte for byte identical:
# what the NIC reads (WQEs, doorbell records, BlueFlame writes) and what
# the application gets from its CQs.
#
#   mlx5_diff.sh PROGRAM PRISTINE_LIBDIR [--flip N | --flip-wc N |
#                                         --random SEED COUNT]
#
# Besides as the application asks, it compares them with
# MLX5_SINGLE_THREADED=1, and 65.0's TDs with the series' at each sharing
# level (which the program asks for with MLX5_DIFF_TD_SHARING).
# MLX5_DIFF_SERIES_LIB=DIR runs the series' side on the libraries in DIR
# (another build of the series, e.g. a work in progress) instead of the
# ones the program was linked against.
# --flip N is the self-check: the series' run corrupts one bit of its Nth
# send basic block (--flip-wc N: of its Nth completion), and the script
# passes only if the comparison catches exactly that line.
# --random SEED COUNT compares COUNT seeded random sequences (random.c)
# instead of the matrix: as the application asks, single-threaded, and the
# series' TDs at one sharing level (1 + SEED % 3); with MLX5_DIFF_QUICK=1
# only as the application asks (soak.sh).
set -uo pipefail
prog=$1 pristine=$2 flip='' flip_env='' flip_line='' random=''
case ${3:-} in
--random)
	random=MLX5_DIFF_RANDOM=${4:?--random needs a seed}:${5:?and a count}
	;;
--flip)
	flip=${4:?--flip needs a basic block number}
	flip_env=MLX5_DIFF_FLIP=$flip flip_line='  sq\['
	;;
--flip-wc)
	flip=${4:?--flip-wc needs a completion number}
	flip_env=MLX5_DIFF_FLIP_WC=$flip flip_line='  wcx? '
	;;
esac
emu=${MLX5EMU:?MLX5EMU: the mlx5emu launcher}
fabric=${MLX5EMU_FABRIC:-mlx5-diff}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

series_lib=()
[ -n "${MLX5_DIFF_SERIES_LIB:-}" ] &&
	series_lib=(LD_LIBRARY_PATH="$MLX5_DIFF_SERIES_LIB")

# capture <name> <env...>: one run, its capture in $tmp/<name>; the
# series' runs on MLX5_DIFF_SERIES_LIB if given (a later LD_LIBRARY_PATH
# in <env...>, pristine's, wins)
capture() {
	local name=$1
	shift
	if ! "$emu" run --fabric="$fabric-$name" -- \
		env "${series_lib[@]}" $random "$@" "$prog" "$tmp/$name" \
		2>"$tmp/$name.err"; then
		echo "mlx5-diff: the $name run failed:" >&2
		cat "$tmp/$name.err" >&2
		exit 1
	fi
}

# check <pristine capture> <series capture>: prints what was compared,
# leaves the differences in $tmp/<series capture>.diff, returns 1 if any
check() {
	local shapes posts completions bbs bfs rqs
	read -r _ shapes _ posts _ completions _ < <(tail -n 1 "$tmp/$2")
	bbs=$(grep -c '^  sq\[' "$tmp/$2")
	bfs=$(grep -c '^  bf' "$tmp/$2")
	rqs=$(grep -c '^  rq\[' "$tmp/$2")
	echo "mlx5-diff: $1 vs $2: $shapes shapes ($posts posts: $bbs send" \
		"WQE basic blocks, $bfs BlueFlame writes, $rqs receive WQEs)," \
		"$completions completions"
	diff "$tmp/$1" "$tmp/$2" >"$tmp/$2.diff"
}

capture pristine LD_LIBRARY_PATH="$pristine"
if [ -n "$flip" ]; then
	capture series "$flip_env"
	if check pristine series; then
		echo "mlx5-diff: FAIL: a flipped bit ($flip_env) went unnoticed"
		exit 1
	fi
	# one changed line, of the kind flipped, nothing else
	if [ "$(grep -c '^[<>]' "$tmp/series.diff")" = 2 ] &&
		[ "$(grep -cE "^[<>] $flip_line" "$tmp/series.diff")" = 2 ]; then
		echo "mlx5-diff: the flipped bit ($flip_env) was caught:"
		cat "$tmp/series.diff"
		exit 0
	fi
	echo "mlx5-diff: FAIL: the flipped bit gave another difference:"
	head -n 20 "$tmp/series.diff"
	exit 1
fi

# The settings: as the application asks; every QP and CQ lock-free by the
# environment (MLX5_SINGLE_THREADED), the other way to a single thread;
# and the series' TDs at each sharing level, against 65.0's one placement.
capture series
pairs=pristine:series levels=''
if [ "${MLX5_DIFF_QUICK:-0}" != 1 ]; then
	capture pristine-single-threaded LD_LIBRARY_PATH="$pristine" \
		MLX5_SINGLE_THREADED=1
	capture series-single-threaded MLX5_SINGLE_THREADED=1
	pairs="$pairs pristine-single-threaded:series-single-threaded"
	levels="1 2 3"
	[ -n "$random" ] && levels=$((1 + ${4} % 3))
fi
for level in $levels; do
	capture "series-td-sharing-$level" MLX5_DIFF_TD_SHARING=$level
	pairs="$pairs pristine:series-td-sharing-$level"
done
status=0
for pair in $pairs; do
	if check "${pair%%:*}" "${pair#*:}"; then
		echo "mlx5-diff: identical"
	else
		echo "mlx5-diff: FAIL: they differ (<: 65.0, >: the series); first differences:"
		head -n 40 "$tmp/${pair#*:}.diff"
		status=1
	fi
done
exit $status
