#!/usr/bin/env bash
# The spread of ib_write_breakdown's figures over 5 runs on the emulated
# device: per step, category and whole operation, the mean, min and max of
# the 5 means (each over the fastest 99% of its samples) and their relative
# spread. A benchmark (no pass/fail).
#
#   perftest-ext/breakdown/bench/spread.sh [BUILD_DIR] [RUNS] [ITERS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../../build}" && pwd)
runs=${2:-5} iters=${3:-20000}
tool=$build/stage/bin/ib_write_breakdown
emu=$build/stage/bin/mlx5emu
[ -x "$tool" ] && [ -x "$emu" ] || { echo "spread.sh: run make first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$runs"); do
	MLX5EMU_DOORBELL_TRAP=off "$emu" run -- "$tool" --breakdown --iters="$iters" --json="$tmp/$i.json" >/dev/null
done
python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
runs = [json.load(open(f"{d}/{i}.json")) for i in range(1, n + 1)]
print(f"{'mean ns over ' + str(n) + ' runs':44} {'mean':>8} {'min':>8} {'max':>8} {'spread':>7}")
for section in ("steps", "inline_steps", "categories", "paths"):
    print(section)
    for k, row in enumerate(runs[0][section]):
        v = [r[section][k]["mean_ns"] for r in runs]
        m = statistics.mean(v)
        spread = (max(v) - min(v)) / m * 100 if m else 0
        print(f"  {row['name']:42} {m:8.2f} {min(v):8.2f} {max(v):8.2f} {spread:6.1f}%")
for key, label in (("agreement", "sum of steps vs untimed post"),
                   ("agreement_inline", "stamps between steps vs untimed")):
    v = [100 * r[key] for r in runs]
    print(f"  {label + ' (%)':42} {statistics.mean(v):+8.1f} {min(v):+8.1f} {max(v):+8.1f}")
inj = [r["models"]["llp_injection_ns"] for r in runs]
print(f"  {'model: LLP injection':42} {statistics.mean(inj):8.2f} {min(inj):8.2f} {max(inj):8.2f}")
PY
echo "reproduce: $0 $build $runs $iters"
