"""tools/kunit: build the fork with kernel-overlay/ and run its KUnit suites."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import bench, deps, marks, runner, session, tree, vm
from .counts import Counts, close, total
from .common import (FORK, PACKAGE, VARIANTS, ToolError, WorkArea, guard, project_root, say,
                     variant_option, verb_parser)

DESCRIPTION = """\
Build Debian's linux-source-6.1 with the project's kernel-overlay/ and
patches/, and run the KUnit suites under QEMU (x86_64, TCG).

verbs:
  run [GLOB]        build the fork and run the suites (GLOB: suite or
                    suite.test pattern, as kunit.py takes it)
  run --upstream-impl [GLOB]
                    the same suites and patches on the distro's own
                    implementation files
  run --kmemleak [GLOB]
                    boot with kmemleak on: probe_fuzz, kprobe_events,
                    probe_parse, hhf_filter and hhf_qdisc then scan for what they
                    leaked (their leak cases skip without it)
  run --full [GLOB]
                    the suites at full size (make check: compare
                    --full): probe_fuzz parses all 100,000 strings and
                    fires every kprobe argument accepted, uprobe_fetch
                    fetches every uprobe one (without it a fiftieth),
                    probe_parse tries each rule on every probe kind
                    (without it on the first it applies to),
                    hhf_classify runs three mixes, not one, and its
                    600,000-mice marked test
  compare [GLOB]    both variants, built in turn and booted at once
                    (their lines after 'VARIANT| '), then a table suite
                    by suite; the digests differential tests print
                    (kfork-diff: KEY VALUE) must be alike on both, each
                    one test
  bench [--boots N] [--debug] [GLOB]
                    the benchmarks (KUnit suites *_bench, which skip in
                    ordinary runs) on both builds in turn, N boots each
                    (default 3), on production kernels (Debian's
                    options, no checkers: kunit/production.kunitconfig,
                    built in build/VERSION/production-VARIANT) or with
                    --debug on the debug ones; a table of each figure's
                    median and range, the ratio fork/upstream-impl
                    (lower is better) and a verdict
  patches DIR       write the fork as a patch series (git format-patch
                    upstream..fork) into DIR
  sync              only bring the tree's branch up to date and print
                    the tree's path
  status            the work area: package versions, branches, builds

