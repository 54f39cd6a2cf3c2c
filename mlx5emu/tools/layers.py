#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""mlx5emu's layering check.

Builds the file-level dependency graph of mlx5emu/src from two exact
sources: the #include "..." lines of every .c and .h, and the symbols the
library's object files define and leave undefined (nm), which for C names
every direct call and every global read across files. Calls through a
function pointer (an ops table or a callback registered at init) leave no
symbol behind and so are the sanctioned way up.

Every file gets the layer of its folder (layers.txt, top to bottom). A
file may include headers and call functions of its own layer or of a layer
below; the seam's headers may be included from both sides but include
nothing above the seam. The check fails on:
  include  a file includes a header of a layer above it
  call     a file calls (or reads) a symbol defined in a layer above it
  cycle    a cycle of calls passes through more than one layer
unless the dependency is listed in the allow-list (layers-allow.txt),
and also when an allow-list line no longer matches anything, so the list
only ever shrinks.

  layers.py --src mlx5emu/src --objs DIR [--objs DIR...]
            --layers layers.txt [--allow layers-allow.txt] [--report]
            [--write-allow FILE]
"""
import argparse
import os
import re
import subprocess
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_table(path):
    """layers.txt: '<layer> [both] <folder-or-file>...', top first."""
    layers, prefixes, both = [], [], set()
    name = None
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            # an indented line goes on listing the layer above it
            if line[0].isspace() and name:
                rest = words
            else:
                name, rest = words[0], words[1:]
                if rest and rest[0] == "both":
                    both.add(name)
                    rest = rest[1:]
                layers.append(name)
            for p in rest:
                prefixes.append((p.rstrip("/") + ("/" if p.endswith("/")
                                                  else ""), name))
    # longest prefix first: a file entry beats its folder's
    prefixes.sort(key=lambda e: -len(e[0]))
    return layers, prefixes, both


def layer_of(rel, prefixes):
    for p, name in prefixes:
        if p.endswith("/") and (rel.startswith(p) or p == "./"):
            return name
        if rel == p:
            return name
    return None


def sources(src):
    out = []
    for root, _, files in os.walk(src):
        for n in files:
            if n.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(root, n), src))
    return sorted(out)


def include_edges(src, files):
    """(file, header) for every #include "..." that resolves inside src."""
    edges = []
    for rel in files:
        here = os.path.dirname(rel)
        with open(os.path.join(src, rel), errors="replace") as f:
            for line in f:
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                name = m.group(1)
                # the compiler's order: the file's folder, then -I src
                for cand in (os.path.join(here, name), name):
                    cand = os.path.normpath(cand)
                    if cand in files:
                        edges.append((rel, cand))
                        break
    return edges


def objects(dirs, files):
    """{source path relative to src: object file} of the objects in dirs."""
    out = {}
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in names:
                if not n.endswith(".c.o"):
                    continue
                path = os.path.join(root, n)
                parts = os.path.relpath(path, d)[:-2].split(os.sep)
                # CMake mirrors the source path: its tail names the file
                for i in range(len(parts)):
                    rel = "/".join(parts[i:])
                    if rel in files:
                        out.setdefault(rel, path)
                        break
    return out


def nm(path, *flags):
    res = subprocess.run(["nm", "-P", *flags, path], check=True,
                         capture_output=True, text=True)
    return [line.split()[0] for line in res.stdout.splitlines() if line]


def call_edges(objs):
    """(caller, callee, symbol) from undefined and defined symbols."""
    owner = {}
    for src, obj in objs.items():
        for sym in nm(obj, "-g", "--defined-only"):
            owner.setdefault(sym, src)
    edges = {}
    for src, obj in objs.items():
        for sym in nm(obj, "-u"):
            dst = owner.get(sym)
            if dst and dst != src:
                edges.setdefault((src, dst), []).append(sym)
    return edges


