#!/bin/bash
# doorbell_test.sh: --doorbell=bf,db,auto over post lists 1..64 at TD levels
# 1-3 (dynamic, shared-dynamic, shared-uuar): the counted columns follow
# libmlx5's rules (post_send_db()) per message posted: bf at p=1 one
# 64-byte BlueFlame block and no WQE fetch, db at p=1 one doorbell and one
# 64-byte fetch, a list of p one doorbell per p messages and every block
# fetched (auto from p=2 is db), bf with a list UNAVAILABLE. Every WR is
# signaled and the send queue holds one list (-t P -Q 1): a thread waits
# for its list's completions before the next post, so the NIC takes every
# ring before the next one on its register half. Not so where two threads
# share the register (shared-uuar): one's BlueFlame copy may land on the
# half the other's just took before the NIC looks, and then counts as a
# fetch (the rings stay exact); there a few in a hundred may go. Then
# the sweep itself, one list in flight at every point (--lockstep).
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}" "${IB_WRITE_MT:?}"
scratch_dir dir

for p in 1 2 16 64; do
	"$MLX5EMU" run --uar=dynamic -- "$IB_WRITE_MT" --loopback --threads=4 \
		-n 128 -Q 1 -t $p -l $p --doorbell=bf,db,auto \
		--endpoints=dynamic,shared-dynamic,shared-uuar \
		--out_json --out_json_file="$dir/d$p.json" --csv="$dir/d$p.csv" \
		>"$dir/out$p" 2>&1 || [ $? -eq 3 ] || { cat "$dir/out$p"; die "-l $p failed"; }
done
"$MLX5EMU" run --uar=dynamic -- "$IB_WRITE_MT" --loopback --threads=1 \
	-n 256 -l 64 --lockstep --sweep=postlist --doorbell=bf,db,auto \
	--endpoints=dynamic --out_json --out_json_file="$dir/sweep.json" \
	--plot="$dir/sweep.svg" >"$dir/out" 2>&1 || [ $? -eq 3 ] ||
	{ cat "$dir/out"; die "the sweep failed"; }
[ -s "$dir/sweep.svg" ] || die "no figure"
grep -q ' db  *MMIO  *WQE B  *PCIe B' "$dir/out" || { cat "$dir/out"; die "no doorbell columns"; }
python3 - "$dir" <<'PY' || die "counts"
import csv, json, sys
d = sys.argv[1]
rows = sum((json.load(open("%s/d%d.json" % (d, p)))["results"]
            for p in (1, 2, 16, 64)), [])
sweep = json.load(open(d + "/sweep.json"))["results"]
assert len(sweep) == 21, len(sweep)
rows += sweep
seen = set()
for r in rows:
    p, mode, c = r["post_list"], r["doorbell"], r["doorbell_counts"]
    where = "%s p=%d %s" % (r["category"], p, mode)
    if mode == "bf" and p > 1:
        assert r["status"] == "unavailable", where
        continue
    assert r["status"] == "ok", (where, r["reason"])
    assert c["source"] == "emu", where
    bf = mode == "bf" or (mode == "auto" and p == 1)
    want_mmio = 1.0 if bf else 1.0 / p
    want_wqe = 0.0 if bf else 64.0
    n = c["messages_posted"]
    shared = r["category"] == "shared-uuar" and bf
    assert abs(c["mmio_per_msg"] - want_mmio) < 1e-9, (where, c)
    if shared:
        assert c["wqe_bytes_per_msg"] <= 64 * 0.05, (where, c)
        assert n * 0.95 <= c["bf_copies"] <= n, (where, c)
    else:
        assert abs(c["wqe_bytes_per_msg"] - want_wqe) < 1e-9, (where, c)
        assert c["bf_copies"] == (n if bf else 0), (where, c)
    assert c["cqes"] == c["messages_posted"], (where, c)
    assert c["pcie_bytes_per_msg"] > 0, where
    seen.add((r["category"], mode))
for cat in ("dynamic", "shared-dynamic", "shared-uuar"):
    for mode in ("bf", "db", "auto"):
        assert (cat, mode) in seen, (cat, mode)
hdr = next(csv.reader(open(d + "/d1.csv")))
for k in ("doorbell", "mmio_per_msg", "wqe_bytes_per_msg", "pcie_bytes_per_msg"):
    assert k in hdr, k
print("ok: %d rows" % len(rows))
PY
echo "ok: --doorbell counts follow libmlx5's rules at levels 1-3"
