"""tools/coverage: how much of the overlay's files the tests reach."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from . import coverage, guest_tests, marks, runner, session, tree, vm
from .counts import Counts, total
from .common import FORK, VARIANTS, ToolError, WorkArea, guard, project_root, run, say, verb_parser
from .vm_cli import prepare_host

DESCRIPTION = """\
Measure line, branch and function coverage of every file in
kernel-overlay/ under the project's tests, on the fork and on the
upstream implementation (the same paths, the distro's files).

verbs:
  run [--out DIR]   build both variants with gcov on the overlay's files
                    (build/VERSION/coverage-VARIANT), boot both at once
                    running the KUnit suites and every guest suite in
                    one boot each, then again without KUnit for the
                    guest suites that need words on the kernel's
                    command line (with them), measure (gcovr, with the
                    tree on each variant's branch in turn, and the
                    HTML reports) and write the report
  report [--out DIR]
                    the report again from what the last run measured
                    (kept in $KFORK_WORK/coverage/VARIANT): it installs,
                    builds, boots and switches nothing; the HTML stays
                    where run wrote it

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
                            kunitconfig=coverage.KUNITCONFIG,
                            make_options=coverage.make_options(paths))
        images[variant] = runner.build_kernel(spec, work, variant)
    return images


def _boot(images: Dict[str, Path], timeout: int) -> Dict[str, vm.GuestRun]:
    """The KUnit and guest boot of each variant, then the boot phase's
    (coverage.BOOT_PHASE); a failed boot phase counts as the variant's
    failure, whose figures then lack that phase."""
    work = WorkArea.from_env()
    command = [str(GUEST_SCRIPT), str(work.src)]

    def one(variant: str) -> Callable[[], vm.GuestRun]:
        return lambda: vm.boot(images[variant], _run_folder(work, variant), variant,
                               command, project_root(), timeout, stream=False, kunit=True,
                               kernel_args=runner.FULL_PARAMS)

    say(f'booting {" and ".join(images)} at once with the KUnit suites on; consoles in '
        f'{", ".join(str(_run_folder(work, v) / "console.log") for v in images)} '
        f'(about 6 minutes: ftracetest takes most)')
    runs = vm.at_once({v: one(v) for v in images})
    for result in runs.values():
        vm.announce(result)
    suites = guest_tests.booting_with_args()

    def again(variant: str) -> Callable[[], vm.GuestRun]:
        folder = _run_folder(work, variant) / coverage.BOOT_PHASE
        return lambda: vm.boot(images[variant], folder, variant, [*command, *suites],
                               project_root(), timeout, stream=False,
                               kernel_args=guest_tests.kernel_args(suites))

    if suites:
        say(f'booting {" and ".join(images)} again for {", ".join(suites)}, with '
            f'{" ".join(guest_tests.kernel_args(suites))} (about a minute)')
        for variant, second in vm.at_once({v: again(v) for v in images}).items():
            vm.announce(second)
            if runs[variant].ok and not second.ok:
                runs[variant] = second
    return runs


def _kunit_counts(src: Path, folder: Path, variant: str) -> Optional[Counts]:
    """The KUnit results of a boot, judged as tools/kunit judges them;
    None when the guest left no log (it never reached init)."""
    log = folder / 'kunit.log'
    if not log.is_file():
        return None
    parsed = folder / 'kunit.json'
    run([sys.executable, str(src / 'tools/testing/kunit/kunit.py'), 'parse',
         f'--json={parsed}', str(log)], check=False)
    cases = runner.cases_from_json(parsed.read_text()) if parsed.is_file() else {}
    marked = marks.project()
    return runner.Outcome(variant, cases, marked).counts


def _guest_counts(folder: Path, variant: str) -> Counts:
    """The guest suites' counts, each suite's from the boot that ran it as
    make check does: those with words on the command line, the boot
    phase's (the first boot runs them without, and they skip)."""
    again = guest_tests.booting_with_args()
    results = guest_tests.read_results(folder, [s for s in guest_tests.names()
                                                if s not in again])
    results.update(guest_tests.read_results(folder / coverage.BOOT_PHASE, again))
    return total(guest_tests.counts(guest_tests.judge_suite(variant, suite, got))
                 for suite, got in results.items())


