# demo: mlx5emu, an emulated ConnectX device for the staged rdma-core
emu=$STAGE/bin/mlx5emu

echo "--- mlx5emu run -- ibv_devices"
"$emu" run -- "$STAGE/bin/ibv_devices"

for mode in static dynamic; do
	echo
	echo "--- mlx5emu run --uar=$mode -- ibv_devinfo (first lines)"
	"$emu" run --uar=$mode -- "$STAGE/bin/ibv_devinfo" | sed -n '1,4p;/^\t*port:/,/link_layer/p'
done

# ibv_rc_pingpong as a server creates its PD/MR/CQ/QP and then waits for a
# client: a good moment to ask the emulated device who holds which UARs.
for mode in static dynamic; do
	echo
	echo "--- --uar=$mode: ibv_rc_pingpong's UARs and QP, from 'mlx5emu stat'"
	port=$((18500 + RANDOM % 1000))
	"$emu" run --uar=$mode -- bash -c "
		'$STAGE/bin/ibv_rc_pingpong' -p $port >/dev/null 2>&1 &
		for i in \$(seq 50); do
			'$emu' stat --machine | grep -q '^qp ' && break
			sleep 0.1
		done
		'$emu' stat
		kill \$! 2>/dev/null; wait 2>/dev/null || true"
done

echo
echo "--- --trace: the commands libmlx5 sends to open the device (dynamic UARs)"
"$emu" run --trace -- "$STAGE/bin/ibv_devinfo" 2>&1 >/dev/null | sed 's/^mlx5emu\[[0-9]*\]: /  /' | head -14

echo
echo "--- --transport=ioctl: the same open as a current kernel sees it"
"$emu" run --transport=ioctl --trace -- "$STAGE/bin/ibv_devinfo" 2>&1 >/dev/null | sed 's/^mlx5emu\[[0-9]*\]: /  /' | head -8

# The UAR test program asks for thread domains until the per-context
# limit refuses a page; the kernel's answer is in the attribution file.
uar_test=$BUILD/tests/mlx5emu/mlx5emu-uar-test
if [ -x "$uar_test" ]; then
	echo
	echo "--- --uar-limit: the thread domain that needs one UAR too many"
	"$emu" run --uar=static --uar-limit=10 -- "$uar_test" uar_limit 2>/dev/null | sed -n 's/^round 0: /  static, 8 static + 2 ALLOC_WC pages: /p'
	"$emu" run --uar=dynamic --uar-limit=3 -- "$uar_test" uar_limit 2>/dev/null | sed -n 's/^round 0: /  dynamic, NC + 2 BF UAR objects: /p'
fi
