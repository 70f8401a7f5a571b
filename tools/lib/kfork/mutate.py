"""tools/mutate's runs: which tests judge a file's mutants, how a mutant
is built, judged and taken back, and what a run amounts to.

JUDGES is the one table of which tests judge an implementation file's
mutants: KUnit runs (one kunit.py glob each, cheapest first), then guest
suites (guest_tests.SUITES' names, one boot each). A mutant is judged by
build, then each of those in turn, and the first that notices ends it:

  killed        a test failed or crashed, or a checker (KASAN, UBSAN,
                lockdep, WARN, kmemleak ...) reported, or the kernel died
                before its tests
  build-killed  the kernel did not build (counted apart: the compiler,
                not a test, noticed)
  timed-out     the tests did not finish: kunit.py's --timeout, or a
                guest killed at its limit
  survived      every test passed
  not covered   (never run) the coverage data says no test reaches the
                line

A file's score is (killed + build-killed) / the mutants run; BAR is the
issue's aim.

A mutant is a copy of the project's overlay side (Workspace) with the
one file edited, synced into the tree as branch fork (tree.sync(), a
commit of its own) and built in a build folder of its own (BUILD_NAME),
so the fork's usual folder stays as it was and the builds after the
first are incremental. guarded() puts the tree back afterwards: the
fork branch synced to the real overlay and, when its content is what it
was, at its old commit, and the branch that was checked out checked out
again, also on Ctrl-C, SIGTERM and SIGHUP, after the run's own
processes (kunit.py, make, QEMU) have stopped.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import time
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Protocol,
                    Sequence, Tuple, TypeVar)

from . import guest_tests, marks, mutants, runner, session, tree, vm, vm_cli
from .common import FORK, ToolError, WorkArea, say
from .mutants import Mutant

KILLED, BUILD_KILLED, TIMED_OUT, SURVIVED = 'killed', 'build-killed', 'timed-out', 'survived'
NOT_COVERED = 'not covered'
VERDICTS = (KILLED, BUILD_KILLED, SURVIVED, TIMED_OUT, NOT_COVERED)
# The aim for a file's score, in percent. Reported, not asserted.
BAR = 90.0
# The build folder of the mutants: build/VERSION/mutate.
BUILD_NAME = 'mutate'
# Seconds a guest's boot may take beyond its suite's own time limit.
GUEST_MARGIN = 120


@dataclass(frozen=True)
class KunitRun:
    """One kunit.py run: the suites GLOB matches, kmemleak on when the
    suite scans for leaks (as make check runs it)."""

    glob: str
    kmemleak: bool = False

    @property
    def name(self) -> str:
        return f'kunit {self.glob}' + (' (kmemleak)' if self.kmemleak else '')


@dataclass(frozen=True)
class Judges:
    """The tests that judge a file's mutants, in the order they run."""

    kunit: Tuple[KunitRun, ...]
    guest: Tuple[str, ...] = ()

    def names(self) -> List[str]:
        return [r.name for r in self.kunit] + [f'guest {s}' for s in self.guest]


def merged(judges: Iterable[Judges]) -> Judges:
    """Every run and suite of several files' judges once, in order."""
    kunit: List[KunitRun] = []
    guest: List[str] = []
    for j in judges:
        kunit += [r for r in j.kunit if r not in kunit]
        guest += [s for s in j.guest if s not in guest]
    return Judges(tuple(kunit), tuple(guest))