def _measure(variants: Sequence[str], paths: Sequence[str], out: Path) -> None:
    """Turn each variant's counters into figures (gcov reads the sources
    the build compiled, so the tree goes to the variant's branch, and
    back to the fork's at the end), write the HTML reports to out, and
    keep the figures and the tests' counts in the run folder."""
    work, src, version = session.prepare()
    out.mkdir(parents=True, exist_ok=True)
    for variant in variants:
        folder = _run_folder(work, variant)
        tree.sync(src, tree.default_overlay(), variant)
        build_dir = work.build_dir(version, coverage.build_name(variant))
        data = coverage.measure(variant, src.path, build_dir, folder, paths, out)
        measured = coverage.Measured(data, tuple(paths), _kunit_counts(src.path, folder, variant),
                                     _guest_counts(folder, variant),
                                     out / 'html' / variant / 'index.html')
        (folder / coverage.MEASURED).write_text(measured.to_json())
    tree.sync(src, tree.default_overlay(), FORK)


def _load(folder: Path, variant: str) -> coverage.Measured:
    path = folder / coverage.MEASURED
    if not path.is_file():
        raise ToolError(f'{variant}: no measured coverage run in {folder}: '
                        f'run tools/coverage run first')
    try:
        measured = coverage.Measured.from_json(path.read_text())
    except ValueError as err:
        raise ToolError(f'{path}: {err}: run tools/coverage run again') from err
    if measured.data.variant != variant:
        raise ToolError(f'{path} holds the figures of {measured.data.variant}, not {variant}')
    return measured


def _report(variants: Sequence[str], out: Path,
            boots: Optional[Dict[str, vm.GuestRun]] = None) -> List[vm.GuestRun]:
    """The table of what the last run measured, and what the tests did
    (boots, or what the guests left in their folders). Only reads the
    run folders and writes the report: no package, build or branch."""
    work = WorkArea.from_env()
    measured, runs = [], []
    for variant in variants:
        folder = _run_folder(work, variant)
        measured.append(_load(folder, variant))
        runs.append(boots[variant] if boots else vm.read_result(vm.GuestRun(variant, folder)))
    paths = measured[0].paths
    if any(m.paths != paths for m in measured):
        raise ToolError('the variants\' last runs measured different files: '
                        'run tools/coverage run again')
    data = [m.data for m in measured]
    lines = [f'Coverage of kernel-overlay/ on {time.strftime("%Y-%m-%d")}, '
             f'{coverage.MAKE_CHECK} = KUnit suites + guest suites (tools/coverage run).', '']
    lines += coverage.table(data, paths)
    for m in measured:
        kunit = (m.kunit.line('KUnit') if m.kunit is not None
                 else 'KUnit: no log (the guest never reached init)')
        lines.append(f'{m.data.variant}: phases reached: {", ".join(m.data.reached) or "none"}; '
                     f'{kunit}; {m.guest.line("guest suites")}')
    fork = next((d for d in data if d.variant == FORK), None)
    if fork:
        short = coverage.below_bar(fork, paths)
        lines.append(f'bar ({coverage.BAR["line"]:.0f}% of lines, {coverage.BAR["branch"]:.0f}% '
                     f'of branches under {coverage.MAKE_CHECK}, fork): '
                     + ('every file reaches it' if not short else f'{len(short)} file(s) below'))
        lines += [f'  {line}' for line in short]
    if NOTES.is_file():
        lines += ['', *NOTES.read_text().splitlines()]
    out.mkdir(parents=True, exist_ok=True)
    (out / 'coverage.md').write_text('\n'.join(lines) + '\n')
    (out / coverage.SUMMARY).write_text(coverage.summary_json(data))
    print('\n'.join(lines))
    say(f'report: {out / "coverage.md"}; HTML: {", ".join(str(m.html) for m in measured)}')
    return runs


def _dispatch(args: argparse.Namespace) -> int:
    if args.verb not in ('run', 'report'):
        _parser().print_help()
        return 2
    variants = list(VARIANTS)
    boots = None
    if args.verb == 'run':
        paths = tree.default_overlay().files(FORK)
        if not coverage.profiled_files(paths):
            raise ToolError('kernel-overlay/ has no .c file to measure')
        prepare_host(guest_tests.names(), extra=['gcovr'])
        vm.require_programs(['qemu-system-x86_64', 'gcovr', 'tc', 'ip', 'gcc', 'readelf'])
        boots = _boot(_build(variants, paths), args.timeout)
        _measure(variants, paths, args.out)
    runs = _report(variants, args.out, boots)
    for result in runs:
        if not result.ok:
            say(f'{result.variant}: {result.problem()}: the figures cover what ran before')
    return 0 if all(r.ok for r in runs) else 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    return guard('tools/coverage', lambda: _dispatch(args))
