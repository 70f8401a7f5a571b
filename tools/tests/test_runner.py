"""Judging a KUnit run: counts, marked tests, causes, kunitconfig includes."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock
from typing import Any, List

from kfork import marks, runner, session, tree
from kfork.common import ToolError, WorkArea
from kfork.counts import Counts

RESULTS = {
    'name': 'KUnit Test Group', 'sub_groups': [
        {'name': 'pie_math', 'test_cases': [{'name': 'defaults', 'status': 'PASS'},
                                            {'name': 'capped', 'status': 'FAIL'}],
         'sub_groups': [{'name': 'update', 'sub_groups': [],
                         'test_cases': [{'name': 'rise', 'status': 'PASS'},
                                        {'name': 'fall', 'status': 'SKIP'}]}]},
        {'name': 'hhf', 'test_cases': [{'name': 'boom', 'status': 'ERROR'}],
         'sub_groups': []}],
    'test_cases': []}


class RunnerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.cases = runner.cases_from_json(json.dumps(RESULTS))

    def test_leaf_names(self) -> None:
        self.assertEqual(sorted(self.cases), ['hhf.boom', 'pie_math.capped',
                                              'pie_math.defaults', 'pie_math.update.fall',
                                              'pie_math.update.rise'])

    def test_crash_counts_as_failed(self) -> None:
        out = runner.Outcome('fork', self.cases)
        self.assertEqual(out.counts, Counts(passed=2, failed=1, skipped=1, crashed=1))
        self.assertEqual(out.counts.line('kunit'), 'kunit: 2 passed, 2 failed, 1 skipped')
        self.assertFalse(out.ok)

    def test_marked_failure_on_upstream_is_expected(self) -> None:
        marked = marks.Marked({'pie_math.capped': marks.Mark('fix', ('Expected p <= 1',), 'x')})
        logs = {'pie_math.capped': '# capped: EXPECTATION FAILED at a.c:3\nExpected p <= 1, but'}
        up = runner.Outcome('upstream-impl', self.cases, marked, logs=logs)
        self.assertEqual(up.counts, Counts(passed=2, skipped=2, crashed=1))
        self.assertTrue(any('as marked, a fix: "Expected p <= 1"' in n for n in up.notes()))
        fork = runner.Outcome('fork', self.cases, marked, logs=logs)
        self.assertEqual(fork.counts.failures, 2)

    def test_marked_failure_must_be_the_named_one(self) -> None:
        marked = marks.Marked({'pie_math.capped': marks.Mark('fix', ('Expected p <= 1',), 'x')})
        logs = {'pie_math.capped': 'Expected q == 2, but'}
        up = runner.Outcome('upstream-impl', self.cases, marked, logs=logs)
        self.assertEqual(up.counts, Counts(passed=2, failed=1, skipped=1, crashed=1))
        self.assertTrue(any('without its named failure "Expected p <= 1"' in n
                            for n in up.notes()))

    def test_marked_crash_is_no_difference(self) -> None:
        marked = marks.Marked({'hhf.boom': marks.Mark('fix', ('boom',), 'x')})
        up = runner.Outcome('upstream-impl', self.cases, marked, logs={'hhf.boom': 'boom'})
        self.assertEqual(up.counts.failures, 2)
        self.assertTrue(any('crashes on the upstream' in n for n in up.notes()))

    def test_marked_test_passing_on_upstream_fails(self) -> None:
        marked = marks.Marked({'pie_math.update': marks.Mark('feature', ('x',), 'y')})
        up = runner.Outcome('upstream-impl', self.cases, marked)
        self.assertEqual(up.counts.failures, 3)
        self.assertTrue(any('does not show the difference' in n for n in up.notes()))

    def test_marked_race_passing_on_upstream_is_no_failure(self) -> None:
        marked = marks.Marked({'pie_math.update': marks.Mark('race', ('x',), 'y')})
        up = runner.Outcome('upstream-impl', self.cases, marked)
        self.assertEqual(up.counts.failures, 2)
        self.assertFalse(any('does not show the difference' in n for n in up.notes()))

    def test_kcsan_findings_are_the_kcsan_entries_failures(self) -> None:
        marked = marks.Marked({'kcsan.nhit': marks.Mark('race', ('data-race in a /', 'b'), 'y'),
                               'pie_math.update': marks.Mark('fix', ('x',), 'y')})
        self.assertEqual(marked.kcsan_findings(), ('data-race in a /', 'b'))

    def test_expected_log_lines(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / 'test.log'
            self.assertEqual(runner.missing_lines(log, ['OK']), ['OK'])
            log.write_text('[ 1.0] Testing kprobe tracing: OK\n')
            self.assertEqual(runner.missing_lines(
                log, ['Testing kprobe tracing: OK', 'Testing tracer nop: PASSED']),
                ['Testing tracer nop: PASSED'])
        out = runner.Outcome('fork', {'a.b': 'PASS'}, missing=['Testing kprobe tracing: OK'])
        self.assertEqual(out.counts, Counts(passed=1, failed=1))
        self.assertIn('the console log lacks "Testing kprobe tracing: OK"', out.notes())

    def test_case_logs(self) -> None:
        log = '\n'.join([
            '[    1.0] KTAP version 1',
            '[    1.0] 1..1',
            '[    1.0]     KTAP version 1',
            '[    1.0]     # Subtest: pie_math',
            '[    1.0]     1..2',
            '[    1.1]     # capped: EXPECTATION FAILED at net/sched/a.c:9',
            '[    1.1]     Expected p <= 1, but',
            '[    1.1]         p == 2',
            '[    1.1]     not ok 1 capped',
            '[    1.2]         KTAP version 1',
            '[    1.2]         # Subtest: update',
            '[    1.2]     # update: EXPECTATION FAILED at net/sched/a.c:12',
            '[    1.2]         not ok 1 rise from 0',
            '[    1.2]         ok 2 fall # SKIP why',
            '[    1.2]     # update: pass:0 fail:1 skip:1 total:2',
            '[    1.2]     not ok 2 update',
            '[    1.3] # pie_math: pass:0 fail:2 skip:0 total:2',
            '[    1.3] not ok 1 pie_math',
        ])
        logs = runner.case_logs(log)
        self.assertIn('Expected p <= 1, but', logs['pie_math.capped'])
        self.assertIn('a.c:12', logs['pie_math.update.rise from 0'])
        self.assertEqual(logs['pie_math.update.fall'], '')
        self.assertNotIn('a.c:9', logs['pie_math.update.rise from 0'])
        self.assertNotIn('pie_math', logs)

    def test_no_results_is_a_failure(self) -> None:
        out = runner.Outcome('fork', {}, error='the kernel does not build: x')
        self.assertEqual(out.counts, Counts(failed=1))

    def test_reports_fail_a_passing_run(self) -> None:
        from kfork import logscan
        out = runner.Outcome('fork', {'a.b': 'PASS'},
                             reports=[logscan.Report('KASAN', ['BUG: KASAN: x'])])
        self.assertFalse(out.ok)

    def test_digests_alike_and_not(self) -> None:
        log = ('[  1.0]     # pie_diff_trajectory: kfork-diff: pie.a.0500 00ff\n'
               '[  1.1]     # pie_diff_trajectory: kfork-diff: pie.b.0500 0aaa\n')
        fork = runner.Outcome('fork', digests=runner.digests(log))
        self.assertEqual(fork.digests, {'pie.a.0500': '00ff', 'pie.b.0500': '0aaa'})
        upstream = runner.Outcome('upstream-impl',
                                  digests={'pie.a.0500': '00ff', 'pie.b.0500': '0bbb'})
        lines, digests = runner.compare_digests(
            {'upstream-impl': upstream.digests, 'fork': fork.digests})
        self.assertEqual(digests, Counts(passed=1, failed=1))
        self.assertEqual(lines, ['kfork: differential pie.b.0500 differs: '
                                 'upstream-impl 0bbb, fork 0aaa'])
        # A key only one build printed is a difference too.
        _, digests = runner.compare_digests(
            {'upstream-impl': upstream.digests, 'fork': {}})
        self.assertEqual(digests, Counts(failed=2))

    def test_marked_file(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'project-behaviour'
            path.write_text('# comment\npie_math.capped  fix  "Expected \\"p\\" <= 1"  '
                            'prob never exceeds 100%\n\npie_math.two  feature  "a b"  "c"  d\n')
            marked = marks.Marked.load(path)
            self.assertEqual(marked.entries, {
                'pie_math.capped': marks.Mark('fix', ('Expected "p" <= 1',),
                                               'prob never exceeds 100%'),
                'pie_math.two': marks.Mark('feature', ('a b', 'c'), 'd')})
            self.assertTrue(marked.entries['pie_math.two'].shown_in('x c y'))
            self.assertFalse(marked.entries['pie_math.two'].shown_in('a  b'))
            self.assertTrue(marked.covers('pie_math.capped'))
            self.assertTrue(marked.covers('pie_math.capped.param 1'))
            self.assertFalse(marked.covers('pie_math.capped_more'))
            for bad in ('pie_math.capped  prob never exceeds 100%\n',
                        'pie_math.capped  bugfix  "x"  y\n', 'pie_math.capped  fix  x  y\n'):
                path.write_text(bad)
                with self.assertRaisesRegex(ToolError, 'project-behaviour:1: not'):
                    marks.Marked.load(path)

    def test_the_project_file_loads(self) -> None:
        root = Path(__file__).resolve().parents[2]
        marked = marks.Marked.load(root / 'kunit' / 'project-behaviour')
        self.assertGreater(len(marked.entries), 20)

    def test_cause_names_missing_options(self) -> None:
        out = ['[08:00] Configuring KUnit Kernel ...',
               'ERROR:root:Not all Kconfig options selected in kunitconfig were in the '
               'generated .config.', 'Missing: CONFIG_NET_NS=y']
        self.assertIn('CONFIG_NET_NS=y', runner._cause(out))

    def test_cause_names_compile_error(self) -> None:
        out = ['$ make ARCH=x86_64 O=b --jobs=2',
               '../net/sched/sch_pie.c:12:3: error: expected ; before }',
               'make[2]: *** [scripts/Makefile.build:250: net/sched/sch_pie.o] Error 1']
        self.assertEqual(runner._cause(out), 'the kernel does not build: '
                         '../net/sched/sch_pie.c:12:3: error: expected ; before }')

    def test_cause_when_nothing_ran(self) -> None:
        out = ['[08:32:10] Testing complete. Ran 0 tests: errors: 1',
               '[08:32:11] Elapsed time: 36.145s total']
        self.assertIn('no test ran', runner._cause(out))

    def test_kunitconfig_includes(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            (base / 'kunit').mkdir()
            (base / 'kunit/a.config').write_text('CONFIG_A=y\n')
            cfg = base / '.kunitconfig'
            cfg.write_text('CONFIG_KUNIT=y\n# include: kunit/a.config\n# plain comment\n')
            self.assertEqual(runner.kunitconfig_files(cfg),
                             [cfg, (base / 'kunit/a.config').resolve()])
            cfg.write_text('# include: kunit/missing.config\n')
            with self.assertRaises(ToolError) as err:
                runner.kunitconfig_files(cfg)
            self.assertIn('kunit/missing.config', str(err.exception))


class KmemleakArgTest(unittest.TestCase):
    """kmemleak is set on every run's command line, off unless asked for:
    kunit.py puts --kernel_args before the QEMU config's line, so the
    QEMU config must not set it (the last setting wins)."""

    def _argv(self, kmemleak: bool) -> List[str]:
        work = WorkArea(Path('/nonexistent/work'))
        src = tree.Tree(Path('/nonexistent/src'))
        spec = session.spec(work, src, '6.1.0', 'fork', kmemleak=kmemleak,
                            kernel_args=('x.bench=1',))
        return spec.argv(Path('/nonexistent/results.json'))

    def test_off_by_default_on_when_asked(self) -> None:
        self.assertIn('--kernel_args=kmemleak=off', self._argv(False))
        on = self._argv(True)
        self.assertIn('--kernel_args=kmemleak=on', on)
        self.assertIn('--kernel_args=x.bench=1', on)

    def test_qemu_config_leaves_kmemleak_alone(self) -> None:
        self.assertNotIn('kmemleak', session.QEMU_CONFIG.read_text().split('kernel_command_line')[1])


if __name__ == '__main__':
    unittest.main()


class BuildReuseTest(unittest.TestCase):
    """A build folder is booted as it is only when its stamp names what
    would be built now: the tree's content, the configs, the make options."""

    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)
        self.tree = self.dir / 'tree'
        self.tree.mkdir()
        self._git('init', '-q')
        self._commit('a.c', 'one\n')
        self.config = self.dir / '.kunitconfig'
        self.config.write_text('CONFIG_KUNIT=y\n')
        self.build = self.dir / 'build'
        (self.build / 'arch/x86/boot').mkdir(parents=True)
        (self.build / 'arch/x86/boot/bzImage').write_bytes(b'kernel')

    def _git(self, *args: str) -> None:
        subprocess.run(['git', '-C', str(self.tree), '-c', 'user.name=t',
                        '-c', 'user.email=t@t', *args], check=True, capture_output=True)

    def _commit(self, name: str, text: str) -> None:
        (self.tree / name).write_text(text)
        self._git('add', name)
        self._git('commit', '-q', '-m', name)

    def _spec(self, **kw: Any) -> runner.RunSpec:
        return runner.RunSpec(self.tree, self.build, self.config, Path('/q'), **kw)

    def _reuse(self, spec: runner.RunSpec) -> bool:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return runner._reuse_build(spec, 'fork')[0].built

    def _stamp(self, spec: runner.RunSpec) -> None:
        runner._stamp_build(spec, runner.build_key(spec))

    def test_no_stamp_builds(self) -> None:
        self.assertFalse(self._reuse(self._spec()))

    def test_same_build_is_reused(self) -> None:
        self._stamp(self._spec())
        self.assertTrue(self._reuse(self._spec()))

    def test_tree_change_builds_and_drops_the_stamp(self) -> None:
        self._stamp(self._spec())
        self._commit('a.c', 'two\n')
        self.assertFalse(self._reuse(self._spec()))
        # a build stopped halfway must not pass for the old one after a revert
        self.assertFalse((self.build / runner.BUILT_STAMP).exists())

    def test_config_or_make_option_change_builds(self) -> None:
        self._stamp(self._spec())
        self.assertFalse(self._reuse(self._spec(make_options=('X=1',))))
        self._stamp(self._spec())
        self.config.write_text('CONFIG_KUNIT=y\nCONFIG_KASAN=y\n')
        self.assertFalse(self._reuse(self._spec()))

    def test_missing_image_builds(self) -> None:
        self._stamp(self._spec())
        (self.build / 'arch/x86/boot/bzImage').unlink()
        self.assertFalse(self._reuse(self._spec()))