def sccs(nodes, succ):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(succ.get(start, ())))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ.get(w, ()))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def read_allow(path):
    allow = set()
    if not path:
        return allow
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words:
                allow.add(tuple(words))
    return allow


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--objs", action="append", default=[])
    ap.add_argument("--layers", required=True)
    ap.add_argument("--allow")
    ap.add_argument("--write-allow", metavar="FILE",
                    help="write today's upward dependencies as an allow-list")
    ap.add_argument("--report", action="store_true",
                    help="print the whole graph's numbers too")
    args = ap.parse_args()

    layers, prefixes, both = read_table(args.layers)
    rank = {name: i for i, name in enumerate(layers)}
    files = sources(args.src)
    problems = []
    for f in files:
        if layer_of(f, prefixes) is None:
            problems.append(f"nolayer {f}")
    lay = {f: layer_of(f, prefixes) for f in files}

    bad = []
    incs = include_edges(args.src, files)
    for a, h in incs:
        la, lh = lay[a], lay[h]
        if la is None or lh is None:
            continue
        # the seam: both sides include it (its own includes are checked
        # as any file's)
        if lh in both:
            continue
        if rank[lh] < rank[la]:
            bad.append(("include", a, h))

    objs = objects(args.objs, set(files))
    if not objs:
        sys.exit(f"layers: no object files under {args.objs}")
    calls = call_edges(objs)
    for (a, b), syms in sorted(calls.items()):
        la, lb = lay.get(a), lay.get(b)
        if la is None or lb is None:
            continue
        if rank[lb] < rank[la]:
            bad.append(("call", a, b, ",".join(sorted(syms)[:4])))

    succ = {}
    for a, b in calls:
        succ.setdefault(a, set()).add(b)
    cycles = []
    for comp in sccs(sorted(objs), succ):
        if len({lay.get(f) for f in comp}) > 1:
            cycles.append(comp)

    if args.write_allow:
        with open(args.write_allow, "w") as f:
            for v in bad:
                extra = f"  # {v[3]}" if len(v) > 3 else ""
                f.write(f"{v[0]} {v[1]} {v[2]}{extra}\n")
        return 0
    allow = read_allow(args.allow)
    used = set()
    new = []
    for v in bad:
        key = v[:3]
        if key in allow:
            used.add(key)
        else:
            new.append(v)
    # a cycle across layers is made of upward calls: it is allowed when
    # every upward call in it is
    up = {(v[1], v[2]) for v in bad if v[0] == "call"}
    new_cycles = []
    for comp in cycles:
        inside = set(comp)
        edges = [e for e in up if e[0] in inside and e[1] in inside]
        if not all(("call",) + e in allow for e in edges):
            new_cycles.append(comp)
    stale = sorted(allow - used)

    n_inc = sum(1 for v in bad if v[0] == "include")
    n_call = sum(1 for v in bad if v[0] == "call")
    print(f"layers: {len(files)} files, {len(incs)} includes, "
          f"{len(calls)} file-to-file call dependencies")
    print(f"layers: {n_inc} upward includes, {n_call} upward calls, "
          f"{len(cycles)} cycles across layers "
          f"({sum(len(c) for c in cycles)} files); "
          f"{len(allow)} allowed")
    if args.report:
        for comp in cycles:
            print("cycle:", " ".join(f"{f}[{lay.get(f)}]" for f in comp))
        for v in bad:
            print(" ".join(v))
    for p in problems:
        print("layers: no layer for", p.split(" ", 1)[1])
    for v in new:
        extra = f"  ({v[3]})" if len(v) > 3 else ""
        print(f"layers: {v[0]} upward: {v[1]} [{lay[v[1]]}] -> "
              f"{v[2]} [{lay[v[2]]}]{extra}")
    for comp in new_cycles:
        print("layers: cycle across layers:",
              " ".join(f"{f}[{lay.get(f)}]" for f in comp))
    for s in stale:
        print("layers: allow-list entry matches nothing, remove it:",
              " ".join(s))
    if problems or new or new_cycles or stale:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
