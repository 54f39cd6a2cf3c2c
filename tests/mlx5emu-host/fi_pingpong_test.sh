#!/bin/bash
# libfabric's RDM over UD (verbs;ofi_rxd) on the emulated device: both
# sides of fi_pingpong must report and exit, ROUNDS times. Each side acks
# the other's last message just before it closes its endpoint; a lost ack
# leaves the other side retransmitting for ever.
#
#   fi_pingpong_test.sh PORT ROUNDS     (ports PORT..PORT+ROUNDS-1)
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
port=$1 rounds=$2
scratch_dir out
pp=(fi_pingpong -p "verbs;ofi_rxd" -e rdm -c -I 100 -S 64)
fail=0
for r in $(seq 0 $((rounds - 1))); do
	p=$((port + r))
	timeout -k 2 60 "$MLX5EMU" run -- "${pp[@]}" -B "$p" >"$out/srv" 2>&1 &
	srv=$!
	wait_listening "$p" "$srv" || true
	crc=0 src=0
	timeout -k 2 60 "$MLX5EMU" run -- "${pp[@]}" -P "$p" localhost \
		>"$out/cli" 2>&1 || crc=$?
	wait $srv || src=$?
	echo "round $r: client $crc, server $src"
	if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
		cat "$out/cli" "$out/srv"
		fail=1
	fi
done
[ $fail -eq 0 ] || die "a round of fi_pingpong failed"
