#!/bin/bash
# Run a server and a client, each under its own `mlx5emu run` (two
# independent processes on one emulated device), and require both to pass.
#
#   pair_test.sh MLX5EMU PORT 'SERVER CMD' 'CLIENT CMD' [LAUNCHER OPTION...]
#
# PORT replaces @PORT@ in both commands. The server gets a hard timeout and
# is killed when this script exits, so it cannot outlive a failed client.
set -u
emu=$1 port=$2 server=${3//@PORT@/$port} client=${4//@PORT@/$port}
shift 4
opts=("$@")
limit=${PAIR_TIMEOUT:-60}

# shellcheck disable=SC2086
timeout -k 2 "$limit" "$emu" run "${opts[@]}" -- $server >"${TMPDIR:-/tmp}/pair.$$.srv" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -f "${TMPDIR:-/tmp}/pair.$$.srv"' EXIT

# the server listens once its device is open; retry refused connects
for i in $(seq 100); do
	ss -ltn 2>/dev/null | grep -q ":$port " && break
	kill -0 $srv 2>/dev/null || break
	sleep 0.1
done
# shellcheck disable=SC2086
timeout -k 2 "$limit" "$emu" run "${opts[@]}" -- $client
crc=$?
wait $srv
src=$?
echo "--- server (exit $src):"
cat "${TMPDIR:-/tmp}/pair.$$.srv"
echo "--- client exit $crc"
[ $crc -eq 0 ] && [ $src -eq 0 ]