The last line of run and compare is `kunit: N passed, N failed,
N skipped`; the exit status is 0 only when nothing failed and the
kernel log holds no KASAN, UBSAN, lockdep, kmemleak or WARN report.
With $KFORK_COUNTS set, the same counts are also written to that file
as JSON (passed, failed, skipped, crashed): make check adds them up.
Missing packages are installed with apt-get (as root). The unpacked
tree, builds and ccache live in $KFORK_WORK (default /var/tmp/kfork).
"""



def _parser() -> argparse.ArgumentParser:
    parser, verbs = verb_parser('tools/kunit', DESCRIPTION)

    def suites(p: argparse.ArgumentParser) -> None:
        p.add_argument('glob', nargs='?', default='', metavar='GLOB',
                       help='run only suites (or suite.test) matching GLOB')
        p.add_argument('--kunitconfig', type=Path, default=project_root() / '.kunitconfig',
                       help='kunitconfig to use (default: the project\'s .kunitconfig)')
        p.add_argument('--jobs', type=int, default=None, help='make jobs (default: nproc)')
        p.add_argument('--timeout', type=int, default=600,
                       help='seconds the tests may run in QEMU (default: 600; all '
                       'suites take about a minute on 2 TCG cores, six with --full)')
        p.add_argument('--kcsan', dest='kunitconfig', action='store_const',
                       const=session.KCSAN_KUNITCONFIG,
                       help='the KCSAN kernel (kunit/kcsan.kunitconfig) instead of the '
                            'KASAN one: a data race reported in a kernel-overlay/ file '
                            'fails the run, others are listed')
        p.add_argument('--kmemleak', action='store_true',
                       help='boot with kmemleak on, for suites that scan for leaks '
                            '(probe_fuzz, kprobe_events, hhf_filter, hhf_qdisc); five '
                            'seconds slower to boot')
        p.add_argument('--full', action='store_true',
                       help='the suites at full size (make check): the fuzz whole, not '
                            'a fiftieth, probe_parse\'s rules on every probe kind, '
                            'hhf_classify\'s every mix and marked test; about five '
                            'minutes more a build')
        p.add_argument('--expect-log', action='append', default=[], metavar='TEXT',
                       help='fail a build whose console log lacks TEXT, such as a boot-time '
                            'self-test\'s verdict (may be given again)')

    run = verbs.add_parser('run', help='build the fork and run the KUnit suites')
    suites(run)
    variant_option(run, 'use the distro\'s implementation files instead of the project\'s')
    compare = verbs.add_parser('compare', help='run both variants and compare them')
    suites(compare)
    bench = verbs.add_parser('bench', help='run the benchmarks on both builds')
    bench.add_argument('--boots', type=int, default=3,
                       help='boots of each build, alternating (default: 3)')
    bench.add_argument('--debug', action='store_true',
                       help='the debug kernels (KASAN, UBSAN, lockdep, kmemleak) of '
                            'tools/kunit run instead of the production ones')
    bench.add_argument('--timeout', type=int, default=300,
                       help='seconds one boot may run (default: 300)')
    bench.add_argument('glob', nargs='?', default=BENCH_GLOB,
                       help=f'the benchmark suites to run (default: {BENCH_GLOB}), '
                            'e.g. \'probe_*_bench\'')
    patches = verbs.add_parser('patches', help='write the fork as a patch series')
    patches.add_argument('dir', type=Path, help='folder for the .patch files')
    variant_option(patches, 'that branch instead of the fork\'s')
    sync = verbs.add_parser('sync', help='bring the tree\'s branch up to date')
    variant_option(sync, 'that branch instead of the fork\'s')
    verbs.add_parser('status', help='show the work area')
    return parser


def _run_variants(args: argparse.Namespace, variants: Sequence[str]
                  ) -> List[runner.Outcome]:
    """Run the suites on each variant. One variant builds and boots in
    one kunit.py run. Several are built in turn, as the one tree holds
    one variant at a time, then booted at once: each boot is a
    single-threaded TCG process, so two fill the machine's two cores."""
    runner.kunitconfig_files(args.kunitconfig)  # a bad one stops here, before any work
    work, src, version = session.prepare()
    overlay = tree.default_overlay()
    marked = marks.project()
    specs: Dict[str, runner.RunSpec] = {}
    failed: Dict[str, runner.Outcome] = {}
    for variant in variants:
        tree.sync(src, overlay, variant)
        specs[variant] = session.spec(work, src, version, _build_name(variant, args),
                                      kunitconfig=args.kunitconfig, glob=args.glob,
                                      timeout=args.timeout, jobs=args.jobs or 0,
                                      kmemleak=args.kmemleak, kernel_args=_kernel_args(args))
        if len(variants) > 1:
            try:
                runner.build_kernel(specs[variant], work, variant, modules=False)
                specs[variant] = dataclasses.replace(specs[variant], built=True)
            except runner.BuildFailed as err:
                failed[variant] = runner.Outcome(
                    variant, marked=marked, error=str(err).removeprefix(f'{variant}: '))

    booting = [v for v in variants if v not in failed]

    def boot(variant: str) -> Callable[[], runner.Outcome]:
        prefix = f'{variant}| ' if len(booting) > 1 else ''
        return lambda: runner.run_variant(specs[variant], work, variant, marked, prefix)

    if len(booting) > 1:
        say(f'booting {" and ".join(booting)} at once, each line after its name')
    ran = vm.at_once({v: boot(v) for v in booting})
    outcomes = [failed.get(v) or ran[v] for v in variants]
    for variant, outcome in zip(variants, outcomes):
        outcome.error = _overlay_paths(outcome.error, src.path, overlay)
        outcome.missing = runner.missing_lines(specs[variant].build_dir / 'test.log',
                                               args.expect_log)
        if outcome.cases:
            work.state_file.write_text(version + '\n')
    for outcome in outcomes:
        runner.print_reports(outcome.reports, outcome.variant, outcome.races)
        for note in outcome.notes():
            print(f'kfork: {outcome.variant}: {note}')
        if outcome.error:
            print(f'kfork: {outcome.variant}: {outcome.error}')
    return outcomes


def _kernel_args(args: argparse.Namespace) -> Tuple[str, ...]:
    """What run and compare add to the kernel's command line."""
    return runner.FULL_PARAMS if args.full else ()


def _overlay_paths(text: str, tree_path: Path, overlay: tree.Overlay) -> str:
    """Name the file to edit: a tree path of an overlay file becomes its
    kernel-overlay/ path."""
    for rel in overlay.files(FORK):
        text = text.replace(f'{tree_path}/{rel}', f'{overlay.files_dir.name}/{rel}')
    return text


def _build_name(variant: str, args: argparse.Namespace) -> str:
    """Build folder of a run: one of the project's kernels (the debug,
    production or KCSAN one) has its folder, as every tool names it;
    another kunitconfig gets a folder of its own, so that trying one does
    not reconfigure (and rebuild) the main build. A kunitconfig of the
    project is named by its path in the project, so that every checkout
    (CI's too) finds the builds of the others."""
    config = args.kunitconfig.resolve()
    root = project_root().resolve()
    for kernel, known in session.KUNITCONFIGS.items():
        if config == known.resolve():
            return session.build_name(variant, kernel)
    where = str(config.relative_to(root) if config.is_relative_to(root) else config)
    digest = hashlib.sha1(where.encode()).hexdigest()[:8]
    return f'{variant}-{config.name.lstrip(".")}-{digest}'


