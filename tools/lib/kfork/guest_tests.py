"""The guest suites, registered in SUITES, and how each is judged.

SUITES is the one list of the guest suites: each one's name, kind, how
the guest starts it (tools/guest/run, kfork.guest_run), its time limit
there, the parser of its raw output and its line in tools/vm --help.
Everything else (tools/vm, tools/coverage, tools/guest/coverage) takes
the suites from it.

Upstream's selftests (ftrace, tdc) are judged against a baseline: the
file tools/guest/baseline/SUITE.txt records what each test does on the
upstream implementation in this setup, and is reviewed like code. The
fork must pass every test that passes there; a test that does better on
the fork is reported, not failed. On the upstream implementation itself
any difference fails: the baseline is stale.

The project's own suites (kprobe, uprobe, probestress, traffic,
qdiscstress, tc, clients) print TAP with a plan, and every case must pass on both builds.
Their 'kfork-diff: KEY VALUE' lines must also be alike on both builds
(tools/vm compare).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .common import UPSTREAM_IMPL, ToolError, project_root
from .counts import Counts, total
from .guest_kprobe import BOOT_EVENTS

PASS = 'PASS'
BASELINE_DIR = project_root() / 'tools' / 'guest' / 'baseline'
# The kinds of suite: upstream's tests, judged against a baseline, and
# the project's own, whose every case must pass on both builds.
BASELINE, OWN = 'baseline', 'own'
# The project's own suites are modules kfork.guest_NAME beside this one.
LIB = project_root() / 'tools' / 'lib'

_FTRACE = re.compile(r'^\[(\d+)\]\s*(.*?)\s*\[(PASS|FAIL|UNRESOLVED|UNTESTED|UNSUPPORTED|XFAIL)\]\s*$')
_TAP = re.compile(r'^(ok|not ok) \d+ (.*?)\s*(# (skip|SKIP|skipped).*)?$')


_FTRACE_STARTED = re.compile(r'^\[(\d+)\]\s*(.*?)\s*$')


def parse_ftrace(text: str) -> Dict[str, str]:
    """ftracetest's '[N] description<TAB>[RESULT]' lines; a case that
    started but never printed its result (killed at the timeout) is
    TIMEOUT, so the report names it."""
    results: Dict[str, str] = {}
    for line in text.splitlines():
        m = _FTRACE.match(line.strip())
        if m:
            results[m.group(2)] = m.group(3)
            continue
        started = _FTRACE_STARTED.match(line.strip())
        if started and started.group(2):
            results[started.group(2)] = 'TIMEOUT'
    return results


def parse_tdc(text: str) -> Dict[str, str]:
    """tdc's TAP: 'ok N ID - name', 'not ok ...', '# skipped ...'."""
    results: Dict[str, str] = {}
    for line in text.splitlines():
        m = _TAP.match(line.strip())
        if m:
            name = m.group(2)
            results[name] = 'SKIP' if m.group(3) else (PASS if m.group(1) == 'ok' else 'FAIL')
    return results


_PLAN = re.compile(r'^1\.\.(\d+)$')


# An own suite's case that could not run here, as its TAP says why:
# 'SKIP: why' (a client that is not installed, say).
OWN_SKIP = 'SKIP: '
_OWN_SKIP = re.compile(r'^ok \d+ (.*?)\s*# SKIP\s*(.*)$')


def parse_own(text: str) -> Dict[str, str]:
    """The project's own TAP: each case by name, a skipped one with its
    reason; cases the plan promised but the output never reached (a
    crash, a kill) fail under one name."""
    results = parse_tdc(text)
    for m in map(_OWN_SKIP.match, (line.strip() for line in text.splitlines())):
        if m:
            results[m.group(1)] = OWN_SKIP + (m.group(2) or 'no reason given')
    plans = [int(m.group(1)) for m in map(_PLAN.match, text.splitlines()) if m]
    if not plans:
        results['(no TAP plan: the suite did not run)'] = 'FAIL'
    elif len(results) < plans[-1]:
        results[f'(plan of {plans[-1]}: {plans[-1] - len(results)} cases never reported)'] = 'FAIL'
    return results


@dataclass(frozen=True)
class GuestCommand:
    """How the guest starts a suite: argv, in cwd (None: where the runner
    runs, the checkout) after copying copy_from there, with env added."""

    argv: Tuple[str, ...]
    cwd: Optional[Path] = None
    env: Mapping[str, str] = field(default_factory=dict)
    copy_from: Optional[Path] = None


def _ftracetest(tree: Path, out: Path) -> GuestCommand:
    # ftracetest writes only to its log folder and /tmp (a tmpfs).
    return GuestCommand(('./ftracetest', '-l', str(out / 'ftrace-logs'),
                         'test.d/kprobe', 'test.d/dynevent'),
                        cwd=tree / 'tools/testing/selftests/ftrace')


