"""tools/vm: boot the fork kernel on this machine's userspace and run tests."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import bench, deps, guest_tests, runner, session, tree, vm
from .counts import Counts, close
from .common import (COLUMNS, PACKAGE, UPSTREAM_IMPL, VARIANTS, ToolError, WorkArea, guard,
                     project_root, run, say, variant_option, verb_parser)

DESCRIPTION = """\
Boot the kernel that tools/kunit builds (fork, or --upstream-impl) under
QEMU (TCG) on this machine's own root filesystem, read-only over 9p,
and run a command in it as root.

verbs:
  run [--upstream-impl] CMD [ARG...]
                    boot, run CMD in the current folder, stream its
                    output, exit with its status
  test [--upstream-impl] [SUITE...]
                    run the guest suites (below): upstream's selftests,
                    judged against the baseline in tools/guest/baseline/,
                    and the project's own, whose every case must pass
  compare [SUITE...]
                    test on both builds and print one table; the own
                    suites' outputs (kfork-diff lines) must be alike
  baseline [SUITE...]
                    record the upstream implementation's results of
                    upstream's suites as the new baseline (review the
                    diff like code)
  bench [--boots N] [--calls N] [--debug]
                    the cost of one uprobe hit in the guest (no
                    arguments, six, six through $argN), on both builds
                    booted in turn N times, on the production kernels
                    tools/kunit bench builds (--debug: the debug ones):
                    each figure's median and range, the ratio
                    fork/upstream-impl of the medians and a verdict

The run fails (exit 1) when the command fails, the guest panics or hangs
past --timeout, or the kernel log holds a KASAN, UBSAN, lockdep or WARN
report. The command sees $KFORK_OUT, a folder the host keeps: the run's
console.log, dmesg and status are there too ($KFORK_WORK/vm/VARIANT).
test and compare end with `guest: N passed, N failed, N skipped`; with
$KFORK_COUNTS set, the same counts are also written to that file as
JSON (passed, failed, skipped, crashed): make check adds them up.

guest suites (each killed in the guest at its own time limit):
""" + '\n'.join(guest_tests.help_lines()) + '\n'


# What the guest suites run on the host's root: tdc and the project's
# suites are Python driving tc and ip; ftracetest is POSIX sh with the
# usual tools; the uprobe suite compiles its target and reads the ELF.
GUEST_TEST_PACKAGES = ['iproute2', 'python3', 'gcc', 'libc6-dev', 'binutils', 'systemtap-sdt-dev']
# A boot needs the build's packages too (QEMU, and libelf for the uprobe
# suite's make target), and on a new machine they come first from here.
HOST_PACKAGES = [*deps.BUILD_PACKAGES, *GUEST_TEST_PACKAGES]
# The clients suite's tools: without one, its cases skip.
GUEST_CLIENT_PACKAGES = ['linux-perf', 'bpftrace']
# The uprobe suite's 32-bit program (gcc -m32): without it, its case skips.
GUEST_M32_PACKAGES = ['gcc-multilib']


def prepare_host(suites: Sequence[str], extra: Sequence[str] = ()) -> None:
    """What the guest suites need from the host, whose root the guest
    boots read-only: the packages (and EXTRA ones), and the programs
    the suites' make targets build."""
    deps.ensure([*HOST_PACKAGES, *extra])
    if 'clients' in suites:
        deps.ensure_optional(GUEST_CLIENT_PACKAGES, 'the clients suite\'s cases of the missing')
    if 'uprobe' in suites:
        deps.ensure_optional(GUEST_M32_PACKAGES, 'the uprobe suite\'s 32-bit case')
    for target in sorted({t for name in suites for t in guest_tests.suite(name).make}):
        say(f'make {target} (a guest suite runs it)')
        run(['make', '-s', '-C', str(project_root()), target])

