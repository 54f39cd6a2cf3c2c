#!/bin/bash
# libfabric's RDM over UD (verbs;ofi_rxd) run after run on the emulated
# device (issue 23): fi_pingpong server and client, ROUNDS times in a row,
# both must exit 0. Each round is traced (--trace) and its datagrams
# checked with ud_trace_check.sh: a round that fails or hangs keeps its
# trace and output in KEEP_DIR, with the verdict on every datagram.
# Too slow for `make check` (about 3 s a round); run it by hand, in a
# network namespace of its own if other tests run:
#
#   unshare -n bash -c 'ip link set lo up &&
#     mlx5emu/bench/fi_pingpong_rxd_soak.sh build/stage/bin/mlx5emu 30 19100'
#
#   fi_pingpong_rxd_soak.sh MLX5EMU ROUNDS PORT [KEEP_DIR]
#
# The staged libraries are used (LD_LIBRARY_PATH next to MLX5EMU). Prints
# a line per round and "N of ROUNDS rounds passed"; exit 1 if one failed.
set -euo pipefail
[ $# -ge 3 ] || {
	sed -n '2,17p' "$0" >&2
	exit 2
}
emu=$(realpath "$1")
rounds=$2 port=$3
keep=${4:-$(mktemp -d /tmp/fi-rxd-soak.XXXXXX)}
here=$(dirname "$(realpath "$0")")
mkdir -p "$keep"
LD_LIBRARY_PATH=$(dirname "$(dirname "$emu")")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
export MLX5EMU_FABRIC=${MLX5EMU_FABRIC:-fi-rxd-soak-$$}
pp=(fi_pingpong -p "verbs;ofi_rxd" -e rdm -c -I 100 -S 64)
passed=0
for r in $(seq 1 "$rounds"); do
	dir=$keep/round-$r
	mkdir -p "$dir"
	run=("$emu" run --trace="$dir/trace" --stat-dir="$dir/stat" --)
	timeout -k 2 60 "${run[@]}" "${pp[@]}" -B "$port" >"$dir/srv" 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		[ -n "$(ss -ltnH "sport = :$port" 2>/dev/null)" ] && break
		kill -0 $srv 2>/dev/null || break
		sleep 0.1
	done
	crc=0 src=0
	timeout -k 2 60 "${run[@]}" "${pp[@]}" -P "$port" localhost \
		>"$dir/cli" 2>&1 || crc=$?
	wait $srv || src=$?
	check=0
	"$here/ud_trace_check.sh" "$dir/trace" >"$dir/datagrams" 2>&1 ||
		check=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ]; then
		passed=$((passed + 1))
		echo "round $r: passed ($(sort "$dir/datagrams" | tr '\n' ' '))"
		# a trace with a datagram to explain is kept
		[ $check -ne 0 ] || rm -rf "$dir"
	else
		echo "round $r: client $crc, server $src; kept in $dir:"
		sed 's/^/    /' "$dir/datagrams"
	fi
	port=$((port + 1))
done
echo "$passed of $rounds rounds passed"
[ "$passed" -eq "$rounds" ] || exit 1
rmdir "$keep" 2>/dev/null || true
