"""Boots at once: results by variant, and errors as the tools' one line."""

from __future__ import annotations

import contextlib
import io
import threading
import time
import unittest
from pathlib import Path
from typing import List
from unittest import mock

from kfork import runner, vm
from kfork.common import (FORK, UPSTREAM_IMPL, VCPUS, VCPUS_ENV, ToolError, guard,
                          project_root)


def fails(err: Exception) -> int:
    raise err


class AtOnceTest(unittest.TestCase):
    def test_results_by_variant(self) -> None:
        got = vm.at_once({UPSTREAM_IMPL: lambda: 1, FORK: lambda: 2})
        self.assertEqual(list(got.items()), [(UPSTREAM_IMPL, 1), (FORK, 2)])

    def test_boots_run_at_once(self) -> None:
        barrier = threading.Barrier(2, timeout=10)
        got = vm.at_once({v: barrier.wait for v in (UPSTREAM_IMPL, FORK)})
        self.assertEqual(sorted(got.values()), [0, 1])

    def test_an_error_names_its_variant_after_the_other_boot_ends(self) -> None:
        ended = threading.Event()

        def slow() -> int:
            time.sleep(0.2)
            ended.set()
            return 0

        with self.assertRaises(ToolError) as caught:
            vm.at_once({UPSTREAM_IMPL: slow,
                        FORK: lambda: fails(ToolError('no fork kernel'))})
        self.assertEqual(str(caught.exception), f'{FORK}: no fork kernel')
        self.assertTrue(ended.is_set())

    def test_both_errors_in_one_line(self) -> None:
        with self.assertRaises(ToolError) as caught:
            vm.at_once({UPSTREAM_IMPL: lambda: fails(FileNotFoundError(2, 'No such file',
                                                                       'qemu')),
                        FORK: lambda: fails(ToolError(f'{FORK}: already named'))})
        self.assertEqual(str(caught.exception),
                         f"{UPSTREAM_IMPL}: [Errno 2] No such file: 'qemu'; {FORK}: already named")

    def test_the_user_sees_one_line_and_no_traceback(self) -> None:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = guard('tools/vm', lambda: len(vm.at_once(
                {FORK: lambda: fails(ToolError('the boot broke')), UPSTREAM_IMPL: lambda: 0})))
        self.assertEqual(status, 2)
        self.assertEqual(err.getvalue(), f'tools/vm: error: {FORK}: the boot broke\n')

    def test_a_bug_is_not_hidden(self) -> None:
        with self.assertRaises(ZeroDivisionError):
            vm.at_once({FORK: lambda: 1 // 0})


if __name__ == '__main__':
    unittest.main()


class QemuArgvTest(unittest.TestCase):
    """The guest's command line: its modules' root, and a suite's words."""

    def test_modules_root_beside_the_image_and_suite_words_last(self) -> None:
        build = Path('/work/build/fork')
        image = build / 'arch/x86/boot/bzImage'
        with mock.patch.object(vm, 'kernel_hz', return_value='250'):
            argv = vm.qemu_argv(image, Path('/out'), FORK, [], kernel_args=('kprobe_event=p,f',))
        append = argv[argv.index('-append') + 1].split()
        self.assertIn(f'kfork_modroot={build / "modroot"}', append)
        self.assertEqual(append[-1], 'kprobe_event=p,f')
        self.assertEqual(runner.modules_root(image), build / 'modroot')


class SmpTest(unittest.TestCase):
    """Every boot has VCPUS vCPUs on multi-threaded TCG, or as many as
    $KFORK_VCPUS says: the guests' QEMU command line and kunit.py's QEMU
    settings alike."""

    def argv(self) -> List[str]:
        argv = vm.qemu_argv(Path('/b/arch/x86/boot/bzImage'), Path('/o'), FORK, [])
        at = argv.index('-smp')
        return argv[at:at + 4]

    def test_guests_boot_on_vcpus(self) -> None:
        with mock.patch.dict('os.environ', clear=False) as env:
            env.pop(VCPUS_ENV, None)
            self.assertEqual(self.argv(), ['-smp', str(VCPUS), '-accel', 'tcg,thread=multi'])
            env[VCPUS_ENV] = '1'
            self.assertEqual(self.argv()[:2], ['-smp', '1'])
            for bad in ('0', '9', 'two'):
                env[VCPUS_ENV] = bad
                with self.assertRaises(ToolError):
                    self.argv()

    def test_kunit_boots_on_as_many(self) -> None:
        text = (project_root() / 'kunit' / 'qemu_x86_64.py').read_text()
        self.assertIn(f"'-smp', os.environ.get('{VCPUS_ENV}', '{VCPUS}')", text)
        self.assertIn("'-accel', 'tcg,thread=multi'", text)

    def test_every_kernel_is_smp(self) -> None:
        for config in ('.kunitconfig', 'kunit/production.kunitconfig',
                       'kunit/coverage.kunitconfig', 'kunit/kcsan.kunitconfig',
                       'kunit/startup-selftest.kunitconfig'):
            with self.subTest(config=config):
                names = [p.name for p in runner.kunitconfig_files(project_root() / config)]
                self.assertIn('smp.config', names)
        smp = (project_root() / 'kunit' / 'smp.config').read_text().splitlines()
        self.assertIn('CONFIG_SMP=y', smp)
        cpus = [int(line.split('=')[1]) for line in smp if line.startswith('CONFIG_NR_CPUS=')]
        self.assertEqual(len(cpus), 1)
        self.assertGreaterEqual(cpus[0], max(8, VCPUS))
