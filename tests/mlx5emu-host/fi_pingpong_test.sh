#!/bin/bash
# libfabric's RDM over UD (verbs;ofi_rxd) on the emulated device: both
# sides of fi_pingpong must report and exit, ROUNDS times. Each side acks
# the other's last message just before it closes its endpoint; a lost ack
# leaves the other side retransmitting for ever.
#
#   fi_pingpong_test.sh MLX5EMU PORT ROUNDS
set -u
emu=$1 port=$2 rounds=$3
out=${TMPDIR:-/tmp}/fipp.$$
pp=(fi_pingpong -p "verbs;ofi_rxd" -e rdm -c -I 100 -S 64)
trap 'rm -f "$out".*' EXIT
fail=0
for r in $(seq "$rounds"); do
	p=$((port + r))
	timeout -k 2 60 "$emu" run -- "${pp[@]}" -B "$p" >"$out.srv" 2>&1 &
	srv=$!
	for i in $(seq 100); do
		ss -ltn 2>/dev/null | grep -q ":$p " && break
		sleep 0.1
	done
	timeout -k 2 60 "$emu" run -- "${pp[@]}" -P "$p" localhost >"$out.cli" 2>&1
	crc=$?
	wait $srv
	src=$?
	echo "round $r: client $crc, server $src"
	if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
		cat "$out.cli" "$out.srv"
		fail=1
	fi
done
exit $fail
