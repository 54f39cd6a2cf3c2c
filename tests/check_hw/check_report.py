#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""check_report.py DIR EXPECT: judge a tdshare-check-hw report.

EXPECT is 'pass' (an emulated run of the real suite: both UAR modes,
BlueFlame on and off, every module and category present, nothing failed)
or 'fail' (a run whose tests failed: the report must say so).
"""
import json
import os
import sys


def fail(msg):
    sys.exit('check_report: ' + msg)


def main(out_dir, expect):
    with open(os.path.join(out_dir, 'report.json')) as f:
        report = json.load(f)
    with open(os.path.join(out_dir, 'report.md')) as f:
        md = f.read().splitlines()

    if report['emulated'] is not True:
        fail('an emulated run is not marked emulated')
    records = report['pyverbs'] + report['ib_write_mt'] + report['plan']
    if not records or any(r.get('emulated') is not True for r in records):
        fail('a result record does not say emulated')
    # every table row and every cover letter line names the emulation
    for line in md:
        if line.startswith('| ') and not line.startswith('| item') and \
                '---' not in line and not line.startswith('| UAR mode'):
            if '(emulated)' not in line:
                fail('report.md row without (emulated): ' + line)
    if not report['cover_letter'] or not all(
            line.startswith('[emulated] ') for line in report['cover_letter']):
        fail('cover letter lines do not say emulated')
    for key in ('fw_ver', 'board_id', 'hca_id'):
        if not report['device'].get(key):
            fail('device %s missing' % key)
    for key in ('kernel', 'page_size', 'cores'):
        if not report['host'].get(key):
            fail('host %s missing' % key)

    failed = [r for r in report['pyverbs'] if r['result'] == 'failed'] + \
        [r for r in report['ib_write_mt'] if r['status'] == 'failed']
    if expect == 'fail':
        if report['passed'] or not failed:
            fail('failing tests were reported as passing')
        return
    if failed or not report['passed']:
        fail('failures: %s' % json.dumps(failed, indent=1))
    configs = {(c['uar'], c['blueflame']) for c in report['configurations']}
    if configs != {('dynamic', True), ('dynamic', False), ('legacy', True),
                   ('legacy', False)}:
        fail('configurations: %s' % sorted(configs))
    modules = {r['test'].split('.')[0] for r in report['pyverbs']}
    if modules != {'test_mlx5_uar', 'test_parent_domain', 'test_mlx5_td'}:
        fail('pyverbs modules run: %s' % sorted(modules))
    if not any(r['result'] == 'passed' and r['test'].startswith('test_mlx5_td')
               for r in report['pyverbs']):
        fail('no thread-domain test passed')
    seen = {(r['endpoints'], r['category']) for r in report['ib_write_mt']
            if r['status'] == 'ok' and r['verified']}
    for cat in ('mpi-everywhere', '2xdynamic', 'dynamic', 'shared-dynamic',
                'static', 'mpi+threads'):
        if ('all', cat) not in seen:
            fail('ib_write_mt --endpoints=all never ran %s' % cat)
    for cat in ('dynamic', 'shared-dynamic', 'shared-uuar', 'mpi+threads'):
        if ('levels', cat) not in seen:
            fail('ib_write_mt --endpoints=levels never ran %s' % cat)
    # the doorbell sweep: three modes, lists 1..64, a crossover per mode
    for uar in ('dynamic', 'legacy'):
        rows = [r for r in report['doorbell'] if r['uar'] == uar]
        modes = {r['doorbell'] for r in rows if r['status'] == 'ok'}
        if modes != {'bf', 'db', 'auto'}:
            fail('doorbell sweep in %s mode ran %s' % (uar, sorted(modes)))
        if not report['doorbell_crossover'][uar]['speedup_percent']:
            fail('doorbell sweep in %s mode: no speedup per list size' % uar)
        one = [r for r in rows if r['doorbell'] == 'db' and
               r['post_list'] == 1 and r['status'] == 'ok']
        if not one or one[0]['wqe_bytes_per_msg'] != 64:
            fail('doorbell sweep: db at 1 fetched %s WQE bytes, not 64' %
                 (one[0]['wqe_bytes_per_msg'] if one else None))
    # ib_td_plan's predictions, held in both UAR modes
    held = {(r['uar'], r['check']) for r in report['plan']
            if r['status'] == 'ok'}
    for uar in ('dynamic', 'legacy'):
        for level in (1, 2):
            if (uar, 'level-%d TDs per context' % level) not in held:
                fail('ib_td_plan level %d in %s mode: %s' % (
                    level, uar, json.dumps(report['plan'], indent=1)))


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[2] not in ('pass', 'fail'):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
