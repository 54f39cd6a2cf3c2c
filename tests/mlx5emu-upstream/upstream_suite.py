#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Run upstream rdma-core's pyverbs suite on the emulated device and judge it.

upstream_suite.py RUN_TESTS MIN_PASSES [MODULE...]

Runs RUN_TESTS -v (every module it runs, or only the ones named), prints
its output, then fails unless there are no failures and no errors, at
least MIN_PASSES tests passed, and every skip falls into a category of
SKIP_CATEGORIES (documented in tests/mlx5emu-upstream/README.md). In the
core modules only missing hardware and the four emulator gaps may skip.
"""
import collections
import re
import subprocess
import sys

# category -> skip messages (regular expressions) that belong to it; the
# categories are those of README.md in this directory
SKIP_CATEGORIES = {
    # what the emulated hardware (a ConnectX-5 on an IB port, no GPU, no
    # huge pages) does not have, or what ConnectX-5 itself cannot do
    'hardware': [
        r'Must be run on Ethernet link layer', r'skip RoCE test',
        r'RAW QP must be done by user with CAP_NET_RAW on Ethernet',
        r'Device memory is not supported', r'Allocating dmabuf',
        r'cuda-python', r'no huge pages of size',
        r"doesn't have net interface", r'No PHC',
        r'PCI device must be passed', r'Could not find the PCI device',
        r'Eswitch on', r'non EFA device', r'LAG affinity',
        r'Extended QP is not supported on this device',  # atomic write
        r'additional access flags 258',  # FLUSH (persistent memory)
        r'SRQ resize is not supported',
        r'CQE 128B', r'CC_DMA_BOUNCE', r'DCI caps is not supported by HW',
    ],
    # the documented gaps of the emulator (mlx5emu/README.md); of the
    # four the acceptance allows, REREG_MR and CQ resize are implemented
    'emulator-gap': [
        r'Create XRCD is not supported', r'XRC',
        r'MW access', r'memory window', r'Failed to register MR using '
        r'extended API',  # MREx with MW_BIND
        r'additional access flags 18\b',  # MW_BIND
    ],
    # mlx5 extras out of the emulator's scope (mlx5emu/README.md): DEVX
    # and what needs it (DM ops, VAR, UMEM, DMA handles, steering, DR),
    # DC, UMR mkeys, crypto, ODP, tag matching, OOO, scheduling, real-time
    # clock, CQE compression, device import, reserved QPNs
    'mlx5-extra': [
        r'DevX', r'Create DC QP', r'Create Mkey', r'Create Mlx5DV QP',
        r'ODP is not supported', r'Tag matching', r'OOO feature',
        r'schedule elements', r'Query device real time',
        r'Failed to create DMA Handle', r'Failed to allocate VAR',
        r'Alloc reserved QP number', r'UAR dmabuf export',
        r"mlx5dv_query_port\(\) isn't supported",
        r'Importing a device is not supported',
        r'additional access flags 64\b',  # ON_DEMAND
    ],
    # what the test host has to provide
    'environment': [
        r'scapy package is needed', r'Crypto login details',
        r'FDs file not found',
        r"No supported port is up",
        # the device has more UARs than the ladder tests take (tests/td's
        # td-ladder-* run them under --uar-limit)
        r'level 1 thread domains fit',
    ],
}

CORE_MODULES = {
    'test_device', 'test_pd', 'test_mr', 'test_cq', 'test_cqex', 'test_qp',
    'test_qpex', 'test_srq', 'test_atomic', 'test_parent_domain',
}
CORE_ALLOWED = {'hardware', 'emulator-gap'}

# "name (module.Class.name)", maybe the docstring's first line, " ... ",
# maybe a line the test printed, then the verdict
RESULT = re.compile(
    r'^(\w+) \((?:tests\.)?(\w+)\.[\w.]+\)(?:\n.*?)? \.\.\. (?:.*\n)??'
    r'(ok|FAIL|ERROR|skipped (.*)|expected failure|unexpected success)$',
    re.M)


def category(reason):
    for name, pats in SKIP_CATEGORIES.items():
        if any(re.search(p, reason) for p in pats):
            return name
    return None


def main():
    run_tests, min_passes = sys.argv[1], int(sys.argv[2])
    cmd = [run_tests, '-v'] + sys.argv[3:]  # a shell wrapper
    proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    out = proc.stdout
    print(out)

    counts = collections.Counter()
    skips = collections.Counter()
    bad = []
    for m in RESULT.finditer(out):
        test, module, verdict, reason = m.groups()
        if verdict == 'ok':
            counts['pass'] += 1
        elif verdict.startswith('skipped'):
            counts['skip'] += 1
            reason = (reason or '').strip("'\"")
            cat = category(reason)
            skips[cat or 'UNKNOWN'] += 1
            if cat is None:
                bad.append(f'{module}.{test}: skip not in any category: '
                           f'{reason}')
            elif module in CORE_MODULES and cat not in CORE_ALLOWED:
                bad.append(f'{module}.{test}: core test skipped ({cat}): '
                           f'{reason}')
        elif verdict in ('FAIL', 'unexpected success'):
            counts['fail'] += 1
        else:
            counts['error'] += 1

    summary = re.search(r'^Ran (\d+) tests? in ([\d.]+)s', out, re.M)
    fails = re.search(r'^FAILED \((.*)\)', out, re.M)
    if fails:
        for k, v in re.findall(r'(\w+)=(\d+)', fails.group(1)):
            if k == 'failures':
                counts['fail'] = max(counts['fail'], int(v))
            elif k == 'errors':
                counts['error'] = max(counts['error'], int(v))
    print(f'upstream suite: ran {summary.group(1) if summary else "?"} in '
          f'{summary.group(2) if summary else "?"}s: '
          f'{counts["pass"]} passed, {counts["fail"]} failed, '
          f'{counts["error"]} errors, {counts["skip"]} skipped '
          f'({", ".join(f"{k}={v}" for k, v in sorted(skips.items()))})')
    for b in bad:
        print('FAIL:', b)
    ok = (summary and not counts['fail'] and not counts['error'] and
          counts['pass'] >= min_passes and not bad)
    if not ok and counts['pass'] < min_passes:
        print(f'FAIL: {counts["pass"]} passes, at least {min_passes} wanted')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