# Which tests judge each implementation file (a tree path), cheapest
# first: the white-box and unit suites, then those through tracefs or a
# qdisc, then the guest suites. Globs are kunit.py's (one a run; the
# *_bench suites they match skip); a new implementation file needs an
# entry (test_mutate checks every one against the suites' names).
_QDISC_GUESTS = ('tc', 'tdc', 'traffic')
_PROBE_GUESTS = ('kprobe', 'uprobe', 'ftrace')
JUDGES: Mapping[str, Judges] = {
    'net/sched/sch_pie.c': Judges((KunitRun('pie_math*'), KunitRun('*pie_qdisc')),
                                  _QDISC_GUESTS),
    'net/sched/sch_hhf.c': Judges((KunitRun('hhf_filter', kmemleak=True),
                                   KunitRun('hhf_[cq]*', kmemleak=True)), _QDISC_GUESTS),
    'kernel/trace/trace_probe.c': Judges(
        (KunitRun('probe_[cp]*'), KunitRun('probe_f*'), KunitRun('[ku]probe_*', kmemleak=True)),
        _PROBE_GUESTS),
    'kernel/trace/trace_probe.h': Judges(
        (KunitRun('probe_[cp]*'), KunitRun('probe_f*'), KunitRun('[ku]probe_*', kmemleak=True)),
        _PROBE_GUESTS),
    'kernel/trace/trace_probe_tmpl.h': Judges(
        (KunitRun('probe_f*'), KunitRun('[ku]probe_*', kmemleak=True)), _PROBE_GUESTS),
    'kernel/trace/trace_kprobe.c': Judges(
        (KunitRun('kprobe_*', kmemleak=True), KunitRun('probe_*')), ('kprobe', 'ftrace')),
    'kernel/trace/trace_uprobe.c': Judges(
        (KunitRun('uprobe_fetch'), KunitRun('probe_parse', kmemleak=True), KunitRun('probe_f*')),
        ('uprobe', 'ftrace', 'clients')),
}


def judges_of(path: str) -> Judges:
    if path not in JUDGES:
        raise ToolError(f'no tests are mapped to {path}: add its entry to JUDGES in '
                        f'tools/lib/kfork/mutate.py')
    return JUDGES[path]


@dataclass(frozen=True)
class Judgement:
    """What the tests made of a mutant: the verdict, the step that gave
    it (build, kunit GLOB, guest SUITE) and why."""

    verdict: str
    by: str = ''
    detail: str = ''


def kunit_judgement(outcome: runner.Outcome, by: str) -> Judgement:
    """A KUnit run's verdict: a failed test or a checker's report kills;
    a run stopped at its timeout with nothing failed before is timed
    out; a crashed test or a kernel that ran no test kills."""
    failed = [c for c, s in outcome.cases.items() if outcome.case_counts(c, s).failed]
    crashed = [c for c, s in outcome.cases.items() if outcome.case_counts(c, s).crashed]
    if failed:
        more = f' and {len(failed) - 1} more' if len(failed) > 1 else ''
        return Judgement(KILLED, by, f'{failed[0]} failed{more}')
    if outcome.reports:
        return Judgement(KILLED, by, f'{outcome.reports[0].kind}: {outcome.reports[0].title}')
    if outcome.timed_out:
        unfinished = (f'{crashed[0]} did not finish' if crashed
                      else 'the tests did not finish within --timeout')
        return Judgement(TIMED_OUT, by, outcome.error or unfinished)
    if crashed:
        return Judgement(KILLED, by, f'{crashed[0]} crashed')
    if outcome.error:
        return Judgement(KILLED, by, outcome.error)
    return Judgement(SURVIVED)


def guest_judgement(run: vm.GuestRun, verdicts: Sequence[guest_tests.Verdict],
                    by: str) -> Judgement:
    """A guest suite's verdict, judged as tools/vm test judges it: a
    failed test or a report kills; a guest killed at its time limit, or
    a suite whose only failures are tests the guest stopped at their
    limit (TIMEOUT), is timed out; a guest that died kills."""
    failed = [v for v in verdicts if v.failed]
    real = [v for v in failed if v.got != 'TIMEOUT']
    if real:
        return Judgement(KILLED, by, f'{real[0].name}: {real[0].note}')
    if run.reports:
        return Judgement(KILLED, by, f'{run.reports[0].kind}: {run.reports[0].title}')
    if run.timed_out or failed:
        return Judgement(TIMED_OUT, by, run.problem() or f'{failed[0].name} timed out')
    if not run.ok:
        return Judgement(KILLED, by, run.problem())
    return Judgement(SURVIVED)


class Backend(Protocol):
    """Where mutants are built and tested (TreeBackend; fakes in tests)."""

    def sync(self, overlay: tree.Overlay) -> None:
        """Make the tree's fork branch the overlay's files."""

    def build(self) -> Optional[str]:
        """Build the synced tree: None, or why it does not build."""

    def kunit(self, run: KunitRun) -> runner.Outcome:
        """Boot the build and run the suites of one glob."""

    def guest(self, suite: str) -> Tuple[vm.GuestRun, List[guest_tests.Verdict]]:
        """Boot the build and run one guest suite, judged."""


