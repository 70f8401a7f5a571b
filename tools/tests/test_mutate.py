"""tools/mutate without a kernel: the judges table, verdicts, the run
loop and the tree's restoring on fakes, the report, the command line."""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import io
import os
import re
import signal
import subprocess
import tarfile
import tempfile
import unittest
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from kfork import guest_tests, logscan, marks, mutate, mutate_cli, mutants, runner, tree, vm
from kfork.common import FORK, UPSTREAM_IMPL, ToolError, WorkArea, project_root

PATH = 'net/sched/sch_x.c'
TEXT = """\
static int f(int a, int b)
{
	if (a < b)
		return 1;
	return 0;
}
"""
JUDGES = mutate.Judges((mutate.KunitRun('x_unit'), mutate.KunitRun('x_qdisc')), ('tc',))


def suite_names() -> Set[str]:
    """The names of the overlay's KUnit suites."""
    names: Set[str] = set()
    for path in (project_root() / 'kernel-overlay').rglob('*_kunit.c'):
        for m in re.finditer(r'struct kunit_suite\s+\w+\s*=\s*\{[^}]*?\.name\s*=\s*"([^"]+)"',
                             path.read_text(), re.S):
            names.add(m.group(1))
    return names


class JudgesTableTest(unittest.TestCase):
    """mutate.JUDGES against the overlay and the suites' registries."""

    def test_every_implementation_file_has_judges(self) -> None:
        overlay = tree.default_overlay()
        impl = {p for p in overlay.files(FORK) if not tree.is_test_file(p)}
        self.assertEqual(set(mutate.JUDGES), impl)

    def test_globs_match_suites_besides_benchmarks(self) -> None:
        names = suite_names()
        self.assertIn('pie_qdisc', names)
        for path, judges in mutate.JUDGES.items():
            for run in judges.kunit:
                hits = [n for n in names if fnmatch.fnmatchcase(n, run.glob)]
                with self.subTest(path=path, glob=run.glob):
                    self.assertTrue([n for n in hits if not n.endswith('_bench')])

    def test_guest_suites_are_registered(self) -> None:
        for judges in mutate.JUDGES.values():
            for suite in judges.guest:
                self.assertIn(suite, guest_tests.names())

    def test_unmapped_file(self) -> None:
        with self.assertRaisesRegex(ToolError, 'JUDGES'):
            mutate.judges_of('net/sched/sch_new.c')

    def test_merged_keeps_order_once(self) -> None:
        other = mutate.Judges((mutate.KunitRun('x_qdisc'), mutate.KunitRun('y')), ('tc', 'tdc'))
        self.assertEqual(mutate.merged([JUDGES, other]),
                         mutate.Judges((mutate.KunitRun('x_unit'), mutate.KunitRun('x_qdisc'),
                                        mutate.KunitRun('y')), ('tc', 'tdc')))


def outcome(cases: Optional[Dict[str, str]] = None, marked: marks.Marked = marks.Marked({}),
            reports: Sequence[logscan.Report] = (), error: str = '',
            timed_out: bool = False) -> runner.Outcome:
    return runner.Outcome(FORK, {'x_unit.a': runner.PASS} if cases is None else cases, marked,
                          list(reports), error, timed_out=timed_out)


REPORT = logscan.Report('KASAN', ['BUG: KASAN: slab-out-of-bounds in f'])


class PanicArgsTest(unittest.TestCase):
    """A mutant's KUnit boot panics at its first oops, soft lockup or RCU
    stall instead of waiting out the timeout, and keeps the run's own
    arguments (--full's module parameters)."""

    def test_kunit_boot_panics_at_first_report(self) -> None:
        backend = mutate.TreeBackend(WorkArea(Path('/nonexistent/work')),
                                     tree.Tree(Path('/nonexistent/src')), '6.1.0',
                                     marks.Marked({}), 300, kernel_args=('x.full=1',))
        argv = backend._spec(mutate.KunitRun('hhf_*')).argv(Path('/nonexistent/r.json'))
        for arg in ('x.full=1', 'oops=panic', 'panic=-1', 'softlockup_panic=1',
                    'sysctl.kernel.panic_on_rcu_stall=1'):
            self.assertIn(f'--kernel_args={arg}', argv)


