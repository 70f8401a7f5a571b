"""Install, with apt-get, what building and booting the fork needs."""

from __future__ import annotations

import os
import shutil
from typing import Dict, Iterable, List

from .common import PACKAGE, TARBALL, ToolError, run, say

# Kernel build (gcc, make, bc, flex, bison, libelf-dev, libssl-dev, perl,
# cpio, kmod), kunit.py (python3), QEMU with qboot (qemu-system-x86 pulls
# qemu-system-data), the unpacked tree (xz-utils, git), the cache.
BUILD_PACKAGES = [
    PACKAGE, 'qemu-system-x86', 'gcc', 'make', 'bc', 'flex', 'bison',
    'libelf-dev', 'libssl-dev', 'python3', 'rsync', 'ccache', 'xz-utils',
    'git', 'perl', 'cpio', 'kmod',
]


def installed_versions(packages: Iterable[str]) -> Dict[str, str]:
    """Installed version of each package ('' when it is not), in one query."""
    if not shutil.which('dpkg-query'):
        raise ToolError('dpkg-query not found: this tool needs a Debian system')
    names = list(packages)
    proc = run(['dpkg-query', '-W', '-f=${Package}\t${Status}\t${Version}\n', *names],
               check=False)
    found = {name: '' for name in names}
    for line in proc.stdout.splitlines():
        name, status, version = (line.split('\t') + ['', ''])[:3]
        if name in found and status.endswith(' installed'):
            found[name] = version
    return found


def installed_version(package: str) -> str:
    return installed_versions([package])[package]


def missing(packages: Iterable[str]) -> List[str]:
    return [p for p, v in installed_versions(packages).items() if not v]


def ensure_optional(packages: Iterable[str], why: str) -> None:
    """ensure(), but a package that cannot be installed only costs the
    tests that need it (WHY names them): they skip, saying so."""
    try:
        ensure(packages)
    except ToolError as err:
        say(f'{err}: {why} skip')


def ensure(packages: Iterable[str] = BUILD_PACKAGES) -> None:
    """Install the packages that are not installed yet, saying which.
    The tarball is checked only when the source package is asked for:
    a guest suite's packages come first on a new machine, before it."""
    packages = list(packages)
    need = missing(packages)
    if need:
        if os.geteuid() != 0:
            raise ToolError(f'missing packages {" ".join(need)}: run as root '
                            f'or install them with apt-get')
        say(f'installing {" ".join(need)} (apt-get update, then apt-get install)')
        env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
        run(['apt-get', 'update', '-q'], env=env)
        proc = run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', *need],
                   env=env, check=False)
        if proc.returncode != 0:
            last = (proc.stderr or proc.stdout).strip().splitlines()
            raise ToolError(f'apt-get install {" ".join(need)} failed: '
                            f'{last[-1] if last else proc.returncode}')
        still = missing(need)
        if still:
            raise ToolError(f'apt-get did not install {" ".join(still)}')
    if PACKAGE in packages and not TARBALL.is_file():
        raise ToolError(f'{TARBALL} is missing although {PACKAGE} is installed: '
                        f'reinstall it with apt-get install --reinstall {PACKAGE}')
