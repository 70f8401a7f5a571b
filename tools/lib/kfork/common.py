"""Paths, errors and command running shared by the fork's tools."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, NoReturn, Optional, Sequence, Tuple

PACKAGE = 'linux-source-6.1'
TARBALL = Path('/usr/src/linux-source-6.1.tar.xz')
DEFAULT_WORK = Path('/var/tmp/kfork')
WORK_ENV = 'KFORK_WORK'

# The two builds of the tree (tree.py), by the names of their branches:
# the project's files, and the distro's implementation files with the
# project's KUnit suites. Every tool and guest takes the names from here.
FORK = 'fork'
UPSTREAM_IMPL = 'upstream-impl'
VARIANTS = (FORK, UPSTREAM_IMPL)
# Tables of both builds put the reference, upstream's files, first.
COLUMNS = (UPSTREAM_IMPL, FORK)
# vCPUs of every boot, KUnit's (kunit/qemu_x86_64.py) and the guests'
# (vm.qemu_argv): the kernels are SMP (kunit/smp.config). $KFORK_VCPUS
# boots another count, for a measurement (tools/measure vcpus); the
# kernels have room for NR_CPUS (8).
VCPUS_ENV = 'KFORK_VCPUS'
VCPUS = 2


def vcpus() -> int:
    """The vCPUs a boot gets: $KFORK_VCPUS, else VCPUS."""
    text = os.environ.get(VCPUS_ENV, str(VCPUS))
    if not text.isdigit() or not 1 <= int(text) <= 8:
        raise ToolError(f'{VCPUS_ENV}={text}: a count of vCPUs from 1 to 8 (NR_CPUS)')
    return int(text)


class ToolError(Exception):
    """A failure the user can act on: printed as one line, exit status 2."""


def project_root() -> Path:
    """The checkout this tool belongs to (tools/lib/kfork/ is three deep)."""
    return Path(__file__).resolve().parents[3]


def is_fork() -> bool:
    """Inside a guest: its build, as tools/vm passes it; by hand, the fork."""
    return os.environ.get('KFORK_VARIANT', FORK) != UPSTREAM_IMPL


@dataclass(frozen=True)
class WorkArea:
    """Where the unpacked tree, the builds and ccache live.

    Outside the checkout, so that a fresh clone (CI's) finds the tree
    and the cache of earlier runs and never unpacks or builds cold again.
    The source tree keeps one fixed path: compile lines carry absolute
    paths, and ccache only hits when they stay the same.
    """

    root: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> 'WorkArea':
        return cls(Path(env.get(WORK_ENV) or DEFAULT_WORK).resolve())

    @property
    def src(self) -> Path:
        return self.root / 'src'

    @property
    def ccache(self) -> Path:
        return self.root / 'ccache'

    def build_dir(self, version: str, variant: str) -> Path:
        return self.root / 'build' / version / variant

    @property
    def state_file(self) -> Path:
        return self.root / 'last-built-version'


def say(msg: str) -> None:
    """Progress for the user, on stderr so stdout stays the test output."""
    print(f'kfork: {msg}', file=sys.stderr, flush=True)


def run(cmd: Sequence[str], *, cwd: Optional[Path] = None,
        env: Optional[Mapping[str, str]] = None, check: bool = True,
        capture: bool = True, stdin: Optional[str] = None
        ) -> subprocess.CompletedProcess[str]:
    """Run a command; on failure raise ToolError naming it and its error."""
    proc = subprocess.run(list(cmd), cwd=cwd, env=None if env is None else dict(env),
                          text=True, input=stdin,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.PIPE if capture else None)
    if check and proc.returncode != 0:
        err = (proc.stderr or '').strip().splitlines()
        detail = err[-1] if err else f'exit status {proc.returncode}'
        raise ToolError(f'{" ".join(cmd[:3])}: {detail}')
    return proc


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are the tool's one-line errors."""

    def error(self, message: str) -> NoReturn:
        tool = self.prog.split()[0]
        print(f'{tool}: error: {message} (see {tool} --help)', file=sys.stderr)
        sys.exit(2)


def verb_parser(prog: str, description: str) -> Tuple[Parser, 'argparse._SubParsersAction[Any]']:
    """A tool's parser and the subparsers its verbs are added to."""
    parser = Parser(prog=prog, description=description,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser, parser.add_subparsers(dest='verb', metavar='VERB', parser_class=Parser)


def variant_option(parser: argparse.ArgumentParser, help: str) -> None:
    """--upstream-impl: args.variant is then UPSTREAM_IMPL, else FORK."""
    parser.add_argument(f'--{UPSTREAM_IMPL}', dest='variant', action='store_const',
                        const=UPSTREAM_IMPL, default=FORK, help=help)


def guard(prog: str, body: Callable[[], int]) -> int:
    """Run a tool's verb: a ToolError becomes one line and exit status 2."""
    try:
        return body()
    except ToolError as err:
        print(f'{prog}: error: {err}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f'{prog}: interrupted', file=sys.stderr)
        return 130
