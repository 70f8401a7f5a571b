"""tools/mutate: do the tests notice plausible bugs in the overlay's files?"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from . import coverage, coverage_cli, mutants, marks, mutate, runner, session, tree, vm_cli
from .common import FORK, ToolError, guard, project_root, say, verb_parser
from .mutants import Mutant

DESCRIPTION = """\
Mutation testing of kernel-overlay/'s implementation files (not its
KUnit suites): plant one plausible bug at a time and see whether the
tests notice.

verbs:
  run [FILE...] [--sample N] [--seed S] [--resume]
                    the mutants of each FILE (default: every
                    implementation file) on lines the tests reach, or
                    N of them a file picked by seed S; first the tests
                    run on the fork as it is (each must pass), then
                    each mutant is synced into the tree's fork branch
                    as a commit of its own, built incrementally in
                    build/VERSION/mutate, and judged by the file's
                    KUnit suites, then its guest suites, the first to
                    notice ending it. One line per mutant (path:line
                    operator verdict seconds), a table per file, and
                    OUT/report.md with every survivor's diff, OUT/
                    results.json, a log per mutant in OUT/logs/. The
                    fork branch and the checkout are put back at the
                    end, also after Ctrl-C or SIGTERM. --resume keeps
                    what the last run killed and judges the rest.
  list [FILE...] [--sample N] [--seed S]
                    the mutants run would run, and for each file how
                    many there are, how many no test reaches and what
                    was skipped and why; builds nothing
  report [--out DIR]
                    the table and report.md again from DIR/results.json

operators: ror-boundary (< <=, > >=), eq-flip (== !=), const (an
integer constant +-1), shift (a shift amount +-1), logic-swap (&& ||),
stmt-delete (an assignment, or a call whose result is unused),
ternary-swap (the operands of ?:), if-negate (if (!(c))). Never in
comments, strings or preprocessor lines, nor where no test could see
the change: compile-time checks, module metadata, log messages, type
expressions, attributes, KUnit hooks, type definitions, ops tables,
array sizes, designators, deleted assertions (WARN_ON, lockdep) and
deleted calls gcc makes no code for (va_end).

verdicts: killed (a test failed or crashed, a checker reported, the
kernel died), build-killed (it did not build; counted apart), timed-out,
survived, and not covered (on a line the last make coverage saw no
test reach: never run; without coverage data every line counts as
reached). score = (killed + build-killed) / mutants run, by file.

