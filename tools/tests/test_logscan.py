"""Checker reports in a console log fail a run; a clean log does not."""

from __future__ import annotations

import unittest

from kfork import logscan

CLEAN = """\
[    0.812345] KTAP version 1
[    0.812400] 1..1
[    0.813000]     # Subtest: pie_math
[    0.813500]     ok 1 pie_params_defaults
[    0.900000] ok 1 pie_math
[    0.910000] reboot: Restarting system
"""

KASAN = """\
[    1.000000] ==================================================================
[    1.000001] BUG: KASAN: slab-out-of-bounds in pie_drop_early+0x1a/0x90
[    1.000002] Read of size 8 at addr ffff888003e1c000 by task kunit_try_catch/42
[    1.000003] Call Trace:
[    1.000004] ==================================================================
[    1.000005]     ok 2 pie_prob_update
"""

WARN = """\
[    2.0] ------------[ cut here ]------------
[    2.1] WARNING: CPU: 0 PID: 1 at net/sched/sch_pie.c:100 pie_timer+0x10/0x20
[    2.2] Modules linked in:
[    2.3] ---[ end trace 0000000000000000 ]---
"""

LOCKDEP = """\
[    3.0] ======================================================
[    3.1] WARNING: possible circular locking dependency detected
[    3.2] 6.1.0 #1 Not tainted
"""

UBSAN = '[    4.0] UBSAN: shift-out-of-bounds in net/sched/sch_hhf.c:200:10\n'
SLEEP = '[    5.0] BUG: sleeping function called from invalid context at mm/slab.h:1\n'
LEAK = '[    6.0] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)\n'


class LogscanTest(unittest.TestCase):
    def test_clean_log(self) -> None:
        self.assertEqual(logscan.scan(CLEAN), [])

    def test_each_checker(self) -> None:
        for log, kind in ((KASAN, 'KASAN'), (WARN, 'WARN'), (LOCKDEP, 'lockdep'),
                          (UBSAN, 'UBSAN'), (SLEEP, 'atomic sleep'), (LEAK, 'kmemleak')):
            with self.subTest(kind=kind):
                reports = logscan.scan(CLEAN + log + CLEAN)
                self.assertEqual([r.kind for r in reports], [kind])

    def test_report_block_ends_at_its_rule(self) -> None:
        (report,) = logscan.scan(KASAN)
        self.assertEqual(report.title, 'BUG: KASAN: slab-out-of-bounds in pie_drop_early+0x1a/0x90')
        self.assertNotIn('ok 2 pie_prob_update', '\n'.join(report.lines))

    def test_two_reports(self) -> None:
        self.assertEqual(len(logscan.scan(WARN + UBSAN)), 2)


if __name__ == '__main__':
    unittest.main()