class VerdictTest(unittest.TestCase):
    def judge(self, o: runner.Outcome) -> Tuple[str, str]:
        found = mutate.kunit_judgement(o, 'kunit x_unit')
        return found.verdict, found.detail

    def test_all_pass_survives(self) -> None:
        self.assertEqual(self.judge(outcome()), (mutate.SURVIVED, ''))

    def test_a_failed_test_kills(self) -> None:
        cases = {'x_unit.a': runner.PASS, 'x_unit.b': runner.FAIL, 'x_unit.c': runner.FAIL}
        self.assertEqual(self.judge(outcome(cases)),
                         (mutate.KILLED, 'x_unit.b failed and 1 more'))

    def test_a_marked_test_must_pass_on_the_fork(self) -> None:
        marked = marks.Marked({'x_unit.a': marks.Mark('feature', ('x',), 'fork behaviour')})
        o = outcome({'x_unit.a': runner.FAIL}, marked=marked)
        self.assertEqual(self.judge(o)[0], mutate.KILLED)

    def test_a_checker_report_kills_a_passing_run(self) -> None:
        self.assertEqual(self.judge(outcome(reports=[REPORT])),
                         (mutate.KILLED, 'KASAN: BUG: KASAN: slab-out-of-bounds in f'))

    def test_a_crash_kills(self) -> None:
        self.assertEqual(self.judge(outcome({'x_unit.a': runner.ERROR})),
                         (mutate.KILLED, 'x_unit.a crashed'))

    def test_a_kernel_that_ran_nothing_kills(self) -> None:
        self.assertEqual(self.judge(outcome({}, error='no test ran')),
                         (mutate.KILLED, 'no test ran'))

    def test_a_timeout(self) -> None:
        o = outcome({'x_unit.a': runner.PASS, 'x_unit.b': runner.ERROR}, timed_out=True)
        self.assertEqual(self.judge(o), (mutate.TIMED_OUT, 'x_unit.b did not finish'))
        # a test that failed before the hang still kills
        o = outcome({'x_unit.a': runner.FAIL, 'x_unit.b': runner.ERROR}, timed_out=True)
        self.assertEqual(self.judge(o)[0], mutate.KILLED)

    def guest(self, run: vm.GuestRun, got: Dict[str, str]) -> str:
        verdicts = guest_tests.judge('fork', {t: 'PASS' for t in got}, got, own=True)
        return mutate.guest_judgement(run, verdicts, 'guest tc').verdict

    def test_guest_verdicts(self) -> None:
        ok = vm.GuestRun(FORK, Path('/x'), status=0)
        self.assertEqual(self.guest(ok, {'a': 'PASS'}), mutate.SURVIVED)
        self.assertEqual(self.guest(ok, {'a': 'PASS', 'b': 'FAIL'}), mutate.KILLED)
        self.assertEqual(self.guest(ok, {'a': 'TIMEOUT'}), mutate.TIMED_OUT)
        killed = vm.GuestRun(FORK, Path('/x'), timed_out=True)
        self.assertEqual(self.guest(killed, {'a': 'PASS'}), mutate.TIMED_OUT)
        died = vm.GuestRun(FORK, Path('/x'), status=None)
        self.assertEqual(self.guest(died, {'a': 'PASS'}), mutate.KILLED)
        reported = vm.GuestRun(FORK, Path('/x'), status=0, reports=[REPORT])
        self.assertEqual(self.guest(reported, {'a': 'PASS'}), mutate.KILLED)


