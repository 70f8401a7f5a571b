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


# KCSAN's report as lib/kcsan/report.c prints it: the title names both
# sides, then each access with its stack, the value seen to change, the
# reporting CPU, and the closing rule.
def kcsan(first: str, second: str) -> str:
    return f"""\
[    5.0] ==================================================================
[    5.1] BUG: KCSAN: data-race in {first} / {second}
[    5.2]
[    5.3] read-write to 0xffff88800a1b2c40 of 8 bytes by task 231 on cpu 0:
[    5.4]  {first}+0x5c/0x2a0
[    5.5]  handler_chain+0x8f/0x170
[    5.6]
[    5.7] read to 0xffff88800a1b2c40 of 8 bytes by task 232 on cpu 1:
[    5.8]  {second}+0x13/0x40 [trace_printk]
[    5.9]  ? seq_read_iter+0x10/0x400
[    5.10]
[    5.11] value changed: 0x0000000000000c7a -> 0x0000000000000c7b
[    5.12]
[    5.13] Reported by Kernel Concurrency Sanitizer on:
[    5.14] CPU: 1 PID: 232 Comm: hammer Not tainted 6.1.192 #1
[    5.15] ==================================================================
"""


class KcsanTest(unittest.TestCase):
    def test_a_race_is_one_kcsan_report_naming_its_functions(self) -> None:
        reports = logscan.scan(kcsan('uprobe_dispatcher', 'probes_profile_seq_show'))
        self.assertEqual([r.kind for r in reports], [logscan.KCSAN])
        self.assertEqual(reports[0].functions,
                         {'uprobe_dispatcher', 'probes_profile_seq_show', 'handler_chain',
                          'seq_read_iter'})
        self.assertIn('value changed: 0x0000000000000c7a -> 0x0000000000000c7b',
                      reports[0].lines)

    def test_a_race_fails_the_run_when_it_names_the_projects_function(self) -> None:
        own = {'uprobe_dispatcher'}
        mine = logscan.scan(kcsan('uprobe_dispatcher', 'uprobe_dispatcher'))
        elsewhere = logscan.scan(kcsan('rcu_core', 'tick_sched_timer'))
        one_side = logscan.scan(kcsan('seq_read_iter', 'uprobe_dispatcher'))
        self.assertEqual(logscan.sort_races(mine + elsewhere + one_side, own),
                         (mine + one_side, elsewhere))

    def test_a_written_down_finding_is_listed(self) -> None:
        race = logscan.scan(kcsan('uprobe_dispatcher', 'uprobe_dispatcher'))
        self.assertEqual(logscan.sort_races(race, {'uprobe_dispatcher'},
                                            ['data-race in uprobe_dispatcher /']),
                         ([], race))

    def test_other_reports_fail_whatever_they_name(self) -> None:
        kasan = logscan.scan(KASAN)
        self.assertEqual(logscan.sort_races(kasan, set(), ['pie_drop_early']), (kasan, []))

    def test_a_race_of_unknown_origin_names_its_function(self) -> None:
        log = ('[ 6.0] BUG: KCSAN: data-race in hhf_dequeue+0x1a/0x90\n'
               '[ 6.1] ==================================================================\n')
        self.assertEqual(logscan.scan(log)[0].functions, {'hhf_dequeue'})