def judge(backend: Backend, judges: Judges) -> Judgement:
    """Build, then each KUnit run, then each guest suite; the first
    verdict other than survived is the mutant's."""
    error = backend.build()
    if error is not None:
        return Judgement(BUILD_KILLED, 'build', error)
    for run in judges.kunit:
        found = kunit_judgement(backend.kunit(run), run.name)
        if found.verdict != SURVIVED:
            return found
    for suite in judges.guest:
        guest_run, verdicts = backend.guest(suite)
        found = guest_judgement(guest_run, verdicts, f'guest {suite}')
        if found.verdict != SURVIVED:
            return found
    return Judgement(SURVIVED)


class Workspace:
    """A copy of the project's overlay side (kernel-overlay/ and
    patches/) in root, whose files are edited one mutant at a time."""

    def __init__(self, project: tree.Overlay, root: Path):
        self.project = project
        self.overlay = tree.Overlay(root)
        if project.files_dir.is_dir():
            shutil.copytree(project.files_dir, self.overlay.files_dir)
        if project.patch_dir.is_dir():
            shutil.copytree(project.patch_dir, self.overlay.patch_dir)

    def write(self, path: str, text: str) -> None:
        (self.overlay.files_dir / path).write_text(text)


@dataclass(frozen=True)
class Plan:
    """One file's run: its text, its judges and the mutants to run."""

    path: str
    text: str
    judges: Judges
    mutants: Tuple[Mutant, ...]


@dataclass(frozen=True)
class Result:
    """One mutant's verdict, with the seconds it took and its diff."""

    mutant: Mutant
    verdict: str
    seconds: float = 0.0
    by: str = ''
    detail: str = ''
    diff: str = ''

    def line(self) -> str:
        """The line printed for it: path:line  operator  verdict  seconds."""
        by = f'  ({self.by}: {self.detail})' if self.by and self.verdict != SURVIVED else ''
        return (f'{self.mutant.location}  {self.mutant.operator}  {self.verdict}  '
                f'{self.seconds:.0f} s{by}')

    def to_dict(self) -> Dict[str, object]:
        return {'mutant': self.mutant.to_dict(), 'verdict': self.verdict,
                'seconds': round(self.seconds, 1), 'by': self.by, 'detail': self.detail,
                'diff': self.diff}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> 'Result':
        try:
            verdict = str(data['verdict'])
            if verdict not in VERDICTS:
                raise ValueError(f'verdict {verdict!r}')
            return cls(Mutant.from_dict(data['mutant']), verdict, float(data['seconds']),
                       str(data['by']), str(data['detail']), str(data['diff']))
        except (KeyError, TypeError) as err:
            raise ValueError(f'not a mutant\'s result: {err!r}') from err


@dataclass
class Record:
    """A run: how it was asked for, and every result so far (complete
    when it ran to its end). results.json holds it."""

    files: List[str]
    seed: int
    sample: Optional[int]
    started: str
    results: List[Result] = field(default_factory=list)
    seconds: float = 0.0
    complete: bool = False

    def to_json(self) -> str:
        return json.dumps({'files': self.files, 'seed': self.seed, 'sample': self.sample,
                           'started': self.started, 'seconds': round(self.seconds, 1),
                           'complete': self.complete,
                           'results': [r.to_dict() for r in self.results]}, indent=1) + '\n'

    @classmethod
    def from_json(cls, text: str) -> 'Record':
        """The inverse of to_json; ValueError on anything else."""
        try:
            raw = json.loads(text)
            sample = raw['sample']
            return cls([str(f) for f in raw['files']], int(raw['seed']),
                       None if sample is None else int(sample), str(raw['started']),
                       [Result.from_dict(r) for r in raw['results']], float(raw['seconds']),
                       bool(raw['complete']))
        except (KeyError, TypeError, AttributeError) as err:
            raise ValueError(f'not a mutation run: {err!r}') from err

    def save(self, path: Path) -> None:
        """Whole or not at all: a rename puts it there."""
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + '.partial')
        partial.write_text(self.to_json())
        partial.replace(path)