Which tests judge which file is mutate.JUDGES in
tools/lib/kfork/mutate.py. A survivor needs a test that kills it, or a
line in kunit/mutation-notes.md (the report's end) saying why it is
equivalent. A mutant takes an incremental build and a boot under TCG
per suite run, more when it survives to the guest suites: make mutants
(40 a file) takes hours. Run nothing else on the work area meanwhile:
the fork branch holds the mutants.
"""

DEFAULT_OUT = project_root() / 'out' / 'mutate'
# Why each survivor left is equivalent: the report ends with it.
NOTES = project_root() / 'kunit' / 'mutation-notes.md'
# Fixed, so that a sample is the same run after run (make mutants).
DEFAULT_SEED = 1
RESULTS = 'results.json'
REPORT = 'report.md'


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f'{text} is not a positive number')
    return value


def _parser() -> argparse.ArgumentParser:
    parser, verbs = verb_parser('tools/mutate', DESCRIPTION)
    for name, what in (('run', 'build and judge the mutants'),
                       ('list', 'list the mutants, build nothing')):
        verb = verbs.add_parser(name, help=what)
        verb.add_argument('files', nargs='*', metavar='FILE',
                          help='implementation files (tree path, kernel-overlay/ path or '
                               'file name; default: all)')
        verb.add_argument('--sample', type=_count, default=None, metavar='N',
                          help='N mutants a file, picked by the seed (default: all)')
        verb.add_argument('--seed', type=int, default=DEFAULT_SEED, metavar='S',
                          help=f'the sample\'s seed (default: {DEFAULT_SEED})')
        verb.add_argument('--coverage', type=Path, default=coverage_cli.DEFAULT_OUT,
                          metavar='DIR', help='make coverage\'s output folder, whose '
                          f'data/{FORK}/ says which lines the tests reach (default: '
                          f'{coverage_cli.DEFAULT_OUT})')
        if name == 'run':
            verb.add_argument('--out', type=Path, default=DEFAULT_OUT,
                              help=f'folder of the results (default: {DEFAULT_OUT})')
            verb.add_argument('--timeout', type=int, default=300,
                              help='seconds a KUnit run may take in QEMU (default: 300; '
                                   'a guest suite gets its own limit)')
            verb.add_argument('--full', action='store_true',
                              help='the KUnit suites at full size, as make check runs them '
                                   '(runner.FULL_PARAMS): slower, and kills more')
            verb.add_argument('--jobs', type=int, default=None,
                              help='make jobs (default: nproc)')
            verb.add_argument('--skip-clean-run', action='store_true',
                              help='do not run the tests on the fork as it is first')
            verb.add_argument('--resume', action='store_true',
                              help='keep the mutants OUT/results.json has as killed '
                                   '(the same edit at the same place) and judge the rest, '
                                   'survivors again; the results of other files stay '
                                   'as they were')
    report = verbs.add_parser('report', help='the table and report again')
    report.add_argument('--out', type=Path, default=DEFAULT_OUT,
                        help=f'folder of the results (default: {DEFAULT_OUT})')
    return parser


def implementation_files(overlay: tree.Overlay, names: Sequence[str]) -> List[str]:
    """The tree paths NAMES mean (a tree path, a path to the overlay's
    file, or a file name), all implementation files when none."""
    known = [p for p in overlay.files(FORK) if not tree.is_test_file(p)]
    if not names:
        return known
    paths = []
    for name in names:
        path = Path(name)
        if path.exists():
            try:
                name = str(path.resolve().relative_to(overlay.files_dir.resolve()))
            except ValueError:
                pass
        hits = [p for p in known if p == name or Path(p).name == name]
        if len(hits) != 1:
            raise ToolError(f'{name}: not an implementation file of '
                            f'{overlay.files_dir.name}/ ({", ".join(known)})')
        paths += [h for h in hits if h not in paths]
    return paths


@dataclass(frozen=True)
class _File:
    """A file's plan, every mutant generated and those no test reaches."""

    plan: mutate.Plan
    generated: mutants.FileMutants
    not_covered: Tuple[Mutant, ...]


def _prepare(args: argparse.Namespace, overlay: tree.Overlay) -> List[_File]:
    """Generate, classify by coverage and sample each file's mutants."""
    paths = implementation_files(overlay, args.files)
    folder = coverage.data_folder(args.coverage, FORK)
    counts = coverage.line_counts(folder)
    if counts is None:
        say(f'no coverage data in {folder} (make coverage makes it): every line counts '
            f'as reached')
    files = []
    for path in paths:
        judges = mutate.judges_of(path)
        text = (overlay.files_dir / path).read_text()
        generated = mutate.generate(path, text)
        reach, stale = mutants.Reach.of(generated, counts.get(path) if counts else None)
        if stale:
            say(f'{path}: the coverage data is older than the file (make coverage): every '
                f'line counts as reached')
        reached = [m for m in generated.mutants if reach.reached(generated, m)]
        missed = tuple(m for m in generated.mutants if not reach.reached(generated, m))
        picked = mutants.sample(reached, args.sample, args.seed, path)
        files.append(_File(mutate.Plan(path, text, judges, tuple(picked)), generated, missed))
    return files


def _list(args: argparse.Namespace) -> int:
    files = _prepare(args, tree.default_overlay())
    for f in files:
        for m in f.plan.mutants:
            print(f'{m.id}  {m.describe()}')
    for f in files:
        skips = ', '.join(f'{reason} {n}' for reason, n in
                          sorted(f.generated.skip_counts().items())) or 'none'
        print(f'{f.plan.path}: {len(f.generated.mutants)} mutants, {len(f.not_covered)} not '
              f'covered, {len(f.plan.mutants)} to run; skipped: {skips}')
    print(f'{sum(len(f.plan.mutants) for f in files)} mutants to run in {len(files)} files')
    return 0


def _write(record: mutate.Record, out: Path) -> None:
    """results.json, report.md and the table on stdout."""
    record.save(out / RESULTS)
    notes = NOTES.read_text() if NOTES.is_file() else ''
    (out / REPORT).write_text(mutate.report(record, notes))
    found = mutate.scores(record.results, record.files)
    print('\n'.join(mutate.table(found)))
    for line in mutate.below_bar(found):
        print(f'below the bar: {line}')
    say(f'report: {out / REPORT}; results: {out / RESULTS}')


def _earlier(out: Path) -> List[mutate.Result]:
    """The results of the run in OUT, for --resume."""
    path = out / RESULTS
    if not path.is_file():
        raise ToolError(f'--resume: no {path}: nothing to resume')
    try:
        return mutate.Record.from_json(path.read_text()).results
    except ValueError as err:
        raise ToolError(f'{path}: {err}') from err


def _run(args: argparse.Namespace) -> int:
    overlay = tree.default_overlay()
    files = _prepare(args, overlay)
    earlier = _earlier(args.out) if args.resume else []
    plans, kept = mutate.resumed([f.plan for f in files], earlier)
    others = mutate.carried([f.plan for f in files], earlier)
    if kept:
        say(f'--resume: {len(kept)} mutants killed by the run in {args.out} stay killed')
    if others:
        say(f'--resume: the results of {len(others)} mutants of other files are kept')
    record = mutate.Record([p.path for p in plans] +
                           sorted({r.mutant.path for r in others}), args.seed, args.sample,
                           time.strftime('%Y-%m-%d %H:%M'),
                           [mutate.Result(m, mutate.NOT_COVERED)
                            for f in files for m in f.not_covered] + kept + others)
    total = sum(len(p.mutants) for p in plans)
    for f in files:
        if f.not_covered:
            say(f'{f.plan.path}: {len(f.not_covered)} mutants on lines no test reaches '
                f'(not covered): not run')
    if not total:
        say('no mutant to run')
        record.complete = True
        _write(record, args.out)
        return 0
    runner.kunitconfig_files(session.DEFAULT_KUNITCONFIG)
    work, src, version = session.prepare()
    judges = mutate.judged_files(plans)
    if judges.guest:
        vm_cli.prepare_suites(judges.guest)
    marked = marks.project()
    backend = mutate.TreeBackend(work, src, version, marked, args.timeout, args.jobs or 0,
                                 runner.FULL_PARAMS if args.full else ())
    logs = args.out / 'logs'
    if not args.resume:
        shutil.rmtree(logs, ignore_errors=True)
    say(f'{total} mutants in {len(plans)} files, each built and booted (about 2 minutes '
        f'each, more when it reaches the guest suites); logs in {logs}')
    state = mutate.tree_state(src)
    start = time.monotonic()

    def done(result: mutate.Result) -> None:
        record.results.append(result)
        record.seconds = time.monotonic() - start
        record.save(args.out / RESULTS)
        print(result.line(), flush=True)

    with tempfile.TemporaryDirectory(prefix='kfork-mutate-') as tmp:
        workspace = mutate.Workspace(overlay, Path(tmp))

        def body() -> None:
            if not args.skip_clean_run:
                mutate.clean_run(backend, workspace, judges, logs)
            mutate.run_mutants(backend, workspace, plans, logs, done)
            record.complete = True

        try:
            mutate.guarded(body, lambda: mutate.restore_tree(src, overlay, state))
        finally:
            record.seconds = time.monotonic() - start
            _write(record, args.out)
    return 0


def _report(out: Path) -> int:
    path = out / RESULTS
    if not path.is_file():
        raise ToolError(f'no {path}: run tools/mutate run first')
    try:
        record = mutate.Record.from_json(path.read_text())
    except ValueError as err:
        raise ToolError(f'{path}: {err}') from err
    _write(record, out)
    return 0


def _dispatch(args: argparse.Namespace) -> int:
    if args.verb == 'run':
        return _run(args)
    if args.verb == 'list':
        return _list(args)
    if args.verb == 'report':
        return _report(args.out)
    _parser().print_help()
    return 2


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    return guard('tools/mutate', lambda: _dispatch(args))