def _parser() -> argparse.ArgumentParser:
    parser, verbs = verb_parser('tools/vm', DESCRIPTION)
    run = verbs.add_parser('run', help='boot and run a command')
    variant_option(run, 'the build with the distro\'s implementation files')
    run.add_argument('--timeout', type=int, default=600,
                     help='seconds before the guest is killed (default: 600)')
    run.add_argument('--no-build', action='store_true',
                     help='boot the last build as it is, without make')
    run.add_argument('--kmemleak', action='store_true',
                     help='boot with kmemleak on (the command scans twice, as the first '
                          'scan of a boot reports nothing: echo scan > '
                          '/sys/kernel/debug/kmemleak); slower')
    run.add_argument('command', nargs=argparse.REMAINDER, metavar='CMD',
                     help='the command and its arguments')
    for name, what in (('test', 'run the guest test suites'),
                       ('compare', 'run the guest suites on both builds'),
                       ('baseline', 'record the upstream build\'s results')):
        verb = verbs.add_parser(name, help=what)
        if name == 'test':
            variant_option(verb, 'the build with the distro\'s implementation files')
        verb.add_argument('suites', nargs='*', metavar='SUITE',
                          help=f'suites to run (default: all of '
                               f'{", ".join(_known(name))})')
        verb.add_argument('--timeout', type=int, default=4800,
                          help='seconds before the guest is killed (default: 4800: '
                               'all the suites take about 45 min on two vCPUs)')
        if name != 'baseline':
            verb.add_argument('--kmemleak', action='store_true',
                              help='boot with kmemleak on: probestress scans once it '
                                   'removed all it made; slower')
            verb.add_argument('--kcsan', dest='kernel', action='store_const',
                              const=session.KCSAN, default=session.DEBUG,
                              help='the KCSAN kernels (kunit/kcsan.kunitconfig) instead of '
                                   'the KASAN ones: a data race reported in a '
                                   'kernel-overlay/ file fails the run, others are listed')
        if name == 'baseline':
            verb.add_argument('--last-run', action='store_true',
                              help='record the last upstream-impl run instead of booting')
    bench_verb = verbs.add_parser('bench', help='uprobe hit benchmarks on both builds')
    bench_verb.add_argument('--boots', type=int, default=3,
                            help='boots of each build, in turn (default: 3)')
    bench_verb.add_argument('--calls', type=int, default=2000,
                            help='calls per timed round in the guest (default: 2000)')
    bench_verb.add_argument('--timeout', type=int, default=600,
                            help='seconds before a guest is killed (default: 600)')
    bench_verb.add_argument('--debug', action='store_true',
                            help='the debug kernels instead of the production ones that '
                                 'tools/kunit bench builds')
    return parser


def kernel_image(variant: str, build: bool, kernel: str = session.DEBUG) -> tuple[Path, Path]:
    """The bzImage of one of a variant's kernels (session.KUNITCONFIGS:
    built or brought up to date unless build is False) and the folder
    for its guest runs."""
    work, src, version = session.prepare()
    spec = session.kernel_spec(work, src, version, variant, kernel)
    if build:
        tree.sync(src, tree.default_overlay(), variant)
        image = runner.build_kernel(spec, work, variant)
    else:
        image = spec.build_dir / 'arch/x86/boot/bzImage'
        if not image.is_file():
            raise ToolError(f'no {variant} kernel in {spec.build_dir}: run without --no-build')
    return image, work.root / 'vm' / session.build_name(variant, kernel)


def _run(args: argparse.Namespace) -> int:
    command = args.command[1:] if args.command[:1] == ['--'] else list(args.command)
    if not command:
        raise ToolError('run needs a command')
    vm.require_programs(['qemu-system-x86_64', command[0]])
    image, folder = kernel_image(args.variant, not args.no_build)
    result = vm.boot(image, folder, args.variant, command, Path.cwd(), args.timeout,
                     kmemleak=args.kmemleak)
    vm.announce(result)
    return 0 if result.ok else 1


def _known(verb: str) -> Tuple[str, ...]:
    """The suites a verb takes: baseline records upstream's only."""
    return guest_tests.names(guest_tests.BASELINE if verb == 'baseline' else None)


def _suites(verb: str, names: Sequence[str]) -> List[str]:
    """The suites named (all by default), in the registry's order: one
    that reads what the boot set up must run before ftracetest."""
    known = _known(verb)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ToolError(f'unknown suite {unknown[0]} (suites: {", ".join(known)})')
    return [n for n in known if n in names or not names]


@dataclass(frozen=True)
class Boots:
    """How the guest suites' kernels boot: which of a variant's kernels
    (session.KUNITCONFIGS), and whether with kmemleak on."""

    kernel: str = session.DEBUG
    kmemleak: bool = False


