"""tools/measure: regenerate a section of MEASUREMENTS.md.

MEASUREMENTS.md is the one place for measured figures. Each figure a
tool can measure sits in a section between two markers,

    <!-- BEGIN measure:NAME -->
    ...
    <!-- END measure:NAME -->

and `tools/measure NAME` runs what that section measures and rewrites
the lines between its markers (the date, `nproc`, the figures), leaving
the rest of the file as it was. The sections are SECTIONS below; the
figures come as values (Counts from $KFORK_COUNTS, bench.Figures from
the bench code, the coverage summary's JSON), never from printed text.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Callable, List, Mapping, Optional, Sequence, Tuple

from . import bench, cli, coverage, coverage_cli, vm_cli
from .common import COLUMNS, VCPUS, VCPUS_ENV, Parser, ToolError, guard, project_root, say
from .counts import COUNTS_ENV, Counts
from .counts import read as read_counts

MEASUREMENTS = project_root() / 'MEASUREMENTS.md'


def begin(name: str) -> str:
    return f'<!-- BEGIN measure:{name} -->'


def end(name: str) -> str:
    return f'<!-- END measure:{name} -->'


@dataclass(frozen=True)
class Result:
    """One command's run: its wall-clock time, exit status and the counts
    it handed over through $KFORK_COUNTS (None when it wrote none)."""

    seconds: float
    status: int
    counts: Optional[Counts]


class Runner:
    """What the sections run and when; the unit tests put a stand-in here."""

    def __init__(self, root: Path = project_root(),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.root = root
        self.clock = clock
        # Where tools/coverage run writes its report for the coverage section.
        self.coverage_out = coverage_cli.DEFAULT_OUT

    def date(self) -> str:
        return time.strftime('%Y-%m-%d')

    def nproc(self) -> int:
        return len(os.sched_getaffinity(0))

    def command(self, argv: Sequence[str], env: Mapping[str, str] = MappingProxyType({})
                ) -> Result:
        """Run argv in the checkout, its output going to the terminal, with
        $KFORK_COUNTS naming a file of its own and ENV added."""
        with tempfile.TemporaryDirectory(prefix='kfork-measure.') as tmp:
            counts_file = Path(tmp) / 'counts.json'
            env = {**os.environ, **env, COUNTS_ENV: str(counts_file)}
            say(f'measure: {" ".join(argv)}')
            start = self.clock()
            status = subprocess.run(list(argv), cwd=self.root, env=env, check=False).returncode
            seconds = self.clock() - start
            counts = read_counts(counts_file)
        return Result(seconds, status, counts)

    def kunit_bench(self, boots: int, glob: str, production: bool
                    ) -> Tuple[bench.Figures, float]:
        """tools/kunit bench in this process: its figures and wall time."""
        start = self.clock()
        figures = cli.bench_figures(boots, 300, glob, production)
        return figures, self.clock() - start

    def vm_bench(self, boots: int, production: bool) -> Tuple[bench.Figures, float]:
        """tools/vm bench in this process: its figures and wall time."""
        start = self.clock()
        figures = vm_cli.bench_figures(boots, 2000, 600, production)
        return figures, self.clock() - start


def duration(seconds: float) -> str:
    """'45 s', '1 min 11 s', '1 h 2 min'."""
    s = int(round(seconds))
    if s < 60:
        return f'{s} s'
    if s < 3600:
        return f'{s // 60} min {s % 60} s'
    return f'{s // 3600} h {s % 3600 // 60} min'


def shell(argv: Sequence[str]) -> str:
    """argv as one would type it (quoted where a shell would need it)."""
    return ' '.join(a if a and all(c.isalnum() or c in './-_=' for c in a) else f"'{a}'"
                    for a in argv)


def header(name: str, runner: Runner, how: str) -> str:
    return (f'Measured on {runner.date()} on {runner.nproc()} cores (`nproc`), '
            f'{how}; regenerate with `./tools/measure {name}`.')


def _counts_cell(counts: Optional[Counts]) -> str:
    return counts.cell() if counts is not None else '-'


# The developer loop: each command in turn, in this order (the first
# brings the fork's build up to date, so that the second finds nothing
# changed), with what its row means.
LOOP: Tuple[Tuple[Tuple[str, ...], str], ...] = (
    (('./tools/kunit', 'run'), 'the fork brought up to date (its time depends on what changed)'),
    (('./tools/kunit', 'run'), 'again with nothing changed: the build booted as it is'),
    (('./tools/kunit', 'run', '--full'), 'the suites at full size, fork only'),
    (('./tools/kunit', 'compare', '--full'), 'both builds at full size (make check\'s stage)'),
    (('./tools/vm', 'run', '--', 'true'), 'boot the fork\'s image to a command'),
    (('./tools/vm', 'compare', 'uprobe'), 'the uprobe guest suite on both builds at once'),
)

LOOP_HEAD = ['| command | what | wall | exit | passed/failed/skipped |',
             '|---|---|---|---|---|']


def loop_row(argv: Sequence[str], what: str, result: Optional[Result]) -> str:
    """A row of the loop table; without a result, to be re-measured."""
    if result is None:
        cells = ['to be re-measured', '', '']
    else:
        cells = [duration(result.seconds), str(result.status), _counts_cell(result.counts)]
    return '| ' + ' | '.join([f'`{shell(argv)}`', what, *cells]) + ' |'


def measure_loop(runner: Runner) -> List[str]:
    rows = [loop_row(argv, what, runner.command(argv)) for argv, what in LOOP]
    return [header('loop', runner, 'each command run in turn, as the table lists them, '
                   'with its wall-clock time, exit status and the counts it handed over'),
            '', *LOOP_HEAD, *rows]


# What a second vCPU costs or saves: boot alone, boot and a guest suite,
# boot and the KUnit suites (the kernels built), on one vCPU and on two.
VCPU_RUNS: Tuple[Tuple[str, ...], ...] = (
    ('./tools/vm', 'run', '--', 'true'),
    ('./tools/vm', 'test', 'tc'),
    ('./tools/kunit', 'run'),
)


def measure_vcpus(runner: Runner) -> List[str]:
    rows = []
    for argv in VCPU_RUNS:
        for count in (1, VCPUS):
            result = runner.command(argv, {VCPUS_ENV: str(count)})
            rows.append(f'| `{shell(argv)}` | {count} | {duration(result.seconds)} | '
                        f'{result.status} | {_counts_cell(result.counts)} |')
    return [header('vcpus', runner, f'each command with ${VCPUS_ENV} at 1 and at {VCPUS}, '
                   'the kernels built before'),
            '', '| command | vCPUs | wall | exit | passed/failed/skipped |',
            '|---|---|---|---|---|', *rows]


def bench_lines(figures: bench.Figures) -> List[str]:
    """The bench table as Markdown: the rows bench.table prints."""
    lines = ['| figure | ' + ' | '.join(COLUMNS) + ' | ratio | per boot | verdict |',
             '|---|' + '---|' * (len(COLUMNS) + 3)]
    for row in bench.rows(figures):
        lines.append(f'| `{row.key}` | {row.upstream.cell()} | {row.fork.cell()} | {row.ratio} '
                     f'| {row.spread} | {row.verdict} |')
    return lines + ['', f'For each figure, {bench.RATIO_NOTE}.']


def _kernel(production: bool) -> str:
    return ('the production kernels (kunit/production.kunitconfig)' if production
            else 'the debug kernels (KASAN, UBSAN, lockdep, kmemleak)')


def kunit_bench_argv(boots: int, glob: str, production: bool) -> List[str]:
    """The tools/kunit bench command that measures what Runner.kunit_bench does."""
    return ['./tools/kunit', 'bench', '--boots', str(boots), *([] if production else ['--debug']),
            *([glob] if glob != cli.BENCH_GLOB else [])]


def _kunit_bench(name: str, boots: int, glob: str, production: bool
                 ) -> Callable[[Runner], List[str]]:
    def measure(runner: Runner) -> List[str]:
        figures, seconds = runner.kunit_bench(boots, glob, production)
        argv = kunit_bench_argv(boots, glob, production)
        return [header(name, runner, f'`{shell(argv)}` on {_kernel(production)}, '
                       f'{duration(seconds)}'), '', *bench_lines(figures)]
    return measure


VM_BENCH_BOOTS = 3


def vm_bench_argv(production: bool) -> List[str]:
    return ['./tools/vm', 'bench', '--boots', str(VM_BENCH_BOOTS),
            *([] if production else ['--debug'])]


def _vm_bench(name: str, production: bool) -> Callable[[Runner], List[str]]:
    def measure(runner: Runner) -> List[str]:
        figures, seconds = runner.vm_bench(VM_BENCH_BOOTS, production)
        return [header(name, runner, f'`{shell(vm_bench_argv(production))}` on '
                       f'{_kernel(production)}, {duration(seconds)}'), '',
                *bench_lines(figures)]
    return measure


# The test sets the summary shows (the report has the KUnit set too).
COVERAGE_SETS = ('make check', 'upstream selftests')


def is_suite(path: str) -> bool:
    """A test suite's own file (*_kunit.c, *_kunit.h), not the code it tests."""
    return '_kunit' in path.rsplit('/', 1)[-1]


