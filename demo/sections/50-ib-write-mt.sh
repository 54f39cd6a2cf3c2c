# demo: ib_write_mt: message rate and resources of the six endpoint categories
# 16 threads of 2-byte RDMA writes (p=32, q=64) in loopback on the emulated
# device, once with the 2018 kernels' static UARs and once with today's
# dynamic UARs. UAR pages: allocated (maps), rung (bf.reg), emulator (emu).
# Rates on the emulated NIC are not a ConnectX's; the resources are.
out=$BUILD/demo/ib_write_mt
mkdir -p "$out"
for mode in static dynamic; do
	echo "--- mlx5emu --uar=$mode"
	"$STAGE/bin/mlx5emu" run --uar=$mode -- "$STAGE/bin/ib_write_mt" \
		--endpoints=all --loopback --threads=16 -n 2048 \
		--plot="$out/categories-$mode.svg" --csv="$out/categories-$mode.csv" |
		sed -n '/#category/,$p'
done
echo "plots: $out/categories-static.svg $out/categories-dynamic.svg (CSV next to them)"
echo "reproduce: $STAGE/bin/mlx5emu run --uar=static|dynamic -- $STAGE/bin/ib_write_mt --endpoints=all --loopback"