def boot_suites(variant: str, image: Path, folder: Path, suites: Sequence[str],
                timeout: int, stream: bool, kmemleak: bool = False
                ) -> Tuple[vm.GuestRun, Dict[str, Dict[str, str]]]:
    """Boot once and run the suites; their results by suite and test."""
    src = WorkArea.from_env().src
    command = [str(project_root() / 'tools/guest/run'), str(src), *suites]
    run = vm.boot(image, folder, variant, command, project_root(), timeout, stream,
                  kmemleak=kmemleak, kernel_args=guest_tests.kernel_args(suites))
    return run, guest_tests.read_results(folder, suites)


def _digests(folder: Path, suites: Sequence[str]) -> Dict[str, str]:
    """The 'kfork-diff: KEY VALUE' lines the own suites' outputs hold."""
    found: Dict[str, str] = {}
    for suite in suites:
        out = folder / f'{suite}.out'
        if guest_tests.suite(suite).own and out.is_file():
            found.update(runner.digests(out.read_text(errors='replace')))
    return found


def prepare_suites(suites: Sequence[str]) -> None:
    """What booting the guest suites needs on the host: prepare_host(),
    then a check of the programs they run."""
    prepare_host(suites)
    vm.require_programs(['qemu-system-x86_64', 'python3', 'tc', 'ip', 'gcc', 'readelf',
                        'nm', 'objdump'])


def _run_suites(variants: Sequence[str], suites: Sequence[str], timeout: int,
                boots: Boots = Boots()
                ) -> Dict[str, Tuple[vm.GuestRun, Dict[str, Dict[str, str]]]]:
    """Build each variant, then boot them all at once."""
    prepare_suites(suites)
    images = {v: kernel_image(v, True, boots.kernel) for v in variants}
    if len(variants) > 1:
        say(f'booting {" and ".join(variants)} at once; consoles in '
            f'{", ".join(str(f / "console.log") for _, f in images.values())}')

    def one(variant: str) -> Callable[[], Tuple[vm.GuestRun, Dict[str, Dict[str, str]]]]:
        image, folder = images[variant]
        return lambda: boot_suites(variant, image, folder, suites, timeout,
                                   stream=len(variants) == 1, kmemleak=boots.kmemleak)

    runs = vm.at_once({v: one(v) for v in variants})
    for variant in variants:
        vm.announce(runs[variant][0])
    return runs


def _test(variants: Sequence[str], suites: Sequence[str], timeout: int,
          boots: Boots = Boots()) -> int:
    runs = _run_suites(variants, suites, timeout, boots)
    ok = all(run.ok for run, _ in runs.values())
    totals = Counts()
    table: List[Tuple[str, str, Dict[str, guest_tests.Verdict]]] = []
    for suite in suites:
        for variant, (_, results) in runs.items():
            verdicts = guest_tests.judge_suite(variant, suite, results[suite])
            print('\n'.join(guest_tests.tap(f'{suite} ({variant})', verdicts)))
            totals += guest_tests.counts(verdicts)
            table.append((suite, variant, {v.name: v for v in verdicts}))
    if len(variants) > 1:
        print('\n'.join(_table(table, variants)))
        differs, digests = runner.compare_digests(
            {v: _digests(run.folder, suites) for v, (run, _) in runs.items()})
        for line in differs:
            print(line)
        if digests.total:
            print(f'differential: {digests.passed} of {digests.total} digests alike on both builds')
        # Digests alike are not counted here, digests that differ fail.
        totals += Counts(failed=digests.failures)
    if not ok:
        # A guest that panicked, hung or logged a checker report.
        totals += Counts(failed=1)
    close('guest', totals)
    return 0 if ok and totals.ok else 1


