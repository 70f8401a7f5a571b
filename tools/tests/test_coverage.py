"""tools/coverage: the parts that run without a kernel."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import Any
from unittest import mock

from kfork import coverage as cov
from kfork import coverage_cli, deps, session, tree
from kfork.common import COLUMNS, FORK, UPSTREAM_IMPL, VARIANTS, WORK_ENV
from kfork.counts import Counts

# A stand-in for an overlay file: one decision in pick(), none in main().
PROGRAM = """\
int pick(int n)
{
\tif (n > 2)
\t\treturn 1;
\treturn 0;
}

int main(int argc, char **argv)
{
\t(void)argv;
\treturn pick(argc);
}
"""


class Options(unittest.TestCase):
    def test_profiles_compiled_files_only(self) -> None:
        paths = ['net/sched/sch_pie.c', 'net/sched/sch_qdisc_kunit.h',
                 'kernel/trace/trace_probe.c', 'kernel/trace/trace_probe.h']
        self.assertEqual(cov.make_options(paths),
                         ['GCOV_PROFILE_sch_pie.o=y', 'GCOV_PROFILE_trace_probe.o=y'])

    def test_snapshot_path_follows_debugfs(self) -> None:
        # debugfs: /sys/kernel/debug/gcov/<absolute build dir>/<dir>/<stem>.gcda
        got = cov.snapshot_file(Path('/r'), 'kunit', Path('/w/build/fork'), 'net/sched/a.c')
        self.assertEqual(got, Path('/r/gcov/kunit/w/build/fork/net/sched/a.gcda'))

    def test_missing_file_is_zero_with_reason(self) -> None:
        figures = cov.Figures.missing('not built with gcov')
        self.assertEqual(figures.cell('line'), '0% (no data)')
        self.assertEqual(figures.percent('branch'), 0.0)


def measured(variant: str) -> cov.Measured:
    """What a run of two files, one without data, leaves."""
    paths = ('net/sched/a.c', 'net/sched/b.c')
    figures = cov.Figures({'line': (9, 10), 'branch': (3, 4), 'function': (2, 2)})
    sets = {name: {paths[0]: figures, paths[1]: cov.Figures.missing('never ran')}
            for name, _ in cov.TEST_SETS}
    return cov.Measured(cov.VariantData(variant, ['kunit', 'selftests', 'guest'], sets), paths,
                        Counts(passed=5, skipped=1, crashed=1) if variant == FORK else None,
                        Counts(passed=7, failed=1), Path(f'/out/html/{variant}/index.html'))


class Report(unittest.TestCase):
    """tools/coverage report reads what run kept, and nothing else."""

    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        env = mock.patch.dict(os.environ, {WORK_ENV: str(self.tmp / 'work')})
        env.start()
        self.addCleanup(env.stop)

    def test_measured_json_round_trip(self) -> None:
        for variant in VARIANTS:
            self.assertEqual(cov.Measured.from_json(measured(variant).to_json()),
                             measured(variant))
        with self.assertRaises(ValueError):
            cov.Measured.from_json('{"variant": "fork"}')

    def report(self) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()

        def forbidden(*args: Any, **kwargs: Any) -> None:
            raise AssertionError('report must only read the last run')

        with mock.patch.object(deps, 'ensure', forbidden), \
                mock.patch.object(session, 'prepare', forbidden), \
                mock.patch.object(tree, 'sync', forbidden), \
                mock.patch.object(subprocess, 'run', forbidden), \
                mock.patch.object(subprocess, 'Popen', forbidden), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = coverage_cli.main(['report', '--out', str(self.tmp / 'out')])
        return status, out.getvalue(), err.getvalue()

    def test_report_only_reads(self) -> None:
        for variant in VARIANTS:
            folder = self.tmp / 'work' / 'coverage' / variant
            folder.mkdir(parents=True)
            (folder / cov.MEASURED).write_text(measured(variant).to_json())
            (folder / 'status').write_text('0\n')
        status, out, err = self.report()
        self.assertEqual(status, 0, err)
        self.assertIn('| net/sched/a.c | make check | ', out)
        self.assertIn(f'{FORK}: phases reached: kunit, selftests, guest; '
                      'KUnit: 5 passed, 1 failed, 1 skipped; '
                      'guest suites: 7 passed, 1 failed, 0 skipped', out)
        self.assertIn(f'{UPSTREAM_IMPL}: phases reached: kunit, selftests, guest; '
                      'KUnit: no log (the guest never reached init)', out)
        self.assertEqual((self.tmp / 'out/coverage.md').read_text(), out)
        self.assertIn(f'/out/html/{COLUMNS[0]}/index.html', err)

    def test_report_before_any_run(self) -> None:
        status, out, err = self.report()
        self.assertEqual(status, 2)
        self.assertEqual(out, '')
        self.assertRegex(err, r'^tools/coverage: error: \S+: no measured coverage run in .*: '
                              r'run tools/coverage run first\n$')


@unittest.skipUnless(shutil.which('gcc') and shutil.which('gcovr'),
                     'needs gcc and gcovr (apt-get install gcc gcovr)')
class Measure(unittest.TestCase):
    """The whole chain on a program laid out like the kernel: sources in
    a tree, objects in a build folder, counters of each phase where
    tools/guest/coverage copies them (GCOV_PREFIX puts a program's
    .gcda under a prefix + the object's absolute path, as debugfs does)."""

    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.src, self.build, self.folder = (self.tmp / n for n in ('src', 'build', 'run'))
        (self.src / 'net/sched').mkdir(parents=True)
        (self.src / 'net/sched/pick.c').write_text(PROGRAM)
        (self.build / 'net/sched').mkdir(parents=True)
        subprocess.run(['gcc', '-O0', '--coverage', '-o', 'net/sched/pick',
                        str(self.src / 'net/sched/pick.c')], cwd=self.build, check=True)
        # gcc names the notes after the output when it links in one step.
        for made in (self.build / 'net/sched').glob('*.gcno'):
            made.rename(self.build / 'net/sched/pick.gcno')

    def run_phase(self, phase: str, args: list[str]) -> None:
        # the boot phase's guest is a second boot, with a folder of its own
        guest = self.folder / 'boot' if phase == 'boot' else self.folder
        env = dict(os.environ, GCOV_PREFIX=str(guest / 'gcov' / phase))
        subprocess.run([str(self.build / 'net/sched/pick'), *args], env=env, check=False)
        for made in (guest / 'gcov' / phase).rglob('*.gcda'):
            made.rename(made.with_name('pick.gcda'))

    def test_sets_add_up_their_phases(self) -> None:
        # kunit and guest: argc 1, pick() takes its false branch; boot
        # (the second boot): argc 4, the true one. No selftests phase:
        # that guest "died" before it.
        self.run_phase('kunit', [])
        self.run_phase('guest', [])
        self.run_phase('boot', ['a', 'b', 'c'])
        paths = ['net/sched/pick.c', 'net/sched/gone.c', 'net/sched/pick.h']
        data = cov.measure('fork', self.src, self.build, self.folder, paths, self.tmp / 'out')
        self.assertEqual(data.reached, ['kunit', 'guest', 'boot'])
        unit, both = data.sets['KUnit']['net/sched/pick.c'], data.sets['make check']['net/sched/pick.c']
        # One decision, two outcomes; two functions, both entered by any run.
        self.assertEqual(unit.counts['branch'], (1, 2))
        self.assertEqual(both.counts['branch'], (2, 2))
        self.assertEqual(unit.counts['function'], (2, 2))
        # Only `return 1;` is missed by the first run; the sum misses nothing.
        self.assertEqual(unit.counts['line'][0], unit.counts['line'][1] - 1)
        self.assertEqual(both.counts['line'][0], both.counts['line'][1])
        self.assertEqual(unit.counts['line'][1], both.counts['line'][1])
        self.assertIn('not built with gcov', data.sets['make check']['net/sched/gone.c'].reason)
        self.assertIn('no profiled file', data.sets['make check']['net/sched/pick.h'].reason)
        self.assertIn('never reached the selftests phase',
                      data.sets['upstream selftests']['net/sched/pick.c'].reason)
        self.assertTrue((self.tmp / 'out/html/fork/index.html').is_file())
        self.assertEqual(cov.below_bar(data, ['net/sched/pick.c']), [])
        table = cov.table([data], paths)
        self.assertIn('| net/sched/pick.c | KUnit | ', table[3])
        self.assertTrue(any('gone.c under make check: not built with gcov' in line
                            for line in table))


if __name__ == '__main__':
    unittest.main()
