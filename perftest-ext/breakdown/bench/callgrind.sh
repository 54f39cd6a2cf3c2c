#!/usr/bin/env bash
# Instructions per operation of the post and poll paths, patched library
# against pristine rdma-core 65.0, both built by the superbuild, and, given
# BEFORE_LIB, against the queue before a change (build_queue_lib.sh builds
# one: `build_queue_lib.sh main build/queue-main`). A benchmark (no
# pass/fail): it prints its rows and the command that reproduces them.
#
#   perftest-ext/breakdown/bench/callgrind.sh [BUILD_DIR] [BATCHES] [BEFORE_LIB]
#
# callgrind counts only inside bd_bench_region() (--toggle-collect) and the
# figures are the self cost of libibverbs + libmlx5 there, per operation;
# for the raw mlx5dv path, which uses no library, the tool's own code. The
# "+libc" column adds what the libraries call in libc (e.g. spinlocks).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
batches=${2:-20}
before=${3:+$(cd "$3" && pwd)}
batch=128
ops=$build/perftest-ext/breakdown/bench/callgrind_ops
emu=$build/stage/bin/mlx5emu
pristine=$build/pristine/build/lib
for f in "$ops" "$emu" "$pristine/libibverbs.so.1" \
	${before:+"$before/libibverbs.so.1"}; do
	[ -e "$f" ] || { echo "callgrind.sh: $f missing: run make first" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count <library: patched|before|pristine> <path>
#   ->  "<library Ir> <+libc Ir> <own Ir>" per op
count() {
	local lib=$1 path=$2 out=$tmp/$1-$2.out env=()
	[ "$lib" = pristine ] && env=(LD_LIBRARY_PATH="$pristine")
	[ "$lib" = before ] && env=(LD_LIBRARY_PATH="$before")
	"$emu" run -- env "${env[@]}" valgrind --tool=callgrind -q \
		--toggle-collect=bd_bench_region --callgrind-out-file="$out" \
		"$ops" "$path" "$batches" >/dev/null
	python3 "$here/callgrind_objects.py" "$out" | awk -v n=$((batches * batch)) '
		$2 ~ /libibverbs\.so|libmlx5[.-]/ { lib += $1 }
		$2 ~ /libc\.so|libc-/ { libc += $1 }
		$2 ~ /callgrind_ops$/ { own += $1 }
		END { printf "%.1f %.1f %.1f\n", lib / n, (lib + libc) / n, own / n }'
}

printf '%-36s %9s %9s %9s %7s %11s %11s\n' "instructions per operation" \
	"patched" "before" "65.0" "ratio" "+libc patch" "+libc 65.0"
for path in raw-post wr-td wr-plain post-send-td post-send-plain \
	post-list-td post-list-plain poll-raw poll-td poll-plain ext-poll-td; do
	read -r pl pc po < <(count patched "$path")
	bl=- bo=0
	[ -n "$before" ] && read -r bl _ bo < <(count before "$path")
	read -r ql qc qo < <(count pristine "$path")
	case $path in
	raw-post) label="raw mlx5dv post (own code, floor)" ;;
	poll-raw) label="raw CQ poll (own code, floor)" ;;
	wr-td) label="ibv_wr_* 8B inline write, TD QP" ;;
	wr-plain) label="ibv_wr_* 8B inline write, plain QP" ;;
	post-send-td) label="ibv_post_send 8B inline, TD QP" ;;
	post-send-plain) label="ibv_post_send 8B inline, plain QP" ;;
	post-list-td) label="ibv_post_send list of 32, TD, per WR" ;;
	post-list-plain) label="ibv_post_send list of 32, plain, /WR" ;;
	poll-td) label="ibv_poll_cq per completion, TD CQ" ;;
	poll-plain) label="ibv_poll_cq per completion, plain CQ" ;;
	ext-poll-td) label="ibv_start/end_poll per CQE, TD CQ" ;;
	esac
	if [ "$path" = raw-post ] || [ "$path" = poll-raw ]; then
		pl=$po ql=$qo pc=$po qc=$qo
		[ -n "$before" ] && bl=$bo
	fi
	awk -v l="$label" -v p="$pl" -v b="$bl" -v q="$ql" -v pc="$pc" \
		-v qc="$qc" 'BEGIN {
		printf "%-36s %9.1f %9s %9.1f %7.3f %11.1f %11.1f\n", l, p,
			(b == "-" ? "-" : sprintf("%.1f", b)), q,
			(q > 0 ? p / q : 0), pc, qc }'
done
echo "($((batches * batch)) operations per row, 8-byte inline RDMA WRITEs, one signaled in 16;"
echo " ratio = patched / pristine 65.0; library = libibverbs + libmlx5 self cost;"
echo " before = the queue at BEFORE_LIB${before:+: $before})"
echo "reproduce: $0 $build $batches${before:+ $before}"