def coverage_lines(summary: coverage.Summary) -> List[str]:
    """A row per implementation file and test set, a column per build and
    kind; the suites' own files, and a row where nothing of the file ran
    on either build, are left out."""
    kinds = ('line', 'branch')
    variants = [v for v in COLUMNS if v in summary]
    lines = ['| file | tests | '
             + ' | '.join(f'{v} {coverage.PLURAL[k]}' for v in variants for k in kinds) + ' |',
             '|---|---|' + '---|' * (len(variants) * len(kinds))]
    paths = sorted({p for v in variants for s in COVERAGE_SETS
                    for p in summary[v].get(s, {}) if not is_suite(p)})
    for path in paths:
        for test_set in COVERAGE_SETS:
            figures = [summary[v].get(test_set, {}).get(path) for v in variants]
            if not any(f is not None and f.counts['line'][0] for f in figures):
                continue
            cells = [f.cell(k) if f is not None else '-' for f in figures for k in kinds]
            lines.append(f'| `{path.rsplit("/", 1)[-1]}` | {test_set} | '
                         + ' | '.join(cells) + ' |')
    return lines


def _shown(path: Path) -> str:
    """A path in the checkout relative to it, others whole."""
    root = project_root()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def measure_coverage(runner: Runner) -> List[str]:
    argv = ['./tools/coverage', 'run', '--out', _shown(runner.coverage_out)]
    result = runner.command(argv)
    path = runner.coverage_out / coverage.SUMMARY
    if not path.is_file():
        raise ToolError(f'{shell(argv)} left no {path} (exit status {result.status})')
    try:
        summary = coverage.read_summary(path.read_text())
    except ValueError as err:
        raise ToolError(f'{path}: {err}') from err
    how = f'`{shell(argv)}`, {duration(result.seconds)}'
    if result.status:
        how += f', exit status {result.status} (a guest failed: the figures cover what ran)'
    return [header('coverage', runner, how), '', *coverage_lines(summary), '',
            'The suites\' own files, functions, the KUnit-only figures and why what '
            f'stays uncovered does are in `{_shown(runner.coverage_out / "coverage.md")}`.']


