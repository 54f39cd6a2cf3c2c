# demo: data moving on the emulated ConnectX: two processes, one RC connection
emu=$STAGE/bin/mlx5emu

echo "--- ibv_rc_pingpong -c: server and client are separate 'mlx5emu run' processes"
port=$((19500 + RANDOM % 400))
timeout 30 "$emu" run -- "$STAGE/bin/ibv_rc_pingpong" -c -n 100 -p $port >/tmp/demo-pp.$$ 2>&1 &
srv=$!
for i in $(seq 50); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
timeout 30 "$emu" run -- "$STAGE/bin/ibv_rc_pingpong" -c -n 100 -p $port localhost | sed 's/^/  client: /'
wait $srv && sed 's/^/  server: /' /tmp/demo-pp.$$
rm -f /tmp/demo-pp.$$

echo
echo "--- the same with completion events (-e): the NIC raises CQ events into the channel fd"
port=$((port + 1))
timeout 30 "$emu" run -- "$STAGE/bin/ibv_rc_pingpong" -e -c -n 500 -p $port >/dev/null 2>&1 &
srv=$!
for i in $(seq 50); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
timeout 30 "$emu" run -- "$STAGE/bin/ibv_rc_pingpong" -e -c -n 500 -p $port localhost | sed 's/^/  client: /'
wait $srv

echo
echo "--- who rang where: the doorbells the NIC saw, per QP, UAR page and BlueFlame slot"
port=$((port + 1))
timeout 30 "$emu" run -- bash -c "
	'$STAGE/bin/ibv_rc_pingpong' -e -n 1000000 -p $port >/dev/null 2>&1 & s=\$!
	for i in \$(seq 50); do ss -ltn | grep -q ':$port ' && break; sleep 0.1; done
	'$STAGE/bin/ibv_rc_pingpong' -e -n 1000000 -p $port localhost >/dev/null 2>&1 & c=\$!
	sleep 2.5
	'$emu' stat
	kill \$c \$s; wait" | grep -E '^pid|qp |ring' | sed 's/^/  /' || true

echo
echo "--- message rate: 8-byte inline RDMA writes, post list 32, 1 signaled in 64 (2 shared cores)"
"$emu" run -- "$STAGE/bin/emu_write_rate" --seconds=1 | sed 's/^/  /'
