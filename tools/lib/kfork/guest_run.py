"""Run guest suites inside a tools/vm guest (tools/guest/run).

Each suite runs in a process of its own under `timeout -k 10 LIMIT`, so
that a hang costs one suite, not the run, with its raw output (stdout
and stderr) in $KFORK_OUT/SUITE.out for the host to parse. The suites,
their commands and limits are guest_tests.SUITES.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, NoReturn, Optional, Sequence

from . import guest_tests
from .common import project_root
from .guest_tests import BASELINE, OWN, Suite

OUT_ENV = 'KFORK_OUT'
# The runner's entry point, which each suite's process runs again.
RUN_SCRIPT = project_root() / 'tools' / 'guest' / 'run'
# timeout's status when the limit killed the command.
TIMED_OUT = 124


def child_argv(suite: Suite, tree: Path) -> List[str]:
    """The suite's own process: the runner again, with --one, under
    timeout (which signals the whole process group at the limit)."""
    return ['timeout', '-k', '10', str(suite.limit), sys.executable, str(RUN_SCRIPT),
            '--one', str(tree), suite.name]


def start(suite: Suite, tree: Path, out: Path) -> NoReturn:
    """Become the suite's command (the --one process)."""
    command = suite.command(tree, out)
    try:
        if command.copy_from is not None and command.cwd is not None:
            shutil.copytree(command.copy_from, command.cwd, symlinks=True, dirs_exist_ok=True)
        if command.cwd is not None:
            os.chdir(command.cwd)
    except OSError as err:
        print(f'kfork-guest: {suite.name}: {err}', file=sys.stderr, flush=True)
        sys.exit(2)
    try:
        os.execvpe(command.argv[0], list(command.argv), {**os.environ, **command.env})
    except OSError as err:
        print(f'kfork-guest: {suite.name}: {command.argv[0]}: {err}', file=sys.stderr,
              flush=True)
        sys.exit(127)


def run_suites(tree: Path, out: Path, suites: Sequence[str]) -> int:
    """Each suite in turn; 2 when one is unknown, else 0 (the host judges
    the outputs)."""
    status = 0
    known = guest_tests.names()
    for name in suites:
        if name not in known:
            print(f'kfork-guest: unknown suite {name}', flush=True)
            status = 2
            continue
        suite = guest_tests.suite(name)
        print(f'kfork-guest: suite {name}', flush=True)
        with open(out / f'{name}.out', 'w', encoding='utf-8') as raw:
            rc = subprocess.run(child_argv(suite, tree), stdout=raw, stderr=subprocess.STDOUT,
                                check=False).returncode
        rc = 128 - rc if rc < 0 else rc  # killed by a signal, as sh reports it
        if rc == TIMED_OUT:
            print(f'kfork-guest: suite {name} killed at its limit of {suite.limit} s', flush=True)
        print(f'kfork-guest: suite {name} exited with {rc}', flush=True)
    return status


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='tools/guest/run', formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__ + '\nsuites:\n' + '\n'.join(guest_tests.help_lines()))
    parser.add_argument('tree', type=Path, help='the distro tree (upstream\'s selftests)')
    parser.add_argument('suites', nargs='*', metavar='SUITE', help='the suites to run, in order')
    parser.add_argument('--kind', choices=(BASELINE, OWN), action='append', default=[],
                        help='also every suite of this kind (baseline: upstream\'s; '
                             'own: the project\'s)')
    parser.add_argument('--one', action='store_true',
                        help='become the one SUITE\'s command (how each suite\'s '
                             'process starts)')
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    out = os.environ.get(OUT_ENV)
    if not out:
        print(f'tools/guest/run: {OUT_ENV}: not in a tools/vm guest', file=sys.stderr)
        return 2
    suites = [*(n for kind in args.kind for n in guest_tests.names(kind)), *args.suites]
    if args.one:
        if len(args.suites) != 1 or args.suites[0] not in guest_tests.names():
            print('tools/guest/run: --one takes one known SUITE', file=sys.stderr)
            return 2
        start(guest_tests.suite(args.suites[0]), args.tree, Path(out))
    return run_suites(args.tree, Path(out), suites)


if __name__ == '__main__':
    sys.exit(main())
