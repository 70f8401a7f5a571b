"""Parsing upstream's selftest output and judging it against a baseline."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

from kfork import guest_tests as gt
from kfork.counts import Counts

FTRACE = """\
=== Ftrace unit tests ===
[1] Kprobe dynamic event - adding and removing\t[PASS]
[2] Kprobe dynamic event with function tracer\t[UNSUPPORTED]
[3] Kprobe dynamic event - probing module\t[UNRESOLVED]
[4] Kprobe event argument syntax\t[FAIL]


# of passed:  1
"""

TDC = """\
ok 1 4812 - Create HHF with default setting
not ok 2 8a92 - Create HHF with limit setting
ok 3 83be - Create FQ-PIE with invalid number of flows # skipped - scapy not installed
"""


class GuestTestsTest(unittest.TestCase):
    def test_parse_ftrace(self) -> None:
        self.assertEqual(gt.parse_ftrace(FTRACE), {
            'Kprobe dynamic event - adding and removing': 'PASS',
            'Kprobe dynamic event with function tracer': 'UNSUPPORTED',
            'Kprobe dynamic event - probing module': 'UNRESOLVED',
            'Kprobe event argument syntax': 'FAIL'})

    def test_a_case_cut_off_by_the_timeout_is_named(self) -> None:
        text = '[1] Kprobe profile\t[PASS]\n[2] Kprobe event parser error log check'
        self.assertEqual(gt.parse_ftrace(text), {'Kprobe profile': 'PASS',
                                                 'Kprobe event parser error log check': 'TIMEOUT'})

    def test_parse_tdc(self) -> None:
        self.assertEqual(gt.parse_tdc(TDC), {
            '4812 - Create HHF with default setting': 'PASS',
            '8a92 - Create HHF with limit setting': 'FAIL',
            '83be - Create FQ-PIE with invalid number of flows': 'SKIP'})

    def test_fork_must_pass_what_upstream_passes(self) -> None:
        base = {'a': 'PASS', 'b': 'UNSUPPORTED', 'c': 'FAIL'}
        got = {'a': 'FAIL', 'b': 'UNSUPPORTED', 'c': 'PASS'}
        verdicts = {v.name: v for v in gt.judge('fork', base, got)}
        self.assertTrue(verdicts['a'].failed)
        self.assertFalse(verdicts['b'].failed)
        self.assertFalse(verdicts['c'].failed)
        self.assertIn('FAIL on upstream', verdicts['c'].note)

    def test_missing_test_fails_the_fork(self) -> None:
        (v,) = gt.judge('fork', {'a': 'PASS'}, {})
        self.assertTrue(v.failed)

    def test_upstream_differences_mean_a_stale_baseline(self) -> None:
        (v,) = gt.judge('upstream-impl', {'c': 'FAIL'}, {'c': 'PASS'})
        self.assertTrue(v.failed)
        self.assertIn('stale', v.note)

    def test_an_own_suite_skip_counts_as_skipped_with_its_reason(self) -> None:
        text = ('TAP version 13\n1..3\nok 1 a\n'
                'ok 2 b # SKIP bpftrace is not installed (Debian package bpftrace)\n'
                'not ok 3 c\n')
        got = gt.parse_own(text)
        self.assertEqual(got['b'], gt.OWN_SKIP + 'bpftrace is not installed '
                         '(Debian package bpftrace)')
        verdicts = gt.judge('fork', {name: gt.PASS for name in got}, got, own=True)
        self.assertEqual(gt.counts(verdicts), Counts(passed=1, failed=1, skipped=1))
        self.assertIn('ok 2 b # SKIP bpftrace is not installed (Debian package bpftrace)',
                      gt.tap('clients', verdicts))

    def test_tap_and_closing_line(self) -> None:
        base = {'a': 'PASS', 'b': 'UNSUPPORTED'}
        lines = gt.tap('ftrace', gt.judge('fork', base, {'a': 'PASS', 'b': 'UNSUPPORTED'}))
        self.assertEqual(lines[-1], 'ftrace: 1 passed, 0 failed, 1 skipped')
        self.assertIn('ok 2 b # SKIP UNSUPPORTED as on upstream', lines)

    def test_baseline_round_trip(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            results = {'x - y': 'PASS', 'z': 'UNSUPPORTED'}
            gt.write_baseline('ftrace', results, 'header line', Path(tmp))
            self.assertEqual(gt.load_baseline('ftrace', Path(tmp)), results)


if __name__ == '__main__':
    unittest.main()