@contextlib.contextmanager
def logged(path: Path) -> Iterator[None]:
    """Everything printed inside (kunit.py's stream, progress) goes to
    path instead: a mutant's log."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, 'w', encoding='utf-8') as log, contextlib.redirect_stdout(log), \
            contextlib.redirect_stderr(log):
        yield


def log_name(m: Mutant) -> str:
    return re.sub(r'[^A-Za-z0-9_.-]+', '_', m.id) + '.log'


def clean_run(backend: Backend, workspace: Workspace, judges: Judges, logs: Path) -> None:
    """The judges on the fork as it is: each must pass, or every mutant
    would count as killed."""
    say(f'first the fork as it is, which must pass {", ".join(judges.names())} '
        f'(log: {logs / "clean.log"})')
    with logged(logs / 'clean.log'):
        backend.sync(workspace.overlay)
        found = judge(backend, judges)
    if found.verdict != SURVIVED:
        raise ToolError(f'the fork as it is does not pass {found.by} ({found.verdict}: '
                        f'{found.detail}; log: {logs / "clean.log"}): mutants can only be '
                        f'judged by tests that pass')


def run_mutants(backend: Backend, workspace: Workspace, plans: Sequence[Plan], logs: Path,
                done: Callable[[Result], None]) -> None:
    """Each plan's mutants in turn: edit the workspace's copy, sync,
    judge, put the copy's file back; done() gets each result. Nothing
    here restores the tree: guarded() does, around the whole run."""
    total = sum(len(p.mutants) for p in plans)
    count = 0
    prefix = workspace.project.files_dir.name + '/'
    for plan in plans:
        for m in plan.mutants:
            count += 1
            say(f'[{count}/{total}] {m.location} {m.operator} {m.describe()}')
            workspace.write(plan.path, m.apply(plan.text))
            start = time.monotonic()
            try:
                with logged(logs / log_name(m)):
                    backend.sync(workspace.overlay)
                    found = judge(backend, plan.judges)
            finally:
                workspace.write(plan.path, plan.text)
            done(Result(m, found.verdict, time.monotonic() - start, found.by, found.detail,
                        m.diff(plan.text, prefix)))


def resumed(plans: Sequence[Plan], earlier: Sequence[Result]
            ) -> Tuple[List[Plan], List[Result]]:
    """For a rerun (tools/mutate run --resume): the plans without the
    mutants an earlier run killed (killed or build-killed), and those
    earlier results. A mutant counts as the same only where it is the
    same edit at the same place; tests are only ever added, so a killed
    one stays killed, while a survivor or a timeout is judged again."""
    wanted = {m for p in plans for m in p.mutants}
    kept = [r for r in earlier if r.verdict in (KILLED, BUILD_KILLED) and r.mutant in wanted]
    done = {r.mutant for r in kept}
    return ([dataclasses.replace(p, mutants=tuple(m for m in p.mutants if m not in done))
             for p in plans], kept)


def carried(plans: Sequence[Plan], earlier: Sequence[Result]) -> List[Result]:
    """For --resume: the earlier results of the files this run leaves
    alone, kept whole, so that resuming one file loses no other's."""
    paths = {p.path for p in plans}
    return [r for r in earlier if r.mutant.path not in paths]


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the run was so that it is cleaned
    up as after Ctrl-C (common.guard() reports either alike)."""


def descendants(pid: int, proc: Path = Path('/proc')) -> List[int]:
    """The live processes under pid (its children, theirs ...), from
    /proc; zombies, which wait only for their parent to reap them, are
    left out."""
    children: Dict[int, List[int]] = {}
    for stat in proc.glob('[0-9]*/stat'):
        try:
            # pid (comm) state ppid ...: comm may hold spaces and ')'
            state, ppid = stat.read_text().rsplit(')', 1)[1].split()[:2]
        except (OSError, ValueError):
            continue                    # gone meanwhile
        if state not in ('Z', 'X'):
            children.setdefault(int(ppid), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _signal_all(pids: Iterable[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


def stop_descendants(timeout: float = 120.0) -> None:
    """Wait for this process's descendants (kunit.py, make, QEMU, told
    to stop) to end, killing those left after timeout seconds: none may
    still build from the tree while it is restored."""
    deadline = time.monotonic() + timeout
    left = descendants(os.getpid())
    if left:
        say(f'waiting for {len(left)} processes of the run to stop (at most {timeout:.0f} s)')
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = descendants(os.getpid())
    _signal_all(left, signal.SIGKILL)


T = TypeVar('T')
_STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def guarded(body: Callable[[], T], restore: Callable[[], None]) -> T:
    """body(), then restore() whatever happens: on return, an exception,
    Ctrl-C (KeyboardInterrupt) or SIGTERM/SIGHUP (Interrupted). A signal
    is passed on, as SIGINT (what Ctrl-C sends the whole terminal group),
    to the run's own descendants, which restore() waits for: make and
    QEMU stop as after Ctrl-C, and no make builds from the tree while it
    is restored. While restore() runs the signals wait (ignored), so a
    second Ctrl-C cannot leave the tree half restored; the handlers are
    as they were afterwards."""
    def stop(signum: int, frame: Optional[FrameType]) -> None:
        _signal_all(descendants(os.getpid()), signal.SIGINT)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Interrupted(signal.Signals(signum).name)

    old = {s: signal.signal(s, stop) for s in _STOPS}
    try:
        return body()
    finally:
        for s in old:
            signal.signal(s, signal.SIG_IGN)
        try:
            stop_descendants()
            restore()
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)


@dataclass(frozen=True)
class TreeState:
    """What restore_tree() puts back: the branch checked out and the
    fork branch's commit ('' when there was none)."""

    branch: str
    fork_tip: str


