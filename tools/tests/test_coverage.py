"""tools/coverage: the parts that run without a kernel."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from kfork import coverage as cov

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
        env = dict(os.environ, GCOV_PREFIX=str(self.folder / 'gcov' / phase))
        subprocess.run([str(self.build / 'net/sched/pick'), *args], env=env, check=False)
        for made in (self.folder / 'gcov' / phase).rglob('*.gcda'):
            made.rename(made.with_name('pick.gcda'))

    def test_sets_add_up_their_phases(self) -> None:
        # kunit: argc 1, pick() takes its false branch; guest: argc 4,
        # the true one. No selftests phase: that guest "died" before it.
        self.run_phase('kunit', [])
        self.run_phase('guest', ['a', 'b', 'c'])
        paths = ['net/sched/pick.c', 'net/sched/gone.c', 'net/sched/pick.h']
        data = cov.measure('fork', self.src, self.build, self.folder, paths, self.tmp / 'out')
        self.assertEqual(data.reached, ['kunit', 'guest'])
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
