"""What ensure() asks of the machine: the tarball only with its package."""

from __future__ import annotations

import unittest
from pathlib import Path
from typing import Dict, Iterable, List
from unittest import mock

from kfork import deps, vm_cli
from kfork.common import PACKAGE, ToolError


def all_installed(packages: Iterable[str]) -> Dict[str, str]:
    return {name: '1' for name in packages}


class EnsureTest(unittest.TestCase):
    def setUp(self) -> None:
        for name, value in (('installed_versions', all_installed),
                            ('TARBALL', Path('/nonexistent/linux-source.tar.xz'))):
            patch = mock.patch.object(deps, name, value)
            patch.start()
            self.addCleanup(patch.stop)

    def test_guest_packages_do_not_need_the_tarball(self) -> None:
        # A new machine: tools/vm ensures the guest suites' packages
        # before the session installs the source package.
        deps.ensure(['iproute2', 'gcovr'])

    def test_the_source_package_without_its_tarball_is_an_error(self) -> None:
        with self.assertRaises(ToolError) as caught:
            deps.ensure([PACKAGE, 'gcc'])
        self.assertIn('--reinstall', str(caught.exception))


class PrepareHostTest(unittest.TestCase):
    def test_a_boot_asks_for_the_build_packages_first(self) -> None:
        # tools/vm and tools/coverage prepare the host before the session
        # does: QEMU, and libelf for tools/uprobe's make, come from here.
        asked: List[str] = []
        with mock.patch.object(deps, 'ensure', asked.extend), \
                mock.patch.object(vm_cli, 'run'):
            vm_cli.prepare_host([])
        for package in ('qemu-system-x86', 'libelf-dev', PACKAGE, 'iproute2'):
            self.assertIn(package, asked)


if __name__ == '__main__':
    unittest.main()
