#!/usr/bin/env python3
# Our own C stays in pieces a reader can hold: no file over 800 lines and no
# function over 120 (CONTRIBUTING.md), tests included. Upstream code
# (patches/) is not ours to cut. Functions are found the way kernel style
# writes them: a definition's body opens with "{" in column 0 and closes
# with "}" in column 0.
#
#   size_limits.py REPO [MAX_FILE_LINES MAX_FUNCTION_LINES]
import re
import subprocess
import sys

repo = sys.argv[1]
max_file = int(sys.argv[2]) if len(sys.argv) > 2 else 800
max_func = int(sys.argv[3]) if len(sys.argv) > 3 else 120

files = subprocess.run(['git', '-C', repo, 'ls-files', '*.c', '*.h'],
                       check=True, capture_output=True,
                       text=True).stdout.split()
name_re = re.compile(r'(\w+)\s*\(')
bad = []
for f in files:
    with open(f'{repo}/{f}', encoding='utf-8', errors='replace') as fh:
        lines = fh.read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if len(lines) > max_file:
        bad.append(f'{f}: {len(lines)} lines (at most {max_file})')
    start = None
    for i, line in enumerate(lines):
        if line == '{':
            start = i
        elif line.startswith('}') and start is not None:
            # the signature: the nearest line above with "name("
            j = start - 1
            while j > 0 and not name_re.search(lines[j]):
                j -= 1
            m = name_re.search(lines[j]) if j >= 0 else None
            length = i - j + 1
            if m and length > max_func:
                bad.append(f'{f}:{j + 1}: {m.group(1)}() is {length} lines '
                           f'(at most {max_func})')
            start = None
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