def _table(rows: Sequence[Tuple[str, str, Dict[str, guest_tests.Verdict]]],
           variants: Sequence[str]) -> List[str]:
    """test | upstream-impl | fork, differences marked."""
    by_suite: Dict[str, Dict[str, Dict[str, guest_tests.Verdict]]] = {}
    for suite, variant, verdicts in rows:
        by_suite.setdefault(suite, {})[variant] = verdicts
    out = [f'{"test":<60} ' + ' '.join(f'{v:>13}' for v in COLUMNS)]
    for suite, per_variant in by_suite.items():
        names = sorted(set().union(*(set(v) for v in per_variant.values())))
        for name in names:
            got = [per_variant.get(v, {}).get(name) for v in COLUMNS]
            cells = [g.got if g else '-' for g in got]
            mark = '  <-- differs' if cells[0] != cells[1] else ''
            out.append(f'{(suite + ": " + name)[:60]:<60} {cells[0]:>13} {cells[1]:>13}{mark}')
    return out


def _last_run(suites: Sequence[str]) -> Tuple[vm.GuestRun, Dict[str, Dict[str, str]]]:
    """The results a finished upstream-impl guest run left behind."""
    folder = WorkArea.from_env().root / 'vm' / UPSTREAM_IMPL
    run = vm.read_result(vm.GuestRun(UPSTREAM_IMPL, folder))
    return run, guest_tests.read_results(folder, suites)


def _baseline(suites: Sequence[str], timeout: int, last_run: bool) -> int:
    if last_run:
        run, results = _last_run(suites)
    else:
        run, results = _run_suites([UPSTREAM_IMPL], suites, timeout)[UPSTREAM_IMPL]
    if run.status is None or run.timed_out or run.reports:
        raise ToolError(f'not recording a baseline from a broken run: {run.problem()}')
    version = deps.installed_version(PACKAGE)
    for suite in suites:
        if not results[suite]:
            raise ToolError(f'{suite} produced no results: see {run.folder / (suite + ".out")}')
        header = (f'{suite} on the upstream implementation, {PACKAGE} {version}, '
                  f'recorded {time.strftime("%Y-%m-%d")} by tools/vm baseline.\n'
                  'STATUS<TAB>test; the fork must pass every PASS line.')
        path = guest_tests.write_baseline(suite, results[suite], header)
        print(f'{path}: {len(results[suite])} tests')
    return 0


def bench_figures(boots: int, calls: int, timeout: int, production: bool = True) -> bench.Figures:
    """kfork.guest_bench in a guest of each build (production kernels
    unless told otherwise), booted in turn: tools/vm bench's figures,
    which tools/measure also records."""
    deps.ensure(HOST_PACKAGES)
    vm.require_programs(['qemu-system-x86_64', 'gcc', 'nm', 'readelf'])
    kernel = session.PRODUCTION if production else session.DEBUG
    images = {v: kernel_image(v, True, kernel) for v in VARIANTS}
    command = ['env', f'PYTHONPATH={project_root() / "tools" / "lib"}', 'python3', '-m',
               'kfork.guest_bench', '--calls', str(calls)]

    def measure(boot: int, variant: str) -> Dict[str, str]:
        image, folder = images[variant]
        run = vm.boot(image, folder, variant, command, project_root(), timeout, stream=False,
                      kernel_args=bench.KERNEL_ARGS)
        if not run.ok:
            raise ToolError(f'{variant}: the benchmark guest failed: {run.problem()} '
                            f'(console: {folder / "console.log"})')
        bench.check_clock((folder / 'dmesg').read_text(errors='replace'), variant, boot)
        return runner.tagged((folder / 'console.log').read_text(errors='replace'), bench.TAG)

    return bench.boots_in_turn(boots, list(images), measure)


def _bench(boots: int, calls: int, timeout: int, production: bool) -> int:
    for line in bench.table(bench_figures(boots, calls, timeout, production)):
        print(line)
    return 0


def _dispatch(args: argparse.Namespace) -> int:
    if args.verb == 'run':
        return _run(args)
    if args.verb == 'test':
        return _test([args.variant], _suites(args.verb, args.suites), args.timeout,
                     Boots(args.kernel, args.kmemleak))
    if args.verb == 'compare':
        return _test(list(COLUMNS), _suites(args.verb, args.suites), args.timeout,
                     Boots(args.kernel, args.kmemleak))
    if args.verb == 'bench':
        return _bench(args.boots, args.calls, args.timeout, not args.debug)
    if args.verb == 'baseline':
        return _baseline(_suites(args.verb, args.suites), args.timeout, args.last_run)
    _parser().print_help()
    return 2


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    return guard('tools/vm', lambda: _dispatch(args))