def measure_check(runner: Runner) -> List[str]:
    result = runner.command(['make', 'check'])
    counts = (result.counts.line('check') if result.counts is not None
              else 'no counts (it stopped before its last line)')
    return [header('check', runner, '`make check` from this checkout'), '',
            f'- wall-clock time: {duration(result.seconds)}',
            f'- exit status: {result.status}',
            f'- `{counts}`']


@dataclass(frozen=True)
class Section:
    name: str
    commands: Tuple[str, ...]
    measure: Callable[[Runner], List[str]]


SECTIONS: Tuple[Section, ...] = (
    Section('loop', tuple(shell(argv) for argv, _ in LOOP), measure_loop),
    Section('kunit-bench', (shell(kunit_bench_argv(3, cli.BENCH_GLOB, True)),),
            _kunit_bench('kunit-bench', 3, cli.BENCH_GLOB, True)),
    Section('probe-bench', (shell(kunit_bench_argv(6, 'probe_*_bench', True)),),
            _kunit_bench('probe-bench', 6, 'probe_*_bench', True)),
    Section('vm-bench', (shell(vm_bench_argv(True)),), _vm_bench('vm-bench', True)),
    Section('kunit-bench-debug', (shell(kunit_bench_argv(3, cli.BENCH_GLOB, False)),),
            _kunit_bench('kunit-bench-debug', 3, cli.BENCH_GLOB, False)),
    Section('vm-bench-debug', (shell(vm_bench_argv(False)),),
            _vm_bench('vm-bench-debug', False)),
    Section('coverage', (f'./tools/coverage run --out {_shown(coverage_cli.DEFAULT_OUT)}',),
            measure_coverage),
    Section('vcpus', tuple(f'{VCPUS_ENV}=N {shell(argv)}' for argv in VCPU_RUNS),
            measure_vcpus),
    Section('check', ('make check',), measure_check),
)


