"""tools/measure: the sections' registry, their formatting and the
splicing into MEASUREMENTS.md, with a stand-in runner (nothing heavy runs)."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import unittest
from pathlib import Path
from types import MappingProxyType
from typing import Dict, List, Mapping, Optional, Sequence, Tuple
from unittest import mock

from kfork import bench, check, coverage, measure
from kfork.common import FORK, UPSTREAM_IMPL, ToolError, project_root
from kfork.counts import COUNTS_ENV, Counts

DOC = """\
# Measurements

Hand-measured: 31 s.
<!-- BEGIN measure:loop -->
old loop
<!-- END measure:loop -->

Between the sections.
<!-- BEGIN measure:vm-bench -->
old bench
<!-- END measure:vm-bench -->
tail without a newline"""


class FakeRunner(measure.Runner):
    """Records what a section asks for and answers with set results."""

    def __init__(self, results: Optional[Dict[Tuple[str, ...], measure.Result]] = None,
                 figures: Optional[bench.Figures] = None) -> None:
        super().__init__()
        self.results = results or {}
        self.figures = figures or {}
        self.ran: List[Tuple[str, ...]] = []
        self.summary: Optional[str] = None

    def date(self) -> str:
        return '2026-12-05'

    def nproc(self) -> int:
        return 2

    def command(self, argv: Sequence[str], env: Mapping[str, str] = MappingProxyType({})
                ) -> measure.Result:
        self.ran.append(tuple(f'{k}={v}' for k, v in env.items()) + tuple(argv))
        if self.summary is not None:
            self.coverage_out.mkdir(parents=True, exist_ok=True)
            (self.coverage_out / coverage.SUMMARY).write_text(self.summary)
        return self.results.get(self.ran[-1], measure.Result(71.4, 0, None))

    def kunit_bench(self, boots: int, glob: str, production: bool
                    ) -> Tuple[bench.Figures, float]:
        self.ran.append(('kunit-bench', str(boots), glob, str(production)))
        return self.figures, 290.0

    def vm_bench(self, boots: int, production: bool) -> Tuple[bench.Figures, float]:
        self.ran.append(('vm-bench', str(boots), str(production)))
        return self.figures, 300.0


class VcpusTest(unittest.TestCase):
    def test_each_command_on_one_vcpu_and_on_two(self) -> None:
        runner = FakeRunner({('KFORK_VCPUS=1', './tools/kunit', 'run'):
                             measure.Result(95.0, 0, Counts(passed=1603, skipped=10))})
        lines = measure.measure_vcpus(runner)
        self.assertEqual(runner.ran, [(f'KFORK_VCPUS={n}', *argv) for argv in measure.VCPU_RUNS
                                      for n in (1, 2)])
        self.assertIn('| `./tools/kunit run` | 1 | 1 min 35 s | 0 | 1603/0/10 |', lines)
        self.assertIn('| `./tools/kunit run` | 2 | 1 min 11 s | 0 | - |', lines)


class SpliceTest(unittest.TestCase):
    def test_only_the_section_changes(self) -> None:
        text = measure.splice(DOC, 'loop', ['new 1', '', 'new 2'])
        self.assertEqual(text, DOC.replace('old loop\n', 'new 1\n\nnew 2\n'))
        self.assertEqual(measure.splice(text, 'loop', ['old loop']), DOC)

    def test_an_empty_section(self) -> None:
        text = measure.splice(DOC, 'vm-bench', [])
        self.assertEqual(text, DOC.replace('old bench\n', ''))
        self.assertEqual(measure.splice(text, 'vm-bench', ['old bench']), DOC)

    def test_markers_must_be_one_pair_in_order(self) -> None:
        broken = {
            'missing': DOC.replace('<!-- END measure:loop -->\n', ''),
            'twice': DOC + '\n<!-- BEGIN measure:loop -->\n',
            'reversed': '<!-- END measure:loop -->\nx\n<!-- BEGIN measure:loop -->\n',
            'inline': 'text <!-- BEGIN measure:loop -->\n<!-- END measure:loop -->\n',
        }
        for why, text in broken.items():
            with self.subTest(why=why), self.assertRaises(ToolError):
                measure.splice(text, 'loop', ['x'])

    def test_sections_in(self) -> None:
        self.assertEqual(measure.sections_in(DOC), ['loop', 'vm-bench'])


class RegistryTest(unittest.TestCase):
    def test_names_unique(self) -> None:
        names = [s.name for s in measure.SECTIONS]
        self.assertEqual(len(names), len(set(names)))
        self.assertLessEqual({'loop', 'kunit-bench', 'vm-bench', 'coverage'}, set(names))

    def test_the_file_holds_every_section(self) -> None:
        text = measure.MEASUREMENTS.read_text()
        self.assertEqual(sorted(measure.sections_in(text)),
                         sorted(s.name for s in measure.SECTIONS))
        for s in measure.SECTIONS:
            self.assertEqual(measure.splice(text, s.name, text.splitlines()[
                text.splitlines().index(measure.begin(s.name)) + 1:
                text.splitlines().index(measure.end(s.name))]), text)

    def test_loop_commands_are_the_project_entries(self) -> None:
        for argv, what in measure.LOOP:
            with self.subTest(argv=argv):
                self.assertTrue(what)
                self.assertTrue(os.access(project_root() / argv[0], os.X_OK))

    def test_unknown_section(self) -> None:
        with self.assertRaises(ToolError):
            measure.section('nosuch')

    def test_list_marks_sections_without_markers(self) -> None:
        lines = measure.list_lines(['loop'])
        width = len('kunit-bench-debug')
        self.assertEqual(lines[0], f'{"loop":<{width}}  ./tools/kunit run')
        self.assertIn(f"{'kunit-bench':<{width}}  ./tools/kunit bench --boots 3"
                      "  (no markers in the file)", lines)
        self.assertIn(f"{'probe-bench':<{width}}  ./tools/kunit bench --boots 6 'probe_*_bench'"
                      "  (no markers in the file)", lines)


class FormatTest(unittest.TestCase):
    def test_duration(self) -> None:
        self.assertEqual([measure.duration(s) for s in (0.4, 45, 71.4, 599.6, 3725)],
                         ['0 s', '45 s', '1 min 11 s', '10 min 0 s', '1 h 2 min'])

    def test_shell_quotes_globs(self) -> None:
        self.assertEqual(measure.shell(['./tools/kunit', 'run', 'probe_fuzz.fuzz_[pn]*']),
                         "./tools/kunit run 'probe_fuzz.fuzz_[pn]*'")

    def test_loop_rows(self) -> None:
        full = ('./tools/kunit', 'compare', '--full')
        runner = FakeRunner({full: measure.Result(1500.0, 1, Counts(2800, 1, 60, 1))})
        lines = measure.measure_loop(runner)
        self.assertEqual(runner.ran, [argv for argv, _ in measure.LOOP])
        self.assertEqual(lines[0], 'Measured on 2026-12-05 on 2 cores (`nproc`), each command '
                         'run in turn, as the table lists them, with its wall-clock time, exit '
                         'status and the counts it handed over; regenerate with '
                         '`./tools/measure loop`.')
        self.assertEqual(lines[2:4], measure.LOOP_HEAD)
        rows = lines[4:]
        self.assertEqual(len(rows), len(measure.LOOP))
        self.assertTrue(rows[0].startswith('| `./tools/kunit run` | '))
        self.assertTrue(rows[0].endswith(' | 1 min 11 s | 0 | - |'))
        at = [argv for argv, _ in measure.LOOP].index(full)
        self.assertTrue(rows[at].endswith(' | 25 min 0 s | 1 | 2800/2/60 |'))

    def test_a_row_to_be_remeasured(self) -> None:
        self.assertEqual(measure.loop_row(['make', 'check'], 'all', None),
                         '| `make check` | all | to be re-measured |  |  |')

    def test_bench_section(self) -> None:
        figures = {'pie.update_ns': {UPSTREAM_IMPL: [400.0, 500.0], FORK: [330.0, 300.0]}}
        runner = FakeRunner(figures=figures)
        lines = measure.section('probe-bench').measure(runner)
        self.assertEqual(runner.ran, [('kunit-bench', '6', 'probe_*_bench', 'True')])
        self.assertIn("`./tools/kunit bench --boots 6 'probe_*_bench'` on the production "
                      "kernels (kunit/production.kunitconfig), 4 min 50 s", lines[0])
        self.assertEqual(lines[2], f'| figure | {UPSTREAM_IMPL} | {FORK} | ratio | per boot '
                                   '| verdict |')
        self.assertEqual(lines[4], '| `pie.update_ns` | 450 (400-500) | 315 (300-330) | 0.70 '
                                   '| 0.60-0.82 | faster |')
        lines = measure.section('kunit-bench').measure(runner)
        self.assertIn('`./tools/kunit bench --boots 3` on the production', lines[0])
        self.assertEqual(measure.section('vm-bench').measure(runner)[4], lines[4])
        lines = measure.section('kunit-bench-debug').measure(runner)
        self.assertIn('`./tools/kunit bench --boots 3 --debug` on the debug kernels', lines[0])
        self.assertIn('`./tools/vm bench --boots 3 --debug` on the debug kernels',
                      measure.section('vm-bench-debug').measure(runner)[0])
        self.assertEqual(runner.ran[-1], ('vm-bench', '3', 'False'))

    def test_coverage_section_from_the_summary(self) -> None:
        def figures(line: Tuple[int, int], branch: Tuple[int, int]) -> coverage.Figures:
            return coverage.Figures({'line': line, 'branch': branch, 'function': (1, 1)})

        data = [coverage.VariantData(variant, ['kunit', 'selftests', 'guest'], {
            'make check': {'net/sched/sch_pie.c': figures((218, 220), (157, 164)),
                           'net/sched/sch_pie_kunit.c': figures((238, 238), (105, 164))},
            'KUnit': {'net/sched/sch_pie.c': figures((1, 220), (1, 164)),
                      'net/sched/sch_pie_kunit.c': figures((1, 238), (1, 164))},
            'upstream selftests': {'net/sched/sch_pie.c': figures((33, 211), (17, 164)),
                                   'net/sched/sch_pie_kunit.c': figures((0, 238), (0, 164))},
        }) for variant in (FORK, UPSTREAM_IMPL)]
        with tempfile.TemporaryDirectory() as tmp:
            runner = FakeRunner()
            runner.coverage_out = Path(tmp) / 'cov'
            runner.summary = coverage.summary_json(data)
            lines = measure.measure_coverage(runner)
            self.assertEqual(runner.ran, [('./tools/coverage', 'run', '--out',
                                           str(runner.coverage_out))])
        self.assertIn('`./tools/coverage run --out ', lines[0])
        self.assertEqual(lines[2], f'| file | tests | {UPSTREAM_IMPL} lines | '
                         f'{UPSTREAM_IMPL} branches | {FORK} lines | {FORK} branches |')
        # the suite's own file is left out
        self.assertEqual(lines[4:6], [
            '| `sch_pie.c` | make check | 218/220 99.1% | 157/164 95.7% '
            '| 218/220 99.1% | 157/164 95.7% |',
            '| `sch_pie.c` | upstream selftests | 33/211 15.6% | 17/164 10.4% '
            '| 33/211 15.6% | 17/164 10.4% |'])
        self.assertEqual(lines[6], '')

    def test_coverage_without_a_summary_stops(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            runner = FakeRunner({})
            runner.coverage_out = Path(tmp)
            with self.assertRaises(ToolError):
                measure.measure_coverage(runner)

    def test_check_section(self) -> None:
        runner = FakeRunner({('make', 'check'): measure.Result(2400.0, 0, Counts(3000, 0, 70))})
        lines = measure.section('check').measure(runner)
        self.assertEqual(lines[2:], ['- wall-clock time: 40 min 0 s', '- exit status: 0',
                                     '- `check: 3000 passed, 0 failed, 70 skipped`'])


class MainTest(unittest.TestCase):
    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.path = Path(tmp.name) / 'MEASUREMENTS.md'
        self.path.write_text(DOC)

    def main(self, *argv: str, runner: Optional[measure.Runner] = None) -> Tuple[int, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = measure.main(['--file', str(self.path), *argv], runner or FakeRunner())
        return status, out.getvalue() + err.getvalue()

    def test_rewrites_the_named_section_only(self) -> None:
        status, _ = self.main('loop')
        self.assertEqual(status, 0)
        text = self.path.read_text()
        self.assertEqual(measure.splice(text, 'loop', ['old loop']), DOC)
        self.assertIn('regenerate with `./tools/measure loop`', text)
        self.assertEqual([p.name for p in self.path.parent.iterdir()], ['MEASUREMENTS.md'])

    def test_no_markers_stops_before_running(self) -> None:
        runner = FakeRunner()
        status, out = self.main('loop', 'coverage', runner=runner)
        self.assertEqual(status, 2)
        self.assertIn('section coverage', out)
        self.assertEqual(runner.ran, [])
        self.assertEqual(self.path.read_text(), DOC)

    def test_a_failed_measurement_leaves_the_file(self) -> None:
        class Failing(FakeRunner):
            def vm_bench(self, boots: int, production: bool) -> Tuple[bench.Figures, float]:
                raise ToolError('fork: the benchmark guest failed')

        status, out = self.main('vm-bench', runner=Failing())
        self.assertEqual(status, 2)
        self.assertIn('the benchmark guest failed', out)
        self.assertEqual(self.path.read_text(), DOC)

    def test_list(self) -> None:
        status, out = self.main('--list')
        self.assertEqual(status, 0)
        self.assertEqual(out.splitlines(), measure.list_lines(['loop', 'vm-bench']))

    def test_the_runner_hands_counts_over(self) -> None:
        """Runner.command: the exit status, and the counts the command
        wrote to the file $KFORK_COUNTS named."""
        script = ('import os, pathlib, sys; pathlib.Path(os.environ["KFORK_COUNTS"])'
                  f'.write_text({Counts(3, 1, 2).to_json()!r}); sys.exit(1)')
        env = dict(os.environ)
        with mock.patch.dict(os.environ, env), contextlib.redirect_stderr(io.StringIO()):
            result = measure.Runner(clock=iter([10.0, 12.5]).__next__).command(
                ['python3', '-c', script])
        self.assertEqual(result, measure.Result(2.5, 1, Counts(3, 1, 2)))
        with mock.patch.dict(os.environ, env), contextlib.redirect_stderr(io.StringIO()):
            result = measure.Runner().command(['true'])
        self.assertEqual((result.status, result.counts), (0, None))


class CheckCountsTest(unittest.TestCase):
    def test_make_check_hands_its_sum_over(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / '1.status').write_text('0\n')
            (folder / '1.json').write_text(Counts(5, 0, 1).to_json())
            (folder / '2.status').write_text('1\n')
            target = folder / 'sum.json'
            with mock.patch.dict(os.environ, {COUNTS_ENV: str(target)}), \
                    contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(check.main([str(folder)]), 1)
            self.assertEqual(out.getvalue(), 'check: 5 passed, 1 failed, 1 skipped\n')
            self.assertEqual(Counts.from_json(target.read_text()), Counts(5, 1, 1))


class SummaryTest(unittest.TestCase):
    def test_round_trip(self) -> None:
        figures = coverage.Figures({'line': (1, 2), 'branch': (3, 4), 'function': (5, 6)})
        data = [coverage.VariantData(FORK, ['kunit'], {'KUnit': {'a.c': figures}})]
        self.assertEqual(coverage.read_summary(coverage.summary_json(data)),
                         {FORK: {'KUnit': {'a.c': figures}}})
        for text in ('[]', '{"fork": {"KUnit": {"a.c": {"line": [1]}}}}'):
            with self.subTest(text=text), self.assertRaises(ValueError):
                coverage.read_summary(text)


if __name__ == '__main__':
    unittest.main()
