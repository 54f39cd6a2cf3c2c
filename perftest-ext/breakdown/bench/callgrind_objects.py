#!/usr/bin/env python3
# Self cost (Ir) per ELF object in a callgrind output file: the cost lines
# under each ob=, leaving out the inclusive cost line that follows calls=.
#   callgrind_objects.py <callgrind.out>  ->  "<Ir> <object>" per line
import re
import sys


def per_object(path):
    names, cost = {}, {}
    current, skip_next = None, False
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if skip_next:
                skip_next = False
                continue
            # ob= and cob= share one table of compressed names
            m = re.match(r'cob=\((\d+)\)\s*(.+)$', line)
            if m:
                names[m.group(1)] = m.group(2)
                continue
            m = re.match(r'ob=(?:\((\d+)\))?\s*(.*)$', line)
            if m:
                ident, name = m.groups()
                if ident and name:
                    names[ident] = name
                current = names.get(ident, name) if ident else name
                continue
            if line.startswith('calls='):
                skip_next = True
                continue
            if line[:1].isdigit() or line[:1] in '+-*':
                fields = line.split()
                if len(fields) > 1 and current is not None:
                    cost[current] = cost.get(current, 0) + int(fields[1])
    return cost


if __name__ == '__main__':
    for obj, ir in sorted(per_object(sys.argv[1]).items(), key=lambda x: -x[1]):
        print(ir, obj)
