#!/usr/bin/env bash
# The seeded differential test at length (issue 33), not part of make check:
# SEEDS seeds from FIRST, COUNT random sequences each, every one compared
# as mlx5_diff.sh --random compares them: 65.0 and the series as the
# application asks (MLX5_DIFF_QUICK=0: also single-threaded and at one TD
# sharing level, about twice the time). Stops at the first seed that
# differs and prints the command that reproduces it.
#
#   tests/mlx5-diff/soak.sh [BUILD_DIR [FIRST [SEEDS [COUNT]]]]
#
# Defaults: build, seed 1000, 100 seeds, 1000 sequences: 10^5 sequences.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
first=${2:-1000} seeds=${3:-100} count=${4:-1000}
prog=$build/tests/mlx5-diff/mlx5_diff
pristine=$build/pristine/build/lib
export MLX5EMU=${MLX5EMU:-$build/stage/bin/mlx5emu}
export MLX5EMU_FABRIC=${MLX5EMU_FABRIC:-mlx5-diff-soak}
[ -x "$prog" ] && [ -d "$pristine" ] && [ -x "$MLX5EMU" ] || {
	echo "soak: build the tree first (make): $prog, $pristine, $MLX5EMU" >&2
	exit 2
}
start=$(date +%s)
for ((seed = first; seed < first + seeds; seed++)); do
	cmd="$here/mlx5_diff.sh $prog $pristine --random $seed $count"
	if ! out=$(MLX5_DIFF_QUICK=${MLX5_DIFF_QUICK:-1} $cmd 2>&1); then
		echo "$out"
		echo "soak: FAIL at seed $seed; reproduce with:"
		echo "  MLX5EMU=$MLX5EMU MLX5_DIFF_QUICK=${MLX5_DIFF_QUICK:-1} $cmd"
		exit 1
	fi
done
echo "soak: $seeds seeds from $first, $((seeds * count)) sequences," \
	"compared: no difference ($(($(date +%s) - start)) s)"
echo "soak: command: $0 $build $first $seeds $count"