# A stand-in for the tree's kunit.py: prints what FAKE_OUTPUT holds,
# exits with FAKE_STATUS, writes no results.
FAKE_KUNIT = """\
import os, sys
print(os.environ['FAKE_OUTPUT'])
for arg in sys.argv:
    if arg.startswith('--json=') and os.environ.get('FAKE_JSON'):
        open(arg[len('--json='):], 'w').write(os.environ['FAKE_JSON'])
sys.exit(int(os.environ['FAKE_STATUS']))
"""


class FakeKunitTest(unittest.TestCase):
    """What a run or a build makes of kunit.py's failures."""

    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)
        tree = self.dir / 'tree'
        (tree / 'tools/testing/kunit').mkdir(parents=True)
        (tree / 'tools/testing/kunit/kunit.py').write_text(FAKE_KUNIT)
        subprocess.run(['git', '-C', str(tree), 'init', '-q'], check=True)
        subprocess.run(['git', '-C', str(tree), '-c', 'user.name=t', '-c', 'user.email=t@t',
                        'commit', '-q', '--allow-empty', '-m', 'x'], check=True)
        config = self.dir / '.kunitconfig'
        config.write_text('CONFIG_KUNIT=y\n')
        self.spec = runner.RunSpec(tree, self.dir / 'build', config, Path('/q'))
        self.work = WorkArea(self.dir / 'work')

    def _env(self, output: str, status: int) -> Any:
        return mock.patch.dict('os.environ', {'FAKE_OUTPUT': output, 'FAKE_STATUS': str(status)})

    def test_a_timeout_is_told(self) -> None:
        output = ("Command '['qemu-system-x86_64', '-nodefaults']' timed out after 300 seconds\n"
                  '[10:00:00] Testing complete. Ran 0 tests')
        with self._env(output, 1), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            outcome = runner.run_variant(self.spec, self.work, 'fork', marks.Marked({}))
        self.assertTrue(outcome.timed_out)
        self.assertIn('within --timeout', outcome.error)

    def test_no_timeout_by_default(self) -> None:
        with self._env('Ran 0 tests', 1), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            outcome = runner.run_variant(self.spec, self.work, 'fork', marks.Marked({}))
        self.assertFalse(outcome.timed_out)

    def test_lines_after_the_prefix(self) -> None:
        out = io.StringIO()
        with self._env('one\ntwo', 1), contextlib.redirect_stdout(out):
            runner.run_variant(self.spec, self.work, 'fork', marks.Marked({}), 'fork| ')
        self.assertIn('fork| one\nfork| two\n', out.getvalue())

    def test_a_build_made_by_the_caller_keeps_its_stamp(self) -> None:
        """compare builds each variant, then boots them at once, when the
        tree holds the last variant: the boot must not stamp the first
        build with the key of the tree as it is then."""
        self.spec.build_dir.mkdir(parents=True)
        stamp = self.spec.build_dir / runner.BUILT_STAMP
        stamp.write_text('key of the build\n')
        results = json.dumps({'name': '', 'sub_groups': [
            {'name': 'x', 'test_cases': [{'name': 'a', 'status': 'PASS'}]}]})
        with self._env('ok', 0), mock.patch.dict('os.environ', {'FAKE_JSON': results}), \
                contextlib.redirect_stdout(io.StringIO()):
            outcome = runner.run_variant(dataclasses.replace(self.spec, built=True), self.work,
                                         'fork', marks.Marked({}))
        self.assertEqual(outcome.cases, {'x.a': 'PASS'})
        self.assertEqual(stamp.read_text(), 'key of the build\n')

    def test_a_build_failure_is_its_own_error(self) -> None:
        output = '../net/sched/sch_pie.c:12:3: error: expected ; before }'
        with self._env(output, 1), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaisesRegex(runner.BuildFailed, 'does not build: .*sch_pie.c:12'):
                runner.build_kernel(self.spec, self.work, 'fork')