def _suite_table(outcomes: Sequence[runner.Outcome]) -> List[str]:
    counts: Dict[str, Dict[str, Counts]] = {}
    for outcome in outcomes:
        for case, status in outcome.cases.items():
            row = counts.setdefault(case.split('.', 1)[0], {})
            row[outcome.variant] = (row.get(outcome.variant, Counts())
                                    + outcome.case_counts(case, status))
    names = [o.variant for o in outcomes]
    width = max([len('suite')] + [len(s) for s in counts])
    lines = [f'{"suite":<{width}}  ' + '  '.join(f'{n + " p/f/s":>20}' for n in names)]
    for suite in sorted(counts):
        cells = []
        for name in names:
            cells.append(f'{counts[suite].get(name, Counts()).cell():>20}')
        lines.append(f'{suite:<{width}}  ' + '  '.join(cells))
    return lines


def _close(outcomes: Sequence[runner.Outcome], digests: Counts = Counts()) -> int:
    """The closing line; digests counts the differential digests, each
    one test."""
    reports = sum(len(o.reports) for o in outcomes)
    if reports:
        print(f'kfork: {reports} checker report(s) in the kernel log: the run fails')
    close('kunit', total(o.counts for o in outcomes) + digests)
    return 0 if all(o.ok for o in outcomes) and digests.ok else 1




# Benchmark suites are named *_bench and skip unless their file's
# parameter is on the kernel command line.
BENCH_GLOB = '*_bench'
BENCH_PARAMS = ('sch_pie_qdisc_kunit.bench=1', 'sch_hhf_kunit.bench=1',
                'trace_probe_fuzz_kunit.bench=1', 'trace_probe_fetch_kunit.bench=1')


def bench_figures(boots: int, timeout: int, glob: str, production: bool = True) -> bench.Figures:
    """Build both variants (production kernels unless told otherwise),
    then boot them in turn (bench.boots_in_turn): tools/kunit bench's
    figures, which tools/measure also records."""
    work, src, version = session.prepare()
    specs = {}
    for variant in VARIANTS:
        tree.sync(src, tree.default_overlay(), variant)
        kernel = session.PRODUCTION if production else session.DEBUG
        specs[variant] = session.kernel_spec(work, src, version, variant, kernel, glob=glob,
                                             timeout=timeout,
                                             kernel_args=(*BENCH_PARAMS, *bench.KERNEL_ARGS))
        runner.build_kernel(specs[variant], work, variant)

    def measure(boot: int, variant: str) -> Dict[str, str]:
        spec = dataclasses.replace(specs[variant], built=True)
        outcome = runner.run_variant(spec, work, variant, marks.Marked({}))
        runner.print_reports(outcome.reports, variant)
        if not outcome.ok:
            raise ToolError(f'{variant}: the benchmark run failed '
                            f'({outcome.error or "see the log above"})')
        log = (spec.build_dir / 'test.log').read_text(errors='replace')
        bench.check_clock(log, variant, boot)
        return runner.tagged(log, bench.TAG)

    return bench.boots_in_turn(boots, list(specs), measure)


def _bench(boots: int, timeout: int, glob: str, production: bool) -> int:
    for line in bench.table(bench_figures(boots, timeout, glob, production)):
        print(line)
    return 0


def _status() -> int:
    work = WorkArea.from_env()
    print(f'work area: {work.root}')
    print(f'{PACKAGE} installed: {deps.installed_version(PACKAGE) or "no"}')
    if work.state_file.is_file():
        print(f'last built on: {work.state_file.read_text().strip()}')
    if not work.src.is_dir():
        print('tree: not unpacked yet')
        return 0
    src = tree.Tree(work.src)
    print(f'tree: {src.path} ({PACKAGE} {src.version()}), on branch {src.current_branch()}')
    for branch in (tree.UPSTREAM, *VARIANTS):
        if src.rev(f'refs/heads/{branch}'):
            print(f'  {branch}: {src.git("log", "-1", "--format=%h %s", branch)}')
    return 0


def _dispatch(args: argparse.Namespace) -> int:
    if args.verb == 'run':
        return _close(_run_variants(args, [args.variant]))
    if args.verb == 'compare':
        outcomes = _run_variants(args, list(VARIANTS))
        for line in _suite_table(outcomes):
            print(line)
        differs, digests = runner.compare_digests({o.variant: o.digests for o in outcomes})
        for line in differs:
            print(line)
        if digests.total:
            print(f'differential: {digests.passed} of {digests.total} digests alike on both builds')
        return _close(outcomes, digests)
    if args.verb == 'bench':
        return _bench(args.boots, args.timeout, args.glob, not args.debug)
    if args.verb in ('patches', 'sync'):
        _, src, _ = session.prepare()
        tree.sync(src, tree.default_overlay(), args.variant)
        if args.verb == 'sync':
            print(src.path)
        else:
            for name in tree.export_series(src, args.variant, args.dir):
                print(name)
        return 0
    if args.verb == 'status':
        return _status()
    _parser().print_help()
    return 2


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    return guard('tools/kunit', lambda: _dispatch(args))


if __name__ == '__main__':
    sys.exit(main())