def tree_state(src: tree.Tree) -> TreeState:
    return TreeState(src.current_branch(), src.rev(f'refs/heads/{FORK}'))


def restore_tree(src: tree.Tree, overlay: tree.Overlay, state: TreeState) -> None:
    """Sync the real overlay into the fork branch; when that is the
    content its old commit had, point it there again (the files are
    the same, so make sees nothing new); then check out the branch that
    was checked out before."""
    say(f'putting branch {FORK} of {src.path} back to the project\'s overlay')
    tree.sync(src, overlay, FORK)
    tip = src.rev(f'refs/heads/{FORK}')
    if (state.fork_tip and tip != state.fork_tip
            and src.rev(f'{state.fork_tip}^{{tree}}') == src.rev(f'{tip}^{{tree}}')):
        src.git('reset', '-q', '--keep', state.fork_tip)
    if state.branch and state.branch != FORK:
        src.git('checkout', '-q', state.branch)


# A mutant's KUnit boot ends at its first oops, soft lockup or RCU stall:
# each is a report that kills anyway, and a kernel left running after one
# (a lock held, a CPU looping) would only wait out kunit.py's --timeout.
# QEMU runs with -no-reboot, so panic=-1's immediate reboot ends it.
PANIC_ARGS = ('oops=panic', 'panic=-1', 'softlockup_panic=1',
              'sysctl.kernel.panic_on_rcu_stall=1')


class TreeBackend:
    """The work area's tree and build/VERSION/mutate, as tools/kunit and
    tools/vm build and boot (runner, vm_cli), on the fork's variant."""

    def __init__(self, work: WorkArea, src: tree.Tree, version: str, marked: marks.Marked,
                 timeout: int, jobs: int = 0, kernel_args: Sequence[str] = ()):
        self.work, self.src, self.version, self.marked = work, src, version, marked
        self.timeout, self.jobs, self.kernel_args = timeout, jobs, tuple(kernel_args)

    def _spec(self, run: Optional[KunitRun] = None) -> runner.RunSpec:
        return session.spec(self.work, self.src, self.version, BUILD_NAME,
                             glob=run.glob if run else '', timeout=self.timeout, jobs=self.jobs,
                             kmemleak=bool(run and run.kmemleak),
                             kernel_args=(*self.kernel_args, *(PANIC_ARGS if run else ())))

    def sync(self, overlay: tree.Overlay) -> None:
        tree.sync(self.src, overlay, FORK)

    def build(self) -> Optional[str]:
        try:
            runner.build_kernel(self._spec(), self.work, FORK, modules=False)
        except runner.BuildFailed as err:
            return str(err)
        return None

    def kunit(self, run: KunitRun) -> runner.Outcome:
        return runner.run_variant(self._spec(run), self.work, FORK, self.marked)

    def guest(self, suite: str) -> Tuple[vm.GuestRun, List[guest_tests.Verdict]]:
        # the build is there (its stamp matches): this installs its modules
        image = runner.build_kernel(self._spec(), self.work, FORK)
        folder = self.work.root / 'vm' / BUILD_NAME
        limit = guest_tests.suite(suite).limit + GUEST_MARGIN
        run, results = vm_cli.boot_suites(FORK, image, folder, [suite], limit, stream=False)
        return run, guest_tests.judge_suite(FORK, suite, results[suite])