def _tdc(tree: Path, out: Path) -> GuestCommand:
    # tdc writes next to itself (results, rewritten JSON): run a copy.
    return GuestCommand(('python3', './tdc.py', '-f', 'tc-tests/qdiscs/hhf.json',
                         'tc-tests/qdiscs/fq_pie.json'),
                        cwd=Path('/tmp/tc-testing'),
                        copy_from=tree / 'tools/testing/selftests/tc-testing')


def _own(name: str) -> Callable[[Path, Path], GuestCommand]:
    """The project's own suite NAME: module kfork.guest_NAME with the
    host's python3, a scratch folder of its own on the guest's /tmp."""
    def command(tree: Path, out: Path) -> GuestCommand:
        return GuestCommand(('python3', '-m', f'kfork.guest_{name}', f'/tmp/kfork-{name}'),
                            env={'PYTHONPATH': str(LIB)})
    return command


@dataclass(frozen=True)
class Suite:
    """One guest suite."""

    name: str
    kind: str
    # The guest kills it after this many seconds, so that a hang costs
    # one suite, not the run; its unfinished case shows as TIMEOUT.
    limit: int
    # Its raw output (SUITE.out) as results by test name.
    parse: Callable[[str], Dict[str, str]]
    # How the guest starts it, given the distro tree and $KFORK_OUT.
    command: Callable[[Path, Path], GuestCommand]
    # What it tests, for tools/vm --help.
    about: str
    # Make targets the host builds first: the guest's root is read-only.
    make: Tuple[str, ...] = ()
    # Words the kernel's command line needs for it (boot-time settings).
    kernel_args: Tuple[str, ...] = ()

    @property
    def own(self) -> bool:
        return self.kind == OWN


SUITES: Tuple[Suite, ...] = (
    # first: the others may clear the events its boot line defines
    Suite('kprobe', OWN, 300, parse_own, _own('kprobe'),
          'kprobe events defined on the kernel command line, and the tree\'s '
          'kprobe_event_gen_test module', kernel_args=(BOOT_EVENTS,)),
    # ftracetest registers and removes thousands of kprobes: on two
    # vCPUs of a fully preemptible kernel it took 32 min (15 on one)
    Suite('ftrace', BASELINE, 3600, parse_ftrace, _ftracetest,
          'ftracetest\'s kprobe/ and dynevent/ cases from the distro tree'),
    Suite('tdc', BASELINE, 600, parse_tdc, _tdc,
          'tc-testing\'s hhf and fq_pie cases from the distro tree'),
    Suite('uprobe', OWN, 600, parse_own, _own('uprobe'),
          'uprobe events with every fetch method on a program compiled in the guest'),
    Suite('probestress', OWN, 600, parse_own, _own('probestress'),
          'uprobe and kprobe events hit on every vCPU while other processes enable, '
          'remove, add to and perf-open them; counts exact'),
    Suite('traffic', OWN, 600, parse_own, _own('traffic'),
          'pie, fq_pie and hhf under real traffic between two namespaces'),
    Suite('qdiscstress', OWN, 600, parse_own, _own('qdiscstress'),
          'pie, fq_pie and hhf fed from every vCPU while other processes dump, change '
          'and replace them; counts exact'),
    Suite('tc', OWN, 600, parse_own, _own('tc'),
          'every pie, fq_pie and hhf option through the machine\'s tc'),
    Suite('clients', OWN, 900, parse_own, _own('clients'),
          'perf probe/record/script, bpftrace, USDT and tools/uprobe on the seed '
          'cover letter\'s program', make=('out/bin/uprobe',)),
)


def booting_with_args() -> Tuple[str, ...]:
    """The suites that name words for the kernel's command line."""
    return tuple(s.name for s in SUITES if s.kernel_args)


def kernel_args(suites: Iterable[str]) -> Tuple[str, ...]:
    """The command-line words a boot running SUITES needs."""
    return tuple(arg for name in suites for arg in suite(name).kernel_args)


def names(kind: Optional[str] = None) -> Tuple[str, ...]:
    """The suites' names in order, or those of one kind."""
    return tuple(s.name for s in SUITES if kind is None or s.kind == kind)


def suite(name: str) -> Suite:
    for known in SUITES:
        if known.name == name:
            return known
    raise ToolError(f'unknown suite {name} (suites: {", ".join(names())})')


def help_lines() -> List[str]:
    """The suites for a --help text: name, kind, limit and what it tests."""
    width = max(len(s.name) for s in SUITES) + 4
    kinds = {BASELINE: 'upstream\'s', OWN: 'the project\'s'}
    lines = []
    for s in SUITES:
        lines += textwrap.wrap(f'{s.about} ({kinds[s.kind]}, {s.limit} s)', width=72,
                               initial_indent=f'  {s.name:<{width}}',
                               subsequent_indent=' ' * (width + 2))
    return lines


