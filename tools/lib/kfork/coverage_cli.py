"""tools/coverage: how much of the overlay's files the tests reach."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from . import coverage, deps, guest_tests, runner, session, tree, vm
from .counts import total
from .common import FORK, VARIANTS, ToolError, WorkArea, guard, project_root, run, say, verb_parser
from .vm_cli import GUEST_TEST_PACKAGES

DESCRIPTION = """\
Measure line, branch and function coverage of every file in
kernel-overlay/ under the project's tests, on the fork and on the
upstream implementation (the same paths, the distro's files).

verbs:
  run [--out DIR]   build both variants with gcov on the overlay's files
                    (build/VERSION/coverage-VARIANT), boot both at once
                    running the KUnit suites and every guest suite in
                    one boot each, and write the report
  report [--out DIR]
                    the report again from the last run's counters,
                    without building or booting

The report is a table (DIR/coverage.md, also printed): for each file,
the figures under make check's tests (KUnit suites and guest suites),
under the KUnit suites alone and under upstream's selftests alone
(ftracetest and tdc), with an HTML report of the make check figures in
DIR/html/VARIANT/index.html. DIR defaults to out/coverage. A file
without data shows as 0% with the reason. The exit status is 1 when a
guest failed (its coverage so far is still reported), 0 otherwise:
the figures are measured, not judged.
"""

DEFAULT_OUT = project_root() / 'out' / 'coverage'
GUEST_SCRIPT = project_root() / 'tools' / 'guest' / 'coverage'
# Why what stays uncovered does: the report ends with it.
NOTES = project_root() / 'kunit' / 'coverage-notes.md'


def _parser() -> argparse.ArgumentParser:
    parser, verbs = verb_parser('tools/coverage', DESCRIPTION)
    for name, what in (('run', 'build, boot and report'),
                       ('report', 'report the last run again')):
        verb = verbs.add_parser(name, help=what)
        verb.add_argument('--out', type=Path, default=DEFAULT_OUT,
                          help=f'folder of the report (default: {DEFAULT_OUT})')
        if name == 'run':
            verb.add_argument('--timeout', type=int, default=3600,
                              help='seconds before a guest is killed (default: 3600)')
    return parser


def _run_folder(work: WorkArea, variant: str) -> Path:
    return work.root / 'coverage' / variant


def _build(variants: Sequence[str], paths: Sequence[str]) -> Dict[str, Path]:
    work, src, version = session.prepare()
    images = {}
    for variant in variants:
        tree.sync(src, tree.default_overlay(), variant)
        spec = session.spec(work, src, version, coverage.build_name(variant),
                            fragments=[coverage.FRAGMENT],
                            make_options=coverage.make_options(paths))
        images[variant] = runner.build_kernel(spec, work, variant)
    return images


def _boot(images: Dict[str, Path], timeout: int) -> Dict[str, vm.GuestRun]:
    work = WorkArea.from_env()
    command = [str(GUEST_SCRIPT), str(work.src)]

    def one(variant: str) -> Callable[[], vm.GuestRun]:
        return lambda: vm.boot(images[variant], _run_folder(work, variant), variant,
                               command, project_root(), timeout, stream=False, kunit=True)

    say(f'booting {" and ".join(images)} at once with the KUnit suites on; consoles in '
        f'{", ".join(str(_run_folder(work, v) / "console.log") for v in images)} '
        f'(about 20 minutes: ftracetest takes most)')
    runs = vm.at_once({v: one(v) for v in images})
    for result in runs.values():
        vm.announce(result)
    return runs


def _kunit_summary(src: Path, folder: Path, variant: str) -> str:
    """The KUnit results of a boot, judged as tools/kunit judges them."""
    log = folder / 'kunit.log'
    if not log.is_file():
        return 'KUnit: no log (the guest never reached init)'
    parsed = folder / 'kunit.json'
    run([sys.executable, str(src / 'tools/testing/kunit/kunit.py'), 'parse',
         f'--json={parsed}', str(log)], check=False)
    cases = runner.cases_from_json(parsed.read_text()) if parsed.is_file() else {}
    marked = runner.Marked.load(project_root() / 'kunit' / 'project-behaviour')
    return runner.Outcome(variant, cases, marked).counts.line('KUnit')


def _guest_summary(folder: Path, variant: str) -> str:
    results = guest_tests.read_results(folder, guest_tests.names())
    return total(guest_tests.counts(guest_tests.judge_suite(variant, suite, got))
                 for suite, got in results.items()).line('guest suites')


def _report(variants: Sequence[str], paths: Sequence[str], out: Path,
            boots: Optional[Dict[str, vm.GuestRun]] = None) -> List[vm.GuestRun]:
    """Figures of each variant's last boot (boots, or what the guests
    left in their folders), the table, and what the tests did."""
    coverage.require_gcovr()
    work, src, version = session.prepare()
    out.mkdir(parents=True, exist_ok=True)
    data, runs = [], []
    for variant in variants:
        folder = _run_folder(work, variant)
        if not folder.is_dir():
            raise ToolError(f'{variant}: no coverage run in {folder}: run tools/coverage run first')
        # gcov reads the sources the build compiled: the variant's branch.
        tree.sync(src, tree.default_overlay(), variant)
        build_dir = work.build_dir(version, coverage.build_name(variant))
        data.append(coverage.measure(variant, src.path, build_dir, folder, paths, out))
        runs.append(boots[variant] if boots else vm.read_result(vm.GuestRun(variant, folder)))
    tree.sync(src, tree.default_overlay(), FORK)
    lines = [f'Coverage of kernel-overlay/ on {time.strftime("%Y-%m-%d")}, '
             f'{coverage.MAKE_CHECK} = KUnit suites + guest suites (tools/coverage run).', '']
    lines += coverage.table(data, paths)
    for result, figures in zip(runs, data):
        lines.append(f'{result.variant}: phases reached: {", ".join(figures.reached) or "none"}; '
                     f'{_kunit_summary(src.path, result.folder, result.variant)}; '
                     f'{_guest_summary(result.folder, result.variant)}')
    fork = next((d for d in data if d.variant == FORK), None)
    if fork:
        short = coverage.below_bar(fork, paths)
        lines.append(f'bar ({coverage.BAR["line"]:.0f}% of lines, {coverage.BAR["branch"]:.0f}% '
                     f'of branches under {coverage.MAKE_CHECK}, fork): '
                     + ('every file reaches it' if not short else f'{len(short)} file(s) below'))
        lines += [f'  {line}' for line in short]
    if NOTES.is_file():
        lines += ['', *NOTES.read_text().splitlines()]
    (out / 'coverage.md').write_text('\n'.join(lines) + '\n')
    (out / 'coverage.json').write_text(json.dumps(
        {d.variant: {name: {p: f.counts for p, f in files.items()}
                     for name, files in d.sets.items()} for d in data}, indent=1) + '\n')
    print('\n'.join(lines))
    say(f'report: {out / "coverage.md"}; HTML: '
        f'{", ".join(str(out / "html" / v / "index.html") for v in variants)}')
    return runs


def _dispatch(args: argparse.Namespace) -> int:
    if args.verb not in ('run', 'report'):
        _parser().print_help()
        return 2
    paths = tree.default_overlay().files(FORK)
    if not coverage.profiled_files(paths):
        raise ToolError('kernel-overlay/ has no .c file to measure')
    variants = list(VARIANTS)
    boots = None
    if args.verb == 'run':
        deps.ensure([*GUEST_TEST_PACKAGES, 'gcovr'])
        vm.require_programs(['qemu-system-x86_64', 'gcovr', 'tc', 'ip', 'gcc', 'readelf'])
        boots = _boot(_build(variants, paths), args.timeout)
    runs = _report(variants, paths, args.out, boots)
    for result in runs:
        if not result.ok:
            say(f'{result.variant}: {result.problem()}: the figures cover what ran before')
    return 0 if all(r.ok for r in runs) else 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    return guard('tools/coverage', lambda: _dispatch(args))
