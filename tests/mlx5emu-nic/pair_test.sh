#!/bin/bash
# Run a server and a client, each under its own `$MLX5EMU run` (two
# independent processes on one emulated device), and require both to pass.
#
#   pair_test.sh PORT 'SERVER CMD' 'CLIENT CMD' [LAUNCHER OPTION...]
#
# PORT replaces @PORT@ in both commands. The server gets a hard timeout and
# is killed when this script exits, so it cannot outlive a failed client.
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
port=$1 server=${2//@PORT@/$port} client=${3//@PORT@/$port}
shift 3
opts=("$@")
limit=${PAIR_TIMEOUT:-60}
scratch_dir dir

# shellcheck disable=SC2086
timeout -k 2 "$limit" "$MLX5EMU" run "${opts[@]}" -- $server >"$dir/srv" 2>&1 &
srv=$!
at_exit "kill $srv 2>/dev/null"

# the server listens once its device is open; a client that finds nothing
# listening fails, and both ends' output says why
wait_listening "$port" $srv || true
crc=0
# shellcheck disable=SC2086
timeout -k 2 "$limit" "$MLX5EMU" run "${opts[@]}" -- $client || crc=$?
src=0
wait $srv || src=$?
echo "--- server (exit $src):"
cat "$dir/srv"
echo "--- client exit $crc"
[ $crc -eq 0 ] && [ $src -eq 0 ]
