#!/bin/bash
# Another user cannot talk to our fabric: a process of uid 65534 that
# connects to a server's fabric socket is hung up on at once
# (SO_PEERCRED), while a process of the same user stays connected.
# Needs root (to become the other user); skipped otherwise.
#   isolation_user_test.sh STAGE_BIN PORT
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
bin=$1 port=$2
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "skipped: needs root"
	exit 77
fi
export MLX5EMU_FABRIC=isouser.$$
timeout -k 2 30 "$MLX5EMU" run -- "$bin/ibv_rc_pingpong" -n 5 -p "$port" >/dev/null 2>&1 &
srv=$!
at_exit "kill $srv 2>/dev/null; wait 2>/dev/null"

# fabric_socket: the server's fabric socket name, once it is bound
fabric_socket() {
	name=$(ss -xlH 2>/dev/null | grep -oE "@mlx5emu\.0\.${#MLX5EMU_FABRIC}\.$MLX5EMU_FABRIC\.[0-9]+" | head -1 || true)
	[ -n "$name" ]
}
wait_for 10 fabric_socket || die "no fabric socket"
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