def section(name: str) -> Section:
    for s in SECTIONS:
        if s.name == name:
            return s
    raise ToolError(f'no section {name} (sections: {", ".join(s.name for s in SECTIONS)})')


def sections_in(text: str) -> List[str]:
    """The names of the sections a file holds, in order."""
    prefix, suffix = begin('\0').split('\0')
    return [line[len(prefix):-len(suffix)] for line in text.splitlines()
            if line.startswith(prefix) and line.endswith(suffix)]


def splice(text: str, name: str, body: Sequence[str]) -> str:
    """text with the lines between NAME's markers replaced by body; every
    other character stays as it was."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip('\n') == begin(name)]
    ends = [i for i, line in enumerate(lines) if line.rstrip('\n') == end(name)]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ToolError(f'section {name}: want one line {begin(name)} and after it one '
                        f'line {end(name)}; found {len(starts)} and {len(ends)}')
    return ''.join(lines[:starts[0] + 1] + [line + '\n' for line in body] + lines[ends[0]:])


def rewrite(path: Path, name: str, body: Sequence[str]) -> None:
    """Splice the section into the file, whole or not at all."""
    text = splice(path.read_text(), name, body)
    partial = path.with_name(path.name + '.partial')
    partial.write_text(text)
    partial.replace(path)


def list_lines(present: Optional[Sequence[str]] = None) -> List[str]:
    """Each section and the commands it runs; with present (the sections
    a file holds), those the file lacks are marked."""
    width = max(len(s.name) for s in SECTIONS)
    lines = []
    for s in SECTIONS:
        mark = '' if present is None or s.name in present else '  (no markers in the file)'
        lines.append(f'{s.name:<{width}}  {s.commands[0]}{mark}')
        lines += [f'{"":<{width}}  {c}' for c in s.commands[1:]]
    return lines


DESCRIPTION = """\
Regenerate a section of MEASUREMENTS.md: run what the section measures
and rewrite the lines between its markers (<!-- BEGIN measure:NAME -->
and <!-- END measure:NAME -->) with the date, the core count (nproc)
and the figures, leaving the rest of the file as it is. A section whose
measurement fails stays as it was (exit status 2).

Each section takes minutes to most of an hour and uses the work area:
run one at a time, with nothing else building or booting. --list shows
the sections and what each runs.

sections (the loop's commands run in turn, a table row each):
""" + '\n'.join(f'  {line}' for line in list_lines()) + '\n'


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog='tools/measure', description=DESCRIPTION,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('names', nargs='*', metavar='NAME', help='the sections to measure')
    parser.add_argument('--list', action='store_true',
                        help='list the sections and the commands they run')
    parser.add_argument('--file', type=Path, default=MEASUREMENTS,
                        help=f'the file to rewrite (default: {MEASUREMENTS})')
    return parser


def _dispatch(args: argparse.Namespace, runner: Runner) -> int:
    path: Path = args.file
    if not path.is_file():
        raise ToolError(f'no {path}')
    if args.list or not args.names:
        print('\n'.join(list_lines(sections_in(path.read_text()))))
        return 0
    chosen = [section(name) for name in args.names]
    for s in chosen:
        splice(path.read_text(), s.name, [])  # no markers: stop before any work
    for s in chosen:
        rewrite(path, s.name, s.measure(runner))
        say(f'measure: {s.name} rewritten in {path}')
    return 0


def main(argv: Optional[Sequence[str]] = None, runner: Optional[Runner] = None) -> int:
    args = _parser().parse_args(argv)
    return guard('tools/measure', lambda: _dispatch(args, runner or Runner()))


if __name__ == '__main__':
    sys.exit(main())
