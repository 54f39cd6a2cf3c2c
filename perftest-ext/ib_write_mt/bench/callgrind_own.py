#!/usr/bin/python3
"""Instructions a program spends itself, from callgrind --separate-threads
output files: the self cost (Ir) of every function, summed over the
program's threads, leaving out the verbs libraries (libibverbs, libmlx5)
and the emulated device (libmlx5emu, and the threads it runs: those that
spend most of their instructions in it).

callgrind_own.py FILE...   prints the total
"""
import re
import sys

EXCLUDED = re.compile(r"lib(ibverbs|mlx5|mlx5emu)[.-]")
DEVICE = re.compile(r"libmlx5emu[.-]")


def thread_costs(path):
    """{object name: self Ir} of one thread's file"""
    names = {}
    costs = {}
    obj = None
    skip_next = False
    with open(path, errors="replace") as f:
        for line in f:
            if skip_next:
                skip_next = False
                continue
            if line.startswith("cob="):
                # a called object: its compressed name may be defined here
                m = re.match(r"cob=\((\d+)\) (.*)", line.strip())
                if m:
                    names[m.group(1)] = m.group(2)
                continue
            if line.startswith("ob="):
                m = re.match(r"ob=\((\d+)\)(?: (.*))?", line.strip())
                if m:
                    if m.group(2):
                        names[m.group(1)] = m.group(2)
                    obj = names.get(m.group(1), "?")
                else:
                    obj = line[3:].strip()
                continue
            if line.startswith("calls="):
                skip_next = True  # the next line is the callee's cost
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            fields = line.split()
            if len(fields) >= 2 and obj is not None:
                costs[obj] = costs.get(obj, 0) + int(fields[1])
    return costs


def own(paths):
    total = 0
    for path in paths:
        costs = thread_costs(path)
        all_ir = sum(costs.values())
        device = sum(v for k, v in costs.items() if DEVICE.search(k))
        if all_ir and device * 2 > all_ir:
            continue  # a thread of the emulated device
        total += sum(v for k, v in costs.items() if not EXCLUDED.search(k))
    return total


if __name__ == "__main__":
    print(own(sys.argv[1:]))
