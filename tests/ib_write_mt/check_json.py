#!/usr/bin/python3
"""Assertions on an ib_write_mt --out_json report.

check_json.py FILE CHECK [ARGS...]
  all-ok                every row ran and every byte and guard verified
  levels                each category got the mapping level it is built for
  uar CAT=N...          UAR pages allocated (maps) per category, and the
                        emulator's accounting agrees
  emu-agrees            every row: maps figure == emulator figure
  share RES             the sweep points 1,2,4,8,16 shared RES that way
"""
import json
import sys

LEVELS = {"mpi-everywhere": "own_uar", "dynamic": "own_uar",
          "2xdynamic": "own_uar", "shared-dynamic": "shared_uar",
          "shared-uuar": "shared_uuar", "mpi+threads": "shared_qp"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def rows(doc):
    res = doc.get("results")
    if not res:
        fail("no results")
    return res


def check_all_ok(doc, args):
    for r in rows(doc):
        if r["status"] != "ok" or not r["verified"]:
            fail("%s %s: status %s, reason %s" % (r["category"], r["point"],
                                                  r["status"], r["reason"]))
        if r["n_iterations"] <= 0:
            fail("%s: no messages" % r["category"])
    print("ok: %d rows verified" % len(rows(doc)))


def check_levels(doc, args):
    for r in rows(doc):
        want = LEVELS.get(r["category"])
        if want is None:
            continue
        got = r["mapping_levels"]
        if got[want] != r["threads"]:
            fail("%s: mapping levels %s, want all threads %s" %
                 (r["category"], got, want))
        print("ok: %s: %d threads %s" % (r["category"], r["threads"], want))


def uar(r, key):
    return r["resources"][key]["value"]


def check_uar(doc, args):
    want = dict(a.split("=") for a in args)
    seen = set()
    for r in rows(doc):
        cat = r["category"]
        if cat not in want:
            continue
        seen.add(cat)
        maps = uar(r, "uar_pages_allocated")
        emu = uar(r, "uars_emulator")
        if maps != int(want[cat]):
            fail("%s: %s UAR pages (maps), want %s" % (cat, maps, want[cat]))
        if emu != maps:
            fail("%s: emulator says %s UARs, maps %s" % (cat, emu, maps))
        print("ok: %s: %d UAR pages (maps), emu %d" % (cat, maps, emu))
    if seen != set(want):
        fail("categories missing: %s" % (set(want) - seen))


def check_emu_agrees(doc, args):
    for r in rows(doc):
        maps = uar(r, "uar_pages_allocated")
        emu = uar(r, "uars_emulator")
        if emu is None or emu != maps:
            fail("%s: emulator %s, maps %s" % (r["category"], emu, maps))
        print("ok: %s: %d UARs, maps and emu agree" % (r["category"], maps))


def check_share(doc, args):
    res = args[0]
    points = []
    for r in rows(doc):
        x = r["shared_by"][res]
        if r["point"] != "share-%s=%d" % (res, x):
            fail("%s: point %s but %s shared by %d" % (r["category"],
                                                        r["point"], res, x))
        count = r["resources"][{"ctx": "contexts", "pd": "pds", "mr": "mrs",
                                "cq": "cqs", "qp": "qps"}.get(res, "qps")]
        if res != "buf" and count * x != r["threads"]:
            fail("%s shared by %d: %d instances for %d threads" %
                 (res, x, count, r["threads"]))
        points.append(x)
        print("ok: %s: %s shared by %d, %d instances" % (r["category"], res,
                                                         x, count))
    if points != [1, 2, 4, 8, 16]:
        fail("points %s" % points)
    check_all_ok(doc, [])


CHECKS = {"all-ok": check_all_ok, "levels": check_levels, "uar": check_uar,
          "emu-agrees": check_emu_agrees, "share": check_share}

if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        document = json.load(f)
    CHECKS[sys.argv[2]](document, sys.argv[3:])