class FakeBackend:
    """Records what it is asked; a test decides what each step finds
    from the file's text as synced."""

    def __init__(self, root: Path, kills: Callable[[str, str], bool] = lambda step, text: False,
                 build_error: Callable[[str], Optional[str]] = lambda text: None,
                 interrupt_at: int = 0):
        self.root, self.kills, self.build_error = root, kills, build_error
        self.interrupt_at = interrupt_at
        self.calls: List[str] = []
        self.synced: List[str] = []

    def sync(self, overlay: tree.Overlay) -> None:
        self.synced.append((overlay.files_dir / PATH).read_text())
        if self.interrupt_at and len(self.synced) == self.interrupt_at:
            os.kill(os.getpid(), signal.SIGTERM)

    def build(self) -> Optional[str]:
        self.calls.append('build')
        return self.build_error(self.synced[-1])

    def kunit(self, run: mutate.KunitRun) -> runner.Outcome:
        self.calls.append(run.name)
        status = runner.FAIL if self.kills(run.name, self.synced[-1]) else runner.PASS
        return outcome({'t.a': status})

    def guest(self, suite: str) -> Tuple[vm.GuestRun, List[guest_tests.Verdict]]:
        self.calls.append(f'guest {suite}')
        got = {'a': 'FAIL' if self.kills(f'guest {suite}', self.synced[-1]) else 'PASS'}
        return (vm.GuestRun(FORK, self.root, status=0),
                guest_tests.judge(FORK, {'a': 'PASS'}, got, own=True))


class RunTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        base = Path(self.tmp.name)
        project = tree.Overlay(base / 'project')
        (project.files_dir / 'net/sched').mkdir(parents=True)
        (project.files_dir / PATH).write_text(TEXT)
        project.patch_dir.mkdir()
        (project.patch_dir / '0001-x.patch').write_text('patch\n')
        self.workspace = mutate.Workspace(project, base / 'copy')
        self.logs = base / 'logs'
        generated = mutants.generate(PATH, TEXT)
        self.plan = mutate.Plan(PATH, TEXT, JUDGES, tuple(generated.mutants))
        self.results: List[mutate.Result] = []

    def run_all(self, backend: FakeBackend) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            mutate.run_mutants(backend, self.workspace, [self.plan], self.logs,
                               self.results.append)

    def test_the_workspace_copies_the_overlay_side(self) -> None:
        self.assertEqual((self.workspace.overlay.patch_dir / '0001-x.patch').read_text(),
                         'patch\n')
        self.assertEqual((self.workspace.overlay.files_dir / PATH).read_text(), TEXT)

    def test_each_mutant_is_synced_alone_and_taken_back(self) -> None:
        backend = FakeBackend(Path(self.tmp.name))
        self.run_all(backend)
        self.assertEqual(backend.synced, [m.apply(TEXT) for m in self.plan.mutants])
        self.assertEqual((self.workspace.overlay.files_dir / PATH).read_text(), TEXT)
        self.assertEqual([r.verdict for r in self.results],
                         [mutate.SURVIVED] * len(self.plan.mutants))
        # every step ran for a survivor, in order
        self.assertEqual(backend.calls[:4], ['build', 'kunit x_unit', 'kunit x_qdisc',
                                             'guest tc'])
        self.assertTrue(all((self.logs / mutate.log_name(m)).is_file()
                            for m in self.plan.mutants))

    def test_the_first_step_that_notices_ends_it(self) -> None:
        backend = FakeBackend(Path(self.tmp.name), kills=lambda step, text: (
            step == 'kunit x_qdisc' and '<=' in text))
        self.run_all(backend)
        ror = next(r for r in self.results if r.mutant.operator == mutants.ROR_BOUNDARY)
        self.assertEqual((ror.verdict, ror.by), (mutate.KILLED, 'kunit x_qdisc'))
        self.assertIn('+\tif (a <= b)', ror.diff)
        self.assertIn('a/kernel-overlay/net/sched/sch_x.c', ror.diff)
        self.assertNotIn('guest tc', backend.calls[:backend.calls.index('kunit x_qdisc') + 1])

    def test_a_build_failure(self) -> None:
        backend = FakeBackend(Path(self.tmp.name),
                              build_error=lambda text: 'error: x' if '!(' in text else None)
        self.run_all(backend)
        negated = next(r for r in self.results if r.mutant.operator == mutants.IF_NEGATE)
        self.assertEqual((negated.verdict, negated.by, negated.detail),
                         (mutate.BUILD_KILLED, 'build', 'error: x'))

    def test_a_guest_kill(self) -> None:
        backend = FakeBackend(Path(self.tmp.name),
                              kills=lambda step, text: step == 'guest tc')
        self.run_all(backend)
        self.assertEqual({r.by for r in self.results}, {'guest tc'})

    def test_the_clean_run_must_pass(self) -> None:
        backend = FakeBackend(Path(self.tmp.name), kills=lambda step, text: text == TEXT)
        with contextlib.redirect_stderr(io.StringIO()), \
                self.assertRaisesRegex(ToolError, 'does not pass kunit x_unit'):
            mutate.clean_run(backend, self.workspace, JUDGES, self.logs)
        with contextlib.redirect_stderr(io.StringIO()):
            mutate.clean_run(FakeBackend(Path(self.tmp.name)), self.workspace, JUDGES, self.logs)

    def test_resume_keeps_only_kills_of_the_same_edit(self) -> None:
        ms = self.plan.mutants
        moved = dataclasses.replace(ms[2], offset=ms[2].offset + 1)
        earlier = [mutate.Result(ms[0], mutate.KILLED), mutate.Result(ms[1], mutate.SURVIVED),
                   mutate.Result(moved, mutate.KILLED),
                   mutate.Result(ms[3], mutate.BUILD_KILLED),
                   mutate.Result(ms[4], mutate.TIMED_OUT)]
        plans, kept = mutate.resumed([self.plan], earlier)
        self.assertEqual([r.mutant for r in kept], [ms[0], ms[3]])
        self.assertEqual(plans[0].mutants, tuple(m for m in ms if m not in (ms[0], ms[3])))
        self.assertEqual(mutate.resumed([self.plan], []), ([self.plan], []))

    def test_resume_carries_other_files_whole(self) -> None:
        ms = self.plan.mutants
        other = dataclasses.replace(ms[1], path='net/sched/other.c')
        earlier = [mutate.Result(ms[0], mutate.SURVIVED), mutate.Result(other, mutate.SURVIVED),
                   mutate.Result(dataclasses.replace(other, line=other.line + 1),
                                 mutate.KILLED)]
        self.assertEqual(mutate.carried([self.plan], earlier), earlier[1:])
        self.assertEqual(mutate.carried([self.plan], []), [])

    def test_sigterm_mid_run_restores(self) -> None:
        backend = FakeBackend(Path(self.tmp.name), interrupt_at=2)
        restored: List[str] = []
        before = signal.getsignal(signal.SIGTERM)

        def restore() -> None:
            restored.append((self.workspace.overlay.files_dir / PATH).read_text())

        with self.assertRaises(mutate.Interrupted):
            mutate.guarded(lambda: self.run_all(backend), restore)
        # the second mutant was being judged: its file is back, once
        self.assertEqual(restored, [TEXT])
        self.assertEqual(len(self.results), 1)
        self.assertEqual(signal.getsignal(signal.SIGTERM), before)


class GuardedTest(unittest.TestCase):
    def test_restores_after_return_error_and_ctrl_c(self) -> None:
        calls: List[str] = []
        self.assertEqual(mutate.guarded(lambda: 5, lambda: calls.append('r')), 5)

        def fail() -> int:
            raise ToolError('x')

        def ctrl_c() -> int:
            raise KeyboardInterrupt

        with self.assertRaises(ToolError):
            mutate.guarded(fail, lambda: calls.append('r'))
        with self.assertRaises(KeyboardInterrupt):
            mutate.guarded(ctrl_c, lambda: calls.append('r'))
        self.assertEqual(calls, ['r', 'r', 'r'])

    def test_signals_wait_while_restoring(self) -> None:
        seen: List[object] = []

        def restore() -> None:
            seen.append(signal.getsignal(signal.SIGINT))
            os.kill(os.getpid(), signal.SIGTERM)     # ignored, not raised

        before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        mutate.guarded(lambda: None, restore)
        self.assertEqual(seen, [signal.SIG_IGN])
        self.assertEqual({s: signal.getsignal(s) for s in before}, before)


