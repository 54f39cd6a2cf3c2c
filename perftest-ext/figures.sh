#!/bin/bash
# make figures: one figure of each kind that ib_write_mt and
# ib_write_breakdown draw, from fixed runs on the emulated device, into
# BUILD/figures (SVG, with the CSV and JSON behind each).
#   perftest-ext/figures.sh BUILD
# Rates on the emulator measure its software NIC; the resources are the
# device's. The breakdown figure is the paper's model (Table 1), which
# needs no device.
set -euo pipefail
build=${1:-build}
stage=$build/stage/bin
out=$build/figures
mkdir -p "$out"

# wmt NAME MLX5EMU_UAR ARGS...: one ib_write_mt figure; with UNAVAIL=1
# rows that cannot be had (exit 3) are part of it
wmt() {
	local name=$1 uar=$2 rc=0
	shift 2
	echo "figures: $name"
	"$stage/mlx5emu" run --uar="$uar" -- "$stage/ib_write_mt" --loopback \
		--plot="$out/$name.svg" --csv="$out/$name.csv" \
		--out_json_file="$out/$name.json" "$@" >"$out/$name.txt" || rc=$?
	[ $rc -eq 0 ] || { [ "${UNAVAIL:-0}" = 1 ] && [ $rc -eq 3 ]; } || exit $rc
}

# the paper's six categories (Fig. 12), static UARs as on 2018 kernels
wmt categories static --endpoints=all --threads=16 -n 2048
# the four mapping levels, in level order
wmt levels dynamic --endpoints=levels --threads=16 -n 2048
# a sweep: message rate over the post list
wmt sweep-postlist dynamic --endpoints=dynamic,shared-dynamic --threads=8 \
	-n 2048 --sweep=postlist
# doorbells: BlueFlame, 8-byte doorbells and batching over the post list,
# a line per --doorbell mode; every WR signaled (the caption says what is
# counted, modelled and measured)
# (bf with a list is UNAVAILABLE: libmlx5 copies single WRs only)
UNAVAIL=1 wmt doorbell dynamic --endpoints=dynamic --threads=1 -n 4096 -l 64 \
	--lockstep --sweep=postlist --doorbell=bf,db,auto
cat >"$out/doorbell.caption.txt" <<'EOF'
BlueFlame (bf), 8-byte doorbells (db) and libmlx5's own choice (auto) over
the post list, one thread, one list in flight (--lockstep), 2-byte inline
RDMA writes, every one signaled. Counted by the emulated NIC, exactly:
MMIO writes and WQE bytes fetched per message (mlx5emu stat). Modelled:
PCIe bytes per message, from those counts (ib_write_breakdown's PCIe
model, its inputs assumed). Measured, but on the emulator's software NIC
and not on hardware: the rate. bf exists at p=1 only (libmlx5 copies no
post list). tdshare-check-hw runs the same sweep on a real device.
EOF
# x-way sharing of the CQ (Section V)
wmt share-cq dynamic --threads=16 -n 1024 --sweep=share-cq
# Fig. 17: what-if speedups of the paper's model
echo "figures: what-if"
"$stage/ib_write_breakdown" --what-if --plot="$out/what-if.svg" \
	--csv="$out/what-if.csv" >"$out/what-if.txt"
ls "$out"/*.svg
