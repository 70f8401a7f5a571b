"""Counts from the parsers to the closing lines, and make check's sum."""

from __future__ import annotations

import contextlib
import io
import tempfile
import unittest
from pathlib import Path
from typing import Optional

from kfork import check
from kfork.counts import COUNTS_ENV, Counts, close, total


class CountsTest(unittest.TestCase):
    def test_arithmetic(self) -> None:
        a = Counts(passed=3, failed=1, skipped=2, crashed=1)
        b = Counts(passed=1, skipped=1)
        self.assertEqual(a + b, Counts(4, 1, 3, 1))
        self.assertEqual(total([a, b, Counts()]), a + b)
        self.assertEqual(total([]), Counts())
        self.assertEqual(a.failures, 2)
        self.assertEqual(a.total, 7)
        self.assertFalse(a.ok)
        self.assertTrue(b.ok)

    def test_crashes_print_as_failed(self) -> None:
        counts = Counts(passed=5, failed=1, skipped=2, crashed=2)
        self.assertEqual(counts.line('kunit'), 'kunit: 5 passed, 3 failed, 2 skipped')
        self.assertEqual(counts.cell(), '5/3/2')

    def test_json_round_trip(self) -> None:
        counts = Counts(passed=3458, failed=0, skipped=74, crashed=1)
        self.assertEqual(Counts.from_json(counts.to_json()), counts)

    def test_json_that_is_no_counts(self) -> None:
        for text in ('[]', '{"passed": 1}', '{"passed": -1, "failed": 0, "skipped": 0, '
                     '"crashed": 0}', '{"passed": true, "failed": 0, "skipped": 0, '
                     '"crashed": 0}', 'kunit: 1 passed'):
            with self.subTest(text=text), self.assertRaises(ValueError):
                Counts.from_json(text)

    def test_close_prints_and_writes_when_asked(self) -> None:
        counts = Counts(passed=2, skipped=1)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'counts.json'
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                close('guest', counts, env={COUNTS_ENV: str(path)})
                close('guest', counts, env={})
            self.assertEqual(out.getvalue().splitlines(),
                             ['guest: 2 passed, 0 failed, 1 skipped'] * 2)
            self.assertEqual(Counts.from_json(path.read_text()), counts)
            self.assertEqual([p.name for p in Path(tmp).iterdir()], ['counts.json'])


class CheckTest(unittest.TestCase):
    """ci/check's stages as it records them: N.status and, when the tool
    wrote them, N.json."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.folder = Path(self.tmp.name)
        self.n = 0

    def stage(self, status: int, counts: Optional[Counts] = None, raw: str = '') -> None:
        self.n += 1
        (self.folder / f'{self.n}.status').write_text(f'{status}\n')
        if counts is not None:
            (self.folder / f'{self.n}.json').write_text(counts.to_json())
        if raw:
            (self.folder / f'{self.n}.json').write_text(raw)

    def main(self) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = check.main([str(self.folder)])
        return status, out.getvalue()

    def test_sums_the_counts(self) -> None:
        self.stage(0)  # ci/check-tools
        self.stage(0)  # ci/checkpatch
        self.stage(0, Counts(passed=2000, skipped=60))
        self.stage(0, Counts(passed=10))
        self.stage(0, Counts(passed=1000, skipped=14))
        self.assertEqual(self.main(), (0, 'check: 3010 passed, 0 failed, 74 skipped\n'))

    def test_a_stage_failing_without_counts_is_one_failed_test(self) -> None:
        self.stage(1)
        self.stage(0, Counts(passed=3))
        self.stage(2, raw='{"passed": 1')  # cut short: no counts
        self.assertEqual(self.main(), (1, 'check: 3 passed, 2 failed, 0 skipped\n'))

    def test_a_failing_stage_with_counts_counts_them(self) -> None:
        # A checker report fails the run although every test passed.
        self.stage(1, Counts(passed=4))
        self.stage(0, Counts(passed=1, crashed=1))
        stages = check.read_stages(self.folder)
        self.assertEqual(check.summary(stages), Counts(passed=5, crashed=1))
        self.assertEqual(self.main(), (1, 'check: 5 passed, 1 failed, 0 skipped\n'))

    def test_a_failed_test_fails_the_check(self) -> None:
        self.stage(0, Counts(passed=1, failed=1))
        self.assertEqual(self.main()[0], 1)

    def test_stages_in_the_order_they_ran(self) -> None:
        for status in range(12):
            self.stage(status)
        self.assertEqual([s.status for s in check.read_stages(self.folder)], list(range(12)))


if __name__ == '__main__':
    unittest.main()
