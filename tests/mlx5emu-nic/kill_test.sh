#!/bin/bash
# kill -9 both ends of a running exchange: nothing may remain (no process
# or thread, no fabric socket name, no file, no shared memory), and a new
# exchange on the same fabric must start cleanly.
#   kill_test.sh MLX5EMU STAGE_BIN PORT
set -u
emu=$1 bin=$2 port=$3
export MLX5EMU_FABRIC=killtest.$$ # our own fabric, apart from other tests
export TMPDIR
TMPDIR=$(mktemp -d)
tops=()
cleanup() {
	for p in "${tops[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMPDIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
shm_before=$(ls /dev/shm | sort)

pp="$bin/ibv_rc_pingpong -n 100000000 -p $port"
timeout -k 2 60 "$emu" run -- $pp >/dev/null 2>&1 &
tops+=($!)
for i in $(seq 100); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
timeout -k 2 60 "$emu" run -- $pp localhost >/dev/null 2>&1 &
tops+=($!)
sleep 2

# timeout -> launcher -> the program (the launcher waits and cleans up)
apps=()
for t in "${tops[@]}"; do
	l=$(pgrep -P "$t") || fail "launcher of $t gone early"
	a=$(pgrep -P "$l") || fail "program of $t gone early"
	apps+=("$a")
done
ss -xl | grep -q "@mlx5emu\.$(id -u)\.${#MLX5EMU_FABRIC}\.$MLX5EMU_FABRIC\." ||
	fail "no fabric socket while running"
echo "killing ${apps[*]} (threads: $(ls /proc/"${apps[0]}"/task | wc -l), $(ls /proc/"${apps[1]}"/task | wc -l))"
kill -9 "${apps[@]}"
for t in "${tops[@]}"; do wait "$t"; done
tops=()

for a in "${apps[@]}"; do
	[ -e /proc/"$a" ] && fail "process $a (and its threads) still there"
done
ss -xa | grep "@mlx5emu\.$(id -u)\.${#MLX5EMU_FABRIC}\.$MLX5EMU_FABRIC\." && fail "fabric socket left"
[ -z "$(ls -A "$TMPDIR")" ] || fail "files left: $(ls -A "$TMPDIR")"
[ "$(ls /dev/shm | sort)" = "$shm_before" ] || fail "shared memory left"
echo "nothing left behind"

# a fresh exchange on the same fabric and port
pp="$bin/ibv_rc_pingpong -c -n 100 -p $port"
timeout -k 2 60 "$emu" run -- $pp >/dev/null 2>&1 &
tops+=($!)
for i in $(seq 100); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
timeout -k 2 60 "$emu" run -- $pp localhost || fail "new exchange"
wait "${tops[0]}" || fail "new exchange, server"
tops=()
echo "new exchange passed"
