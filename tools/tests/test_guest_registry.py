"""The guest suites' registry (guest_tests.SUITES) is their only list."""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from kfork import guest_kprobe, guest_run, guest_tests as gt, vm_cli
from kfork.common import FORK, ToolError, project_root

FTRACETEST = """\
#!/bin/sh
echo "args: $*"
echo "[1] Kprobe dynamic event - adding and removing	[PASS]"
echo "[2] Kprobe event argument syntax	[FAIL]"
echo "to stderr" >&2
exit 3
"""


class RegistryTest(unittest.TestCase):
    def test_names_kinds_and_order(self) -> None:
        names = gt.names()
        self.assertEqual(len(set(names)), len(names))
        # suites that read what the boot set up run first, as the others
        # (ftracetest) clear it; then upstream's, then the project's own
        boot = tuple(s.name for s in gt.SUITES if s.kernel_args)
        rest = [n for n in names if n not in boot]
        self.assertEqual(names, (*boot, *rest))
        self.assertEqual(tuple(rest), (*gt.names(gt.BASELINE),
                                       *(n for n in gt.names(gt.OWN) if n not in boot)))
        self.assertEqual({s.kind for s in gt.SUITES}, {gt.BASELINE, gt.OWN})
        with self.assertRaises(ToolError):
            gt.suite('nosuch')

    def test_kernel_args_of_the_suites_run(self) -> None:
        self.assertEqual(gt.kernel_args(['ftrace', 'uprobe']), ())
        self.assertEqual(gt.kernel_args(['uprobe', 'kprobe']), (guest_kprobe.BOOT_EVENTS,))
        self.assertTrue(guest_kprobe.BOOT_EVENTS.startswith('kprobe_event='))
        self.assertNotIn(' ', guest_kprobe.BOOT_EVENTS)

    def test_every_suite_can_run_and_be_parsed(self) -> None:
        tree, out = Path('/src'), Path('/out')
        for suite in gt.SUITES:
            with self.subTest(suite=suite.name):
                command = suite.command(tree, out)
                self.assertTrue(command.argv)
                self.assertGreater(suite.limit, 0)
                self.assertIsInstance(suite.parse(''), dict)
                if suite.own:
                    # A module beside the tools, and no output is a failure.
                    self.assertIn(f'kfork.guest_{suite.name}', command.argv)
                    self.assertTrue((gt.LIB / 'kfork' / f'guest_{suite.name}.py').is_file())
                    self.assertEqual(list(suite.parse('').values()), ['FAIL'])
                else:
                    self.assertTrue((gt.BASELINE_DIR / f'{suite.name}.txt').is_file())

    def test_results_of_every_suite(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(set(gt.read_results(Path(tmp), gt.names())), set(gt.names()))

    def test_guest_scripts_name_no_suite(self) -> None:
        """tools/guest/coverage picks the suites by kind; tools/guest/run
        is the registry's runner."""
        word = re.compile(r'\b(%s)\b' % '|'.join(gt.names()))
        for script in ('tools/guest/coverage', 'tools/guest/run'):
            code = [line for line in (project_root() / script).read_text().splitlines()
                    if not line.lstrip().startswith('#')]
            with self.subTest(script=script):
                self.assertEqual([line for line in code if word.search(line)], [])

    def test_suites_booting_with_args(self) -> None:
        """tools/coverage boots these again with their words: the kprobe
        suite's kprobe_event= line, and no suite without words."""
        self.assertIn('kprobe', gt.booting_with_args())
        for name in gt.booting_with_args():
            self.assertNotEqual(gt.suite(name).kernel_args, ())
        self.assertEqual(gt.kernel_args(gt.names()), gt.kernel_args(gt.booting_with_args()))

    def test_tools_vm_takes_the_registry(self) -> None:
        self.assertEqual(vm_cli._suites('test', []), list(gt.names()))
        # the registry's order, whatever the order named
        self.assertEqual(vm_cli._suites('compare', ['tc', 'ftrace']), ['ftrace', 'tc'])
        self.assertEqual(vm_cli._suites('test', ['ftrace', 'kprobe']), ['kprobe', 'ftrace'])
        self.assertEqual(vm_cli._suites('baseline', []), list(gt.names(gt.BASELINE)))
        with self.assertRaises(ToolError):
            vm_cli._suites('baseline', list(gt.names(gt.OWN))[:1])
        text = vm_cli._parser().format_help()
        for name in gt.names():
            self.assertRegex(text, rf'\n  {name} ')

    def test_judged_as_its_kind(self) -> None:
        own = gt.names(gt.OWN)[0]
        (verdict,) = gt.judge_suite(FORK, own, {'a case': 'FAIL'})
        self.assertTrue(verdict.failed)


class RunnerTest(unittest.TestCase):
    """tools/guest/run on a stand-in distro tree, as the guest runs it."""

    def test_runs_each_suite_in_its_own_process(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            tree, out = Path(tmp) / 'src', Path(tmp) / 'out'
            folder = tree / 'tools/testing/selftests/ftrace'
            folder.mkdir(parents=True)
            out.mkdir()
            (folder / 'ftracetest').write_text(FTRACETEST)
            (folder / 'ftracetest').chmod(0o755)
            printed = io.StringIO()
            with mock.patch.dict(os.environ, {guest_run.OUT_ENV: str(out)}), \
                    contextlib.redirect_stdout(printed):
                status = guest_run.main([str(tree), 'ftrace', 'nosuch'])
            self.assertEqual(status, 2)
            self.assertEqual(printed.getvalue().splitlines(), [
                'kfork-guest: suite ftrace', 'kfork-guest: suite ftrace exited with 3',
                'kfork-guest: unknown suite nosuch'])
            raw = (out / 'ftrace.out').read_text()
            self.assertIn(f'args: -l {out}/ftrace-logs test.d/kprobe test.d/dynevent', raw)
            self.assertIn('to stderr', raw)
            self.assertEqual(gt.read_results(out, ['ftrace'])['ftrace'], {
                'Kprobe dynamic event - adding and removing': 'PASS',
                'Kprobe event argument syntax': 'FAIL'})

    def test_each_suite_under_its_limit(self) -> None:
        for suite in gt.SUITES:
            argv = guest_run.child_argv(suite, Path('/src'))
            self.assertEqual(argv[:4], ['timeout', '-k', '10', str(suite.limit)])
            self.assertEqual(argv[-3:], ['--one', '/src', suite.name])

    def test_kinds_pick_the_registry_suites(self) -> None:
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(os.environ, {guest_run.OUT_ENV: tmp}), \
                mock.patch.object(guest_run, 'run_suites', return_value=0) as run:
            guest_run.main(['--kind', 'own', '/src'])
            run.assert_called_once_with(Path('/src'), Path(tmp), list(gt.names(gt.OWN)))

    def test_outside_a_guest(self) -> None:
        err = io.StringIO()
        with mock.patch.dict(os.environ, {}, clear=True), contextlib.redirect_stderr(err):
            self.assertEqual(guest_run.main(['/src', 'ftrace']), 2)
        self.assertIn('not in a tools/vm guest', err.getvalue())


if __name__ == '__main__':
    unittest.main()