def read_results(folder: Path, suites: Sequence[str]) -> Dict[str, Dict[str, str]]:
    """Each suite's results from the raw output (SUITE.out) its guest
    run left in folder; a suite that never ran has none."""
    results = {}
    for name in suites:
        out = folder / f'{name}.out'
        text = out.read_text(errors='replace') if out.is_file() else ''
        results[name] = suite(name).parse(text)
    return results


# Why a test cannot pass in this setup on any implementation; written
# above its line in the baseline.
REASONS = {
    'Kprobe dynamic event - probing module':
        'needs the trace-printk sample module (SAMPLE_TRACE_PRINTK=m, modprobe); '
        'the guest kernel has no modules',
    'Kprobe dynamic event with function tracer':
        'needs stack_trace_filter (CONFIG_STACK_TRACER), not in the build yet',
}


def load_baseline(suite: str, base: Path = BASELINE_DIR) -> Dict[str, str]:
    path = base / f'{suite}.txt'
    results: Dict[str, str] = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith('#'):
                status, _, name = line.partition('\t')
                results[name] = status
    return results


def expected(name: str, got: Dict[str, str]) -> Dict[str, str]:
    """What each test should do: the baseline, or for the project's own
    suites a pass of every case."""
    if suite(name).own:
        return {test: PASS for test in got}
    return load_baseline(name)


def write_baseline(suite: str, results: Dict[str, str], header: str,
                   base: Path = BASELINE_DIR) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    path = base / f'{suite}.txt'
    lines = [f'# {line}' for line in header.splitlines()]
    for name, status in sorted(results.items()):
        if status != PASS and name in REASONS:
            lines.append(f'# {REASONS[name]}')
        lines.append(f'{status}\t{name}')
    path.write_text('\n'.join(lines) + '\n')
    return path


@dataclass(frozen=True)
class Verdict:
    name: str
    baseline: str
    got: str
    failed: bool
    note: str

    @property
    def counts(self) -> Counts:
        """The test as counted: a result that is no pass and no failure
        (as on upstream) is skipped."""
        if self.failed:
            return Counts(failed=1)
        return Counts(passed=1) if self.got == PASS else Counts(skipped=1)


def judge(variant: str, baseline: Dict[str, str], got: Dict[str, str],
          own: bool = False) -> List[Verdict]:
    """One verdict per test named in the baseline or the run."""
    verdicts = []
    for name in sorted(set(baseline) | set(got)):
        base, now = baseline.get(name, 'ABSENT'), got.get(name, 'ABSENT')
        if base == now:
            verdicts.append(Verdict(name, base, now, False, ''))
        elif own and now.startswith(OWN_SKIP):
            verdicts.append(Verdict(name, base, now, False, now[len(OWN_SKIP):]))
        elif own:
            verdicts.append(Verdict(name, base, now, True, f'{now} on {variant}'))
        elif variant == UPSTREAM_IMPL:
            verdicts.append(Verdict(name, base, now, True,
                                    f'baseline says {base}: the baseline is stale '
                                    f'or the setup changed (tools/vm baseline)'))
        elif base == PASS:
            verdicts.append(Verdict(name, base, now, True, f'passes on upstream, {now} here'))
        else:
            verdicts.append(Verdict(name, base, now, False, f'{base} on upstream, {now} here'))
    return verdicts



def counts(verdicts: Iterable[Verdict]) -> Counts:
    return total(v.counts for v in verdicts)


def judge_suite(variant: str, name: str, got: Dict[str, str]) -> List[Verdict]:
    """A suite's results judged as its kind is: against its baseline, or
    every case a pass."""
    return judge(variant, expected(name, got), got, suite(name).own)


def tap(suite: str, verdicts: List[Verdict]) -> List[str]:
    """TAP lines and the closing 'SUITE: N passed, N failed, N skipped'."""
    lines = [f'# guest suite {suite}', f'1..{len(verdicts)}']
    for n, v in enumerate(verdicts, 1):
        note = f' # {v.note}' if v.note else ''
        if v.failed:
            lines.append(f'not ok {n} {v.name}{note}')
        elif v.got == PASS:
            lines.append(f'ok {n} {v.name}{note}')
        elif v.got.startswith(OWN_SKIP):
            lines.append(f'ok {n} {v.name} # SKIP {v.note}')
        else:
            lines.append(f'ok {n} {v.name} # SKIP {v.got} as on upstream{note and ", " + v.note}')
    lines.append(counts(verdicts).line(suite))
    return lines
