#!/usr/bin/python3
"""The instructions a benchmark spends per message, itself, from callgrind.

Each profile is one client run under
  valgrind --tool=callgrind --separate-threads=yes --dump-instr=yes
           --dump-line=no --compress-pos=no --compress-strings=no
What counts as the program's own: the executable's instructions, and what
its calls into other libraries (libc) cost. The verbs libraries
(libibverbs, libmlx5) and the emulated device (libmlx5emu) are not the
program's, nor is anything they call; threads of the emulated device
(those that spend most of their instructions in it) are left out.

The cost per message is what the program does once per message, per post
list or per completion: the instructions (and calls) whose execution
counts grow in proportion to the number of messages. Two things are left
out that way, and must be:
- the wait: on the emulated device the NIC shares the client's core under
  valgrind, so how often the client polls an empty CQ is the scheduler's
  doing. Each message count is run twice, with the NIC slow and quick to
  wake; an instruction whose count differs between the two is the wait's;
- what does not scale with the messages: setup and teardown (constant),
  clock calibration (it runs for a time, not a count), a report's scan of
  timestamps (it grows faster than the messages). Each configuration is
  run with two message counts N1 < N2; an instruction counts only if its
  count grew by N2/N1 (within SCALE).
The cost per message is the growth of those instructions' counts, divided
by N2 - N1.

callgrind_own.py N1 SLOW1 FAST1 N2 SLOW2 FAST2
    each SLOW/FAST a directory of one run's callgrind files; prints
    "<own Ir per message> <all own Ir per message> <polls per message>",
    the last two from the slow runs, the difference of everything between
    N1 and N2 over N2 - N1: the wait, and all else, included
"""
import glob
import os
import re
import sys

EXCLUDED = re.compile(r"lib(ibverbs|mlx5|mlx5emu)[.-]")
DEVICE = re.compile(r"libmlx5emu[.-]")
POLL = re.compile(r"poll_cq")
# libc calls main(): counting that call would count the program twice
STARTUP = re.compile(r"__libc_start_main")
# the same count in the slow and quick runs: within this share
SAME = 0.02
# growth in proportion to the messages: N2/N1 within this share
SCALE = 0.1


def is_program(obj):
    # "???" is code valgrind found in no file: the vDSO
    return obj is not None and ".so" not in obj and obj != "???"


class Profile:
    """one run: execution counts of the program's own instructions"""

    def __init__(self, directory):
        self.instr = {}  # (object, address): self Ir
        self.calls = {}  # (object, address, callee): [calls, inclusive Ir]
        self.polls = 0
        for path in glob.glob(os.path.join(directory, "cg.*")):
            self._read(path)

    def _read(self, path):
        instr, calls, polls = {}, {}, 0
        device = total = 0
        obj = callee = callee_obj = None
        ncalls = None
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                key, _, value = line.partition("=")
                if ncalls is not None:
                    # the call's inclusive cost, at the call site
                    addr, cost = line.split()[:2]
                    if (is_program(obj) and callee_obj != obj and
                            not EXCLUDED.search(callee_obj) and
                            not STARTUP.search(callee)):
                        c = calls.setdefault((obj, addr, callee), [0, 0])
                        c[0] += ncalls
                        c[1] += int(cost)
                    if POLL.search(callee) and is_program(obj):
                        polls += ncalls
                    ncalls = callee_obj = None  # cob= names one callee
                    continue
                if key == "ob":
                    obj, callee_obj = value, None
                elif key == "fn":
                    callee_obj = None
                elif key == "cob":
                    callee_obj = value
                elif key == "cfn":
                    callee = value
                elif key == "calls":
                    ncalls = int(value.split()[0])
                    if callee_obj is None:
                        callee_obj = obj
                elif line.startswith("0x"):
                    addr, cost = line.split()[:2]
                    total += int(cost)
                    if obj and DEVICE.search(obj):
                        device += int(cost)
                    if is_program(obj):
                        k = (obj, addr)
                        instr[k] = instr.get(k, 0) + int(cost)
        if total and device * 2 > total:
            return  # a thread of the emulated device
        for k, v in instr.items():
            self.instr[k] = self.instr.get(k, 0) + v
        for k, v in calls.items():
            c = self.calls.setdefault(k, [0, 0])
            c[0] += v[0]
            c[1] += v[1]
        self.polls += polls

    def total(self):
        return (sum(self.instr.values()) +
                sum(c[1] for c in self.calls.values()))


def per_message(a1, b1, a2, b2, ratio):
    """counts (slow, quick at N1, slow, quick at N2): the per-message
    growth a2 - a1, or 0 for the wait's and what does not scale"""
    if abs(a1 - b1) > SAME * max(a1, b1) or abs(a2 - b2) > SAME * max(a2, b2):
        return 0
    if not a1 or abs(a2 / a1 - ratio) > SCALE * ratio:
        return 0
    return a2 - a1


def growth(s1, f1, s2, f2, ratio):
    ir = sum(per_message(*(p.instr.get(k, 0) for p in (s1, f1, s2, f2)),
                         ratio)
             for k in set(s1.instr) | set(s2.instr))
    for k in set(s1.calls) | set(s2.calls):
        c = [p.calls.get(k, [0, 0]) for p in (s1, f1, s2, f2)]
        # the call site runs per message, and so does its cost
        if per_message(*(x[0] for x in c), ratio):
            ir += per_message(*(x[1] for x in c), ratio)
    return ir


def main(argv):
    n1, s1, f1, n2, s2, f2 = argv
    n1, n2 = int(n1), int(n2)
    slow1, fast1 = Profile(s1), Profile(f1)
    slow2, fast2 = Profile(s2), Profile(f2)
    own = growth(slow1, fast1, slow2, fast2, n2 / n1) / (n2 - n1)
    everything = (slow2.total() - slow1.total()) / (n2 - n1)
    polls = (slow2.polls - slow1.polls) / (n2 - n1)
    print(f"{own:.1f} {everything:.1f} {polls:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
