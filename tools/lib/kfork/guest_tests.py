"""The guest suites and how each is judged.

Upstream's selftests (ftrace, tdc) are judged against a baseline: the
file tools/guest/baseline/SUITE.txt records what each test does on the
upstream implementation in this setup, and is reviewed like code. The
fork must pass every test that passes there; a test that does better on
the fork is reported, not failed. On the upstream implementation itself
any difference fails: the baseline is stale.

The project's own suites (uprobe, traffic, tc) print TAP with a plan, and
every case must pass on both builds. Their 'kfork-diff: KEY VALUE' lines
must also be alike on both builds (tools/vm compare).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Sequence

from .common import UPSTREAM_IMPL, project_root
from .counts import Counts, total

BASELINE_SUITES = ('ftrace', 'tdc')
OWN_SUITES = ('uprobe', 'traffic', 'tc')
SUITES = BASELINE_SUITES + OWN_SUITES
PASS = 'PASS'
BASELINE_DIR = project_root() / 'tools' / 'guest' / 'baseline'

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


def parse_own(text: str) -> Dict[str, str]:
    """The project's own TAP: each case by name; cases the plan promised
    but the output never reached (a crash, a kill) fail under one name."""
    results = parse_tdc(text)
    plans = [int(m.group(1)) for m in map(_PLAN.match, text.splitlines()) if m]
    if not plans:
        results['(no TAP plan: the suite did not run)'] = 'FAIL'
    elif len(results) < plans[-1]:
        results[f'(plan of {plans[-1]}: {plans[-1] - len(results)} cases never reported)'] = 'FAIL'
    return results


PARSERS = {'ftrace': parse_ftrace, 'tdc': parse_tdc, 'uprobe': parse_own, 'traffic': parse_own,
           'tc': parse_own}


def read_results(folder: Path, suites: Sequence[str]) -> Dict[str, Dict[str, str]]:
    """Each suite's results from the raw output (SUITE.out) its guest
    run left in folder; a suite that never ran has none."""
    results = {}
    for suite in suites:
        out = folder / f'{suite}.out'
        text = out.read_text(errors='replace') if out.is_file() else ''
        results[suite] = PARSERS[suite](text)
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


def expected(suite: str, got: Dict[str, str]) -> Dict[str, str]:
    """What each test should do: the baseline, or for the project's own
    suites a pass of every case."""
    if suite in OWN_SUITES:
        return {name: PASS for name in got}
    return load_baseline(suite)


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


def tap(suite: str, verdicts: List[Verdict]) -> List[str]:
    """TAP lines and the closing 'SUITE: N passed, N failed, N skipped'."""
    lines = [f'# guest suite {suite}', f'1..{len(verdicts)}']
    for n, v in enumerate(verdicts, 1):
        note = f' # {v.note}' if v.note else ''
        if v.failed:
            lines.append(f'not ok {n} {v.name}{note}')
        elif v.got == PASS:
            lines.append(f'ok {n} {v.name}{note}')
        else:
            lines.append(f'ok {n} {v.name} # SKIP {v.got} as on upstream{note and ", " + v.note}')
    lines.append(counts(verdicts).line(suite))
    return lines