@dataclass(frozen=True)
class Score:
    """A file's verdicts counted."""

    path: str
    counts: Mapping[str, int]

    @property
    def run(self) -> int:
        return sum(self.counts.get(v, 0) for v in (KILLED, BUILD_KILLED, SURVIVED, TIMED_OUT))

    @property
    def killed(self) -> int:
        return self.counts.get(KILLED, 0) + self.counts.get(BUILD_KILLED, 0)

    @property
    def percent(self) -> Optional[float]:
        return 100.0 * self.killed / self.run if self.run else None


def scores(results: Sequence[Result], paths: Sequence[str]) -> List[Score]:
    """One Score per path, then the total."""
    out = []
    for path in [*paths, 'total']:
        counts: Dict[str, int] = {}
        for r in results:
            if path in ('total', r.mutant.path):
                counts[r.verdict] = counts.get(r.verdict, 0) + 1
        out.append(Score(path, counts))
    return out


def table(found: Sequence[Score]) -> List[str]:
    """A Markdown table of the scores."""
    head = ['file', 'run', 'killed', 'build-killed', 'survived', 'timed out', 'not covered',
            'score']
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    for s in found:
        score = '-' if s.percent is None else f'{s.percent:.1f}%'
        cells = [s.path, str(s.run), *(str(s.counts.get(v, 0)) for v in
                                       (KILLED, BUILD_KILLED, SURVIVED, TIMED_OUT, NOT_COVERED)),
                 score]
        lines.append('| ' + ' | '.join(cells) + ' |')
    return lines


def below_bar(found: Sequence[Score]) -> List[str]:
    return [f'{s.path}: {s.percent:.1f}% < {BAR:.0f}%' for s in found
            if s.path != 'total' and s.percent is not None and s.percent < BAR]


def report(record: Record, notes: str = '') -> str:
    """report.md: the run, the scores, every survivor's diff, the
    timed-out, killed and not-covered mutants, then notes (why the
    survivors left are equivalent)."""
    found = scores(record.results, record.files)
    sample = f'{record.sample} per file' if record.sample else 'every mutant'
    state = 'complete' if record.complete else 'interrupted: the figures cover what ran'
    lines = ['# Mutation testing', '',
             f'`tools/mutate run` started {record.started}: {sample} on lines the tests reach, '
             f'seed {record.seed}, {record.seconds / 60:.0f} min ({state}).', '',
             'score = (killed + build-killed) / run; not covered: mutants on lines no test '
             'reaches (make coverage), never run.', '', *table(found), '']
    short = below_bar(found)
    lines.append(f'bar ({BAR:.0f}% a file): '
                 + ('every file reaches it' if not short else f'{len(short)} file(s) below'))
    lines += [f'  {line}' for line in short]
    survivors = [r for r in record.results if r.verdict == SURVIVED]
    lines += ['', f'## Survivors ({len(survivors)})', '',
              'Each needs a test that kills it, or a line in kunit/mutation-notes.md saying '
              'why it is equivalent.']
    for r in survivors:
        m = r.mutant
        where = f' in {m.function}()' if m.function else ''
        lines += ['', f'### {m.location}{where}: {m.operator}', '', f'`{m.id}`', '', '```diff',
                  r.diff.rstrip('\n'), '```']
    for verdict, title in ((TIMED_OUT, 'Timed out'), (KILLED, 'Killed'),
                           (BUILD_KILLED, 'Build-killed')):
        these = [r for r in record.results if r.verdict == verdict]
        lines += ['', f'## {title} ({len(these)})', '']
        lines += [f'- `{r.mutant.id}` {r.mutant.describe()}: {r.by}: {r.detail} '
                  f'({r.seconds:.0f} s)' for r in these]
    uncovered = [r for r in record.results if r.verdict == NOT_COVERED]
    lines += ['', f'## Not covered ({len(uncovered)})', '']
    for path in record.files:
        lines_of = sorted({r.mutant.line for r in uncovered if r.mutant.path == path})
        if lines_of:
            lines.append(f'- {path}: lines {", ".join(map(str, lines_of))}')
    if notes:
        lines += ['', *notes.rstrip('\n').splitlines()]
    return '\n'.join(lines) + '\n'


def judged_files(plans: Sequence[Plan]) -> Judges:
    """Every test of the plans' files, for the run on the fork as it is."""
    return merged(p.judges for p in plans if p.mutants)


def generate(path: str, text: str) -> mutants.FileMutants:
    """mutants.generate(), its refusal a ToolError naming the file."""
    try:
        return mutants.generate(path, text)
    except mutants.MutantError as err:
        raise ToolError(str(err)) from err