class DescendantsTest(unittest.TestCase):
    def test_the_tree_under_a_pid(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            proc = Path(tmp)
            for pid, state, ppid in ((10, 'S', 1), (11, 'R', 10), (12, 'S', 11), (13, 'Z', 10),
                                     (14, 'S', 1)):
                (proc / str(pid)).mkdir()
                (proc / str(pid) / 'stat').write_text(f'{pid} (a (b) c) {state} {ppid} 0 0\n')
            (proc / 'self').mkdir()
            self.assertEqual(sorted(mutate.descendants(10, proc)), [11, 12])
            self.assertEqual(mutate.descendants(14, proc), [])

    def test_a_signal_stops_the_run_and_its_processes_first(self) -> None:
        seen: List[List[int]] = []
        children: List[subprocess.Popen[bytes]] = []

        def body() -> None:
            # started inside the run, as the run's make and QEMU are: a
            # test runner started in the background ignores SIGINT, and a
            # child started before guarded() would inherit that
            children.append(subprocess.Popen(['sleep', '60']))
            self.assertIn(children[0].pid, mutate.descendants(os.getpid()))
            os.kill(os.getpid(), signal.SIGTERM)

        try:
            with self.assertRaises(mutate.Interrupted), \
                    contextlib.redirect_stderr(io.StringIO()):
                mutate.guarded(body, lambda: seen.append(mutate.descendants(os.getpid())))
            # the sleep got SIGINT and had ended before restore() ran
            self.assertEqual(seen, [[]])
            self.assertEqual(children[0].wait(timeout=5), -signal.SIGINT)
        finally:
            for child in children:
                child.kill()
                child.wait()


class RestoreTreeTest(unittest.TestCase):
    """restore_tree() on a small tree: the fork branch at its old
    commit, the old checkout, after mutants were synced."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        base = Path(self.tmp.name)
        src = base / 'pkg' / 'linux-source-6.1' / 'net/sched'
        src.mkdir(parents=True)
        (src / 'sch_x.c').write_text('upstream\n')
        tarball = base / 'src.tar.xz'
        with tarfile.open(tarball, 'w:xz') as tar:
            tar.add(base / 'pkg' / 'linux-source-6.1', arcname='linux-source-6.1')
        self.project = tree.Overlay(base / 'project')
        (self.project.files_dir / 'net/sched').mkdir(parents=True)
        (self.project.files_dir / PATH).write_text(TEXT)
        with contextlib.redirect_stderr(io.StringIO()):
            self.src = tree.ensure_tree(WorkArea(base / 'work'), '6.1.1-1', tarball)
        self.workspace = mutate.Workspace(self.project, base / 'copy')

    def mutate_and_restore(self) -> None:
        m = mutants.generate(PATH, TEXT).mutants[0]
        with contextlib.redirect_stderr(io.StringIO()):
            state = mutate.tree_state(self.src)
            self.workspace.write(PATH, m.apply(TEXT))
            tree.sync(self.src, self.workspace.overlay, FORK)
            self.assertNotEqual((self.src.path / PATH).read_text(), TEXT)
            mutate.restore_tree(self.src, self.project, state)

    def test_fork_back_at_its_commit(self) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            tip = tree.sync(self.src, self.project, FORK)
        self.mutate_and_restore()
        self.assertEqual(self.src.rev(f'refs/heads/{FORK}'), tip)
        self.assertEqual(self.src.current_branch(), FORK)
        self.assertEqual((self.src.path / PATH).read_text(), TEXT)
        self.assertEqual(self.src.local_edits(), [])

    def test_other_checkout_back(self) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            tree.sync(self.src, self.project, FORK)
            tree.sync(self.src, self.project, UPSTREAM_IMPL)
        self.mutate_and_restore()
        self.assertEqual(self.src.current_branch(), UPSTREAM_IMPL)
        self.assertEqual((self.src.path / PATH).read_text(), 'upstream\n')


def result(verdict: str, line: int = 3) -> mutate.Result:
    m = next(m for m in mutants.generate(PATH, TEXT).mutants if m.line == line)
    return mutate.Result(m, verdict, 90.0, 'kunit x_unit', 'x_unit.a failed',
                         m.diff(TEXT, 'kernel-overlay/'))


class ReportTest(unittest.TestCase):
    def setUp(self) -> None:
        self.record = mutate.Record([PATH], 1, 40, '2026-12-06 10:00', [
            result(mutate.KILLED), result(mutate.BUILD_KILLED), result(mutate.SURVIVED),
            result(mutate.TIMED_OUT), result(mutate.NOT_COVERED, 4)], 600.0, True)

    def test_scores(self) -> None:
        score = mutate.scores(self.record.results, [PATH])[0]
        self.assertEqual((score.run, score.killed, score.percent), (4, 2, 50.0))
        self.assertEqual(mutate.below_bar([score]), [f'{PATH}: 50.0% < 90%'])
        self.assertEqual(mutate.table([score])[2],
                         f'| {PATH} | 4 | 1 | 1 | 1 | 1 | 1 | 50.0% |')

    def test_report_has_the_survivors_diff(self) -> None:
        text = mutate.report(self.record)
        survivors = text.split('## Survivors (1)')[1].split('## Timed out')[0]
        self.assertIn('```diff\n--- a/kernel-overlay/net/sched/sch_x.c', survivors)
        self.assertIn(f'- {PATH}: lines 4', text)
        self.assertTrue(mutate.report(self.record, '## Notes\n\n- x\n').endswith(
            'lines 4\n\n## Notes\n\n- x\n'))

    def test_json_round_trip(self) -> None:
        again = mutate.Record.from_json(self.record.to_json())
        self.assertEqual(again.to_json(), self.record.to_json())
        with self.assertRaises(ValueError):
            mutate.Record.from_json('{"files": []}')

    def test_a_result_line(self) -> None:
        self.assertEqual(result(mutate.KILLED).line(),
                         f'{PATH}:3  {result(mutate.KILLED).mutant.operator}  killed  90 s  '
                         f'(kunit x_unit: x_unit.a failed)')


class CliTest(unittest.TestCase):
    def test_files_by_path_or_name(self) -> None:
        overlay = tree.default_overlay()
        self.assertEqual(mutate_cli.implementation_files(
            overlay, ['sch_pie.c', 'kernel-overlay/net/sched/sch_hhf.c',
                      'kernel/trace/trace_probe.c']),
            ['net/sched/sch_pie.c', 'net/sched/sch_hhf.c', 'kernel/trace/trace_probe.c'])
        with self.assertRaisesRegex(ToolError, 'not an implementation file'):
            mutate_cli.implementation_files(overlay, ['sch_pie_kunit.c'])
        self.assertNotIn('net/sched/sch_pie_kunit.c',
                         mutate_cli.implementation_files(overlay, []))

    def test_list_builds_nothing_and_is_reproducible(self) -> None:
        def listing(seed: str) -> str:
            out = io.StringIO()
            with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(io.StringIO()) as err:
                status = mutate_cli.main(['list', 'sch_pie.c', '--sample', '5', '--seed', seed,
                                          '--coverage', tmp])
            self.assertEqual(status, 0)
            self.assertIn('no coverage data', err.getvalue())
            return out.getvalue()

        first = listing('1')
        self.assertEqual(first, listing('1'))
        self.assertNotEqual(first, listing('2'))
        lines = first.splitlines()
        self.assertEqual(len([line for line in lines
                              if re.match(r'net/sched/sch_pie.c:\d+:\d+:', line)]), 5)
        self.assertRegex(lines[-2], r'^net/sched/sch_pie.c: \d+ mutants, 0 not covered, 5 to run')


if __name__ == '__main__':
    unittest.main()
