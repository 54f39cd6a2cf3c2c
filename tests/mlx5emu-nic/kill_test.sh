#!/bin/bash
# kill -9 both ends of a running exchange: nothing may remain (no process
# or thread, no fabric socket name, no file, no shared memory), and a new
# exchange on the same fabric must start cleanly.
#   kill_test.sh STAGE_BIN PORT
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
bin=$1 port=$2
export MLX5EMU_FABRIC=killtest.$$ # our own fabric, apart from other tests
# the launchers' private directories go here: it must end up empty
scratch_dir TMPDIR
export TMPDIR
tops=()
stop() {
	for p in "${tops[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
at_exit stop
shm_before=$(ls /dev/shm | sort)

pp="$bin/ibv_rc_pingpong -n 100000000 -p $port"
timeout -k 2 60 "$MLX5EMU" run -- $pp >/dev/null 2>&1 &
tops+=($!)
wait_listening "$port" "${tops[0]}" || true
timeout -k 2 60 "$MLX5EMU" run -- $pp localhost >/dev/null 2>&1 &
tops+=($!)
sleep 2

# timeout -> launcher -> the program (the launcher waits and cleans up)
apps=()
for t in "${tops[@]}"; do
	l=$(pgrep -P "$t") || die "launcher of $t gone early"
	a=$(pgrep -P "$l") || die "program of $t gone early"
	apps+=("$a")
done
sock="@mlx5emu\.$(id -u)\.${#MLX5EMU_FABRIC}\.$MLX5EMU_FABRIC\."
grep -q "$sock" <<<"$(ss -xl)" || die "no fabric socket while running"
echo "killing ${apps[*]} (threads: $(ls /proc/"${apps[0]}"/task | wc -l), $(ls /proc/"${apps[1]}"/task | wc -l))"
kill -9 "${apps[@]}"
for t in "${tops[@]}"; do wait "$t" || true; done
tops=()

for a in "${apps[@]}"; do
	[ ! -e /proc/"$a" ] || die "process $a (and its threads) still there"
done
! grep "$sock" <<<"$(ss -xa)" || die "fabric socket left"
[ -z "$(ls -A "$TMPDIR")" ] || die "files left: $(ls -A "$TMPDIR")"
[ "$(ls /dev/shm | sort)" = "$shm_before" ] || die "shared memory left"
echo "nothing left behind"

# a fresh exchange on the same fabric and port
pp="$bin/ibv_rc_pingpong -c -n 100 -p $port"
timeout -k 2 60 "$MLX5EMU" run -- $pp >/dev/null 2>&1 &
tops+=($!)
wait_listening "$port" "${tops[0]}" || true
timeout -k 2 60 "$MLX5EMU" run -- $pp localhost || die "new exchange"
wait "${tops[0]}" || die "new exchange, server"
tops=()
echo "new exchange passed"
