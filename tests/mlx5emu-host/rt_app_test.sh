#!/bin/bash
# A real-time application (chrt -f 10) whose threads spin on every CPU:
# its NIC thread runs one priority above it, so the run completes
# (issue 37, D6: at priority 1 it never ran, and the run hung). Needs
# CAP_SYS_NICE; skipped without it. A watchdog ends a hung run.
#
#   rt_app_test.sh IB_WRITE_MT      ($MLX5EMU: the launcher)
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}"
wmt=$1
scratch_dir dir

if ! chrt -f 10 true 2>/dev/null; then
	echo "no real-time class here: skipped"
	exit 0
fi
threads=$(nproc)
[ "$threads" -le 8 ] || threads=8
rc=0
timeout -s KILL 60 chrt -f 10 "$MLX5EMU" run --trace="$dir/trace" -- \
	"$wmt" --loopback --endpoints=dynamic --threads="$threads" -n 2000 \
	>"$dir/out" 2>&1 || rc=$?
[ "$rc" -ne 137 ] || die "the real-time run hung (killed after 60 s)"
[ "$rc" -eq 0 ] || { cat "$dir/out"; die "the real-time run failed ($rc)"; }
grep -q 'nic: scheduling class fifo, above the real-time application' "$dir/trace" ||
	die "the NIC thread did not say it runs above the application: $(grep 'nic: ' "$dir/trace")"
echo "ok: $threads real-time spinners, the run completed"
