#!/bin/bash
# Another user cannot talk to our fabric: a process of uid 65534 that
# connects to a server's fabric socket is hung up on at once
# (SO_PEERCRED), while a process of the same user stays connected.
# Needs root (to become the other user); skipped otherwise.
#   isolation_user_test.sh MLX5EMU STAGE_BIN PORT
set -u
emu=$1 bin=$2 port=$3
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || { echo "skipped: needs root"; exit 77; }
export MLX5EMU_FABRIC=isouser.$$
trap 'kill $srv 2>/dev/null; wait 2>/dev/null' EXIT
timeout -k 2 30 "$emu" run -- "$bin/ibv_rc_pingpong" -n 5 -p "$port" >/dev/null 2>&1 &
srv=$!
name=
for i in $(seq 100); do
	name=$(ss -xlH 2>/dev/null | grep -oE "@mlx5emu\.0\.${#MLX5EMU_FABRIC}\.$MLX5EMU_FABRIC\.[0-9]+" | head -1)
	[ -n "$name" ] && break
	sleep 0.1
done
[ -n "$name" ] || { echo "FAIL: no fabric socket"; exit 1; }
probe='
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("\0" + sys.argv[1][1:])
s.settimeout(2)
try:
    print("closed" if s.recv(1) == b"" else "data")
except socket.timeout:
    print("open")
'
same=$(/usr/bin/python3 -c "$probe" "$name")
other=$(setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c "$probe" "$name")
echo "same user: $same, uid 65534: $other"
[ "$same" = open ] && [ "$other" = closed ]
