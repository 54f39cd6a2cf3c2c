#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Stands in for rdma-core's run_tests.py: one test passes, one fails, as
# unittest -v prints them, so tdshare-check-hw's failure path is tested.
import sys

sys.stderr.write('test_good (tests.test_parent_domain.ParentDomainTDTest.test_good) ... ok\n'
                 'test_bad (tests.test_parent_domain.ParentDomainTDTest.test_bad) ... FAIL\n'
                 '\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n')
sys.exit(1)
