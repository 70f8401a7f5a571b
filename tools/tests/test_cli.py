"""Small decisions of tools/kunit's command line."""

from __future__ import annotations

import argparse
import hashlib
import re
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Set

from kfork import bench, cli, coverage, runner, session, tree, vm_cli
from kfork.common import ToolError, WorkArea, project_root


class CliTest(unittest.TestCase):
    def test_errors_name_the_overlay_file(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / 'kernel-overlay/net/sched').mkdir(parents=True)
            (root / 'kernel-overlay/net/sched/sch_pie.c').write_text('x')
            text = '/w/src/net/sched/sch_pie.c:3:1: error: x; /w/src/net/core/dev.c:1: y'
            self.assertEqual(cli._overlay_paths(text, Path('/w/src'), tree.Overlay(root)),
                             'kernel-overlay/net/sched/sch_pie.c:3:1: error: x; '
                             '/w/src/net/core/dev.c:1: y')

    def test_bench_table_ratio(self) -> None:
        # medians 450 and 315: 0.70; per boot: 330 / 400 and 300 / 500;
        # fork's 300-330 lies below upstream's 400-500: faster
        lines = bench.table({'pie.update_ns': {'upstream-impl': [400.0, 500.0],
                                               'fork': [330.0, 300.0]},
                             'pie.qdisc_priv_bytes': {'upstream-impl': [256], 'fork': [256]}})
        self.assertRegex(lines[1], r'^pie\.qdisc_priv_bytes\s+256\s+256\s+1\.00\s+1\.00-1\.00'
                                   r'\s+equal within the spread$')
        self.assertRegex(lines[2], r'^pie\.update_ns\s+450 \(400-500\)\s+315 \(300-330\)\s+0\.70'
                                   r'\s+0\.60-0\.82\s+faster$')

    def test_bench_refuses_a_coarse_clock(self) -> None:
        fine = ('[    0.31] clocksource: Switched to clocksource tsc-early\n'
                '[    1.02] clocksource: Switched to clocksource tsc\n')
        self.assertIsNone(bench.clock_trouble(fine))
        fallen = fine + ("[   40.1] clocksource: Marking clocksource 'tsc' as unstable "
                         "because the skew is too large:\n"
                         '[   40.2] clocksource: Switched to clocksource refined-jiffies\n')
        self.assertIn('as unstable', bench.clock_trouble(fallen) or '')
        with self.assertRaisesRegex(ToolError, 'fork: boot 2: .*cannot time'):
            bench.check_clock(fallen, 'fork', 2)
        self.assertIn('tsc=reliable', bench.KERNEL_ARGS)
        uncalibrated = 'tsc: Marking TSC unstable due to could not calculate TSC khz\n'
        self.assertIsNotNone(bench.clock_trouble(uncalibrated))

    def test_bench_boots_again_when_the_clock_falls_back(self) -> None:
        tries: List[str] = []

        def measure(boot: int, variant: str) -> Dict[str, str]:
            tries.append(variant)
            if variant == 'fork' and tries.count('fork') < 2:
                bench.check_clock('tsc: Marking TSC unstable', variant, boot)
            return {'x_ns': '5'}

        figures = bench.boots_in_turn(1, ['upstream-impl', 'fork'], measure)
        self.assertEqual(tries, ['upstream-impl', 'fork', 'fork'])
        self.assertEqual(figures, {'x_ns': {'upstream-impl': [5.0], 'fork': [5.0]}})

        def never(boot: int, variant: str) -> Dict[str, str]:
            bench.check_clock('tsc: Marking TSC unstable', variant, boot)
            return {}

        with self.assertRaisesRegex(ToolError, r'3 boots in a row'):
            bench.boots_in_turn(1, ['fork'], never)

    def test_bench_verdict_needs_ranges_apart(self) -> None:
        def judged(key: str, up: List[float], fork: List[float]) -> str:
            return bench.verdict(key, bench.Spread.of(up), bench.Spread.of(fork))

        self.assertEqual(judged('x_ns', [100, 120, 110], [90, 101, 95]), 'equal within the spread')
        self.assertEqual(judged('x_ns', [100, 120, 110], [90, 99, 95]), 'faster')
        self.assertEqual(judged('x_ns', [100, 120, 110], [121, 130, 125]), 'slower')
        self.assertEqual(judged('hhf.qdisc_bytes', [52224], [45056]), 'lower')
        self.assertEqual(judged('hhf.false_positives_ppm', [3], [63]), 'higher')
        self.assertEqual(bench.Spread.of([5, 1, 3, 2]), bench.Spread(1, 2.5, 5))

    def test_bench_boots_in_turn_in_turn(self) -> None:
        order = []

        def measure(boot: int, variant: str) -> Dict[str, str]:
            order.append((boot, variant))
            return {'x_ns': str(10 * boot + (variant == 'fork'))}

        figures = bench.boots_in_turn(2, ['upstream-impl', 'fork'], measure)
        self.assertEqual(order, [(1, 'upstream-impl'), (1, 'fork'),
                                 (2, 'upstream-impl'), (2, 'fork')])
        self.assertEqual(figures, {'x_ns': {'upstream-impl': [10.0, 20.0], 'fork': [11.0, 21.0]}})

    def test_bench_values_from_the_log(self) -> None:
        log = '[  2.1]     # pie_bench_run: kfork-bench: pie.update_ns 412\n'
        self.assertEqual(runner.tagged(log, 'kfork-bench'), {'pie.update_ns': '412'})
        self.assertEqual(runner.digests(log), {})

    def test_bench_runs_every_benchmark_unless_told(self) -> None:
        args = cli._parser().parse_args(['bench'])
        self.assertEqual((args.glob, args.debug), ('*_bench', False))
        args = cli._parser().parse_args(['bench', '--boots', '5', '--debug', 'probe_*_bench'])
        self.assertEqual((args.boots, args.glob, args.debug), (5, 'probe_*_bench', True))

    def test_startup_selftest_kernel_is_the_debug_one_with_the_self_tests(self) -> None:
        """kunit/startup-selftest.kunitconfig: .kunitconfig's fragments and
        options, and FTRACE_STARTUP_TEST."""
        config = session.DEFAULT_KUNITCONFIG.parent / 'kunit' / 'startup-selftest.kunitconfig'

        def options(path: Path) -> Set[str]:
            return {line for line in path.read_text().splitlines() if line.startswith('CONFIG_')}

        self.assertEqual([p.name for p in runner.kunitconfig_files(config)[1:]],
                         [p.name for p in runner.kunitconfig_files(session.DEFAULT_KUNITCONFIG)[1:]])
        self.assertEqual(options(config),
                         options(session.DEFAULT_KUNITCONFIG) | {'CONFIG_FTRACE_STARTUP_TEST=y'})

    def test_production_kernel_is_the_debug_one_without_checkers(self) -> None:
        """The production kunitconfig names .kunitconfig's fragments, with
        production.config in place of debug.config, in the same order,
        and builds in a folder of its own."""
        debug = [p.name for p in runner.kunitconfig_files(session.DEFAULT_KUNITCONFIG)[1:]]
        production = [p.name
                      for p in runner.kunitconfig_files(session.PRODUCTION_KUNITCONFIG)[1:]]
        self.assertIn('debug.config', debug)
        self.assertEqual(production, [('production.config' if name == 'debug.config' else name)
                                      for name in debug])
        options = {line for line in session.DEFAULT_KUNITCONFIG.read_text().splitlines()
                   if line.startswith('CONFIG_')}
        self.assertEqual(options, {line for line in
                                   session.PRODUCTION_KUNITCONFIG.read_text().splitlines()
                                   if line.startswith('CONFIG_')})
        self.assertNotEqual(session.build_name('fork', session.PRODUCTION),
                            session.build_name('fork'))

    def assert_debug_but_sanitizers(self, kunitconfig: Path, config: str,
                                    added: Set[str]) -> None:
        """KUNITCONFIG names .kunitconfig's fragments with CONFIG in place
        of debug.config, and CONFIG sets every option of debug.config but
        the sanitizers, and ADDED."""
        debug = runner.kunitconfig_files(session.DEFAULT_KUNITCONFIG)
        other = runner.kunitconfig_files(kunitconfig)
        self.assertEqual([p.name for p in other[1:]],
                         [(config if p.name == 'debug.config' else p.name)
                          for p in debug[1:]])

        def options(path: Path) -> Set[str]:
            return {line for line in path.read_text().splitlines()
                    if line.startswith('CONFIG_') or line.endswith(' is not set')}

        debug_config = next(p for p in debug if p.name == 'debug.config')
        kept = {line for line in options(debug_config)
                if line.split('=')[0] not in coverage.SANITIZERS}
        self.assertEqual(len(kept), len(options(debug_config)) - len(coverage.SANITIZERS))
        self.assertEqual(options(next(p for p in other if p.name == config)), kept | added)
        self.assertEqual(options(kunitconfig), options(session.DEFAULT_KUNITCONFIG))

    def test_coverage_kernel_is_the_debug_one_without_sanitizers(self) -> None:
        """The sanitizers would add branches no correct run takes; gcov
        in their place."""
        self.assert_debug_but_sanitizers(coverage.KUNITCONFIG, 'coverage.config',
                                         {'CONFIG_GCOV_KERNEL=y', 'CONFIG_DEBUG_FS=y'})

    def test_full_only_when_asked(self) -> None:
        self.assertEqual(cli._kernel_args(cli._parser().parse_args(['run'])), ())
        args = cli._parser().parse_args(['compare', '--full', 'probe_fuzz'])
        self.assertEqual(cli._kernel_args(args), runner.FULL_PARAMS)

    def test_kernel_params_name_real_module_params(self) -> None:
        """FILE.PARAM=...: FILE.c in kernel-overlay/ declares
        module_param(PARAM, ...), itself or in a white-box suite it
        includes; a rename on one side breaks it here."""
        sources = {p.stem: p for p in (project_root() / 'kernel-overlay').rglob('*.c')}

        def text(path: Path) -> str:
            body = path.read_text()
            included = re.findall(r'^#include "(\w+_kunit\.c)"$', body, re.MULTILINE)
            return body + ''.join((path.parent / name).read_text() for name in included)

        for arg in (*runner.FULL_PARAMS, *cli.BENCH_PARAMS):
            module, param = arg.split('=', 1)[0].split('.', 1)
            with self.subTest(arg=arg):
                self.assertIn(module, sources)
                self.assertIn(f'module_param({param},', text(sources[module]))

    def test_exec_boots_the_build_as_it_is(self) -> None:
        spec = runner.RunSpec(Path('/t'), Path('/b'), project_root() / '.kunitconfig',
                              Path('/q'), built=True,
                              kernel_args=('x.bench=1',))
        argv = spec.argv(Path('/b/r.json'))
        self.assertEqual(argv[2], 'exec')
        self.assertIn('--kernel_args=x.bench=1', argv)
        self.assertFalse([a for a in argv if a.startswith('--jobs')])

    def test_other_kunitconfig_builds_apart(self) -> None:
        default = argparse.Namespace(kunitconfig=project_root() / '.kunitconfig')
        self.assertEqual(cli._build_name('fork', default), 'fork')
        other = argparse.Namespace(kunitconfig=Path('/tmp/mine.kunitconfig'))
        self.assertRegex(cli._build_name('fork', other), r'^fork-mine\.kunitconfig-[0-9a-f]{8}$')
        # a project's kunitconfig: the same folder from every checkout
        ours = argparse.Namespace(kunitconfig=project_root() / 'kunit' / 'startup-selftest.kunitconfig')
        digest = hashlib.sha1(b'kunit/startup-selftest.kunitconfig').hexdigest()[:8]
        self.assertEqual(cli._build_name('fork', ours), f'fork-startup-selftest.kunitconfig-{digest}')

    def test_kcsan_is_one_of_the_kernels(self) -> None:
        """--kcsan picks kunit/kcsan.kunitconfig, built where tools/vm
        looks for the KCSAN kernel."""
        args = cli._parser().parse_args(['run', '--kcsan'])
        self.assertEqual(args.kunitconfig, session.KCSAN_KUNITCONFIG)
        self.assertEqual(cli._build_name('upstream-impl', args),
                         session.build_name('upstream-impl', session.KCSAN))
        self.assertEqual(session.build_name('fork', session.KCSAN), 'kcsan-fork')
        # tools/vm boots the same kernels
        self.assertEqual(vm_cli._parser().parse_args(['test', '--kcsan']).kernel, session.KCSAN)
        self.assertEqual(vm_cli._parser().parse_args(['compare']).kernel, session.DEBUG)
        args = vm_cli._parser().parse_args(['test', '--kmemleak', 'probestress'])
        self.assertEqual((args.kmemleak, args.suites), (True, ['probestress']))

    def test_kcsan_sees_the_probe_files(self) -> None:
        """kernel/trace/Makefile leaves its folder out of KCSAN: the KCSAN
        kernels put the overlay's files of it back, and only those."""
        got = session.kcsan_make_options(['kernel/trace/trace_uprobe.c',
                                          'kernel/trace/trace_probe.h',
                                          'net/sched/sch_pie.c'])
        self.assertEqual(got, ['KCSAN_SANITIZE_trace_uprobe.o=y'])
        work = WorkArea(Path('/w'))
        src = tree.Tree(Path('/w/src'))
        kcsan = session.spec(work, src, '6.1', 'kcsan-fork', kunitconfig=session.KCSAN_KUNITCONFIG)
        debug = session.spec(work, src, '6.1', 'fork')
        self.assertIn('KCSAN_SANITIZE_trace_kprobe.o=y', kcsan.make_options)
        self.assertNotIn('KCSAN_SANITIZE_trace_kprobe.o=y', debug.make_options)

    def test_kcsan_kernel_is_the_debug_one_without_sanitizers(self) -> None:
        """KCSAN cannot share a kernel with KASAN: it takes the
        sanitizers' place, plain writes not taken for atomic."""
        self.assert_debug_but_sanitizers(
            session.KCSAN_KUNITCONFIG, 'kcsan.config',
            {'CONFIG_KCSAN=y', '# CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC is not set',
             '# CONFIG_KCSAN_REPORT_VALUE_CHANGE_ONLY is not set'})

    def test_unknown_verb_is_one_line_and_exit_2(self) -> None:
        with self.assertRaises(SystemExit) as exit_:
            cli.main(['frobnicate'])
        self.assertEqual(exit_.exception.code, 2)


if __name__ == '__main__':
    unittest.main()
