"""tools/vm: boot the fork kernel on this machine's userspace and run tests."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn, Optional, Sequence

from . import runner, session, tree, vm
from .common import ToolError

DESCRIPTION = """\
Boot the kernel that tools/kunit builds (fork, or --upstream-impl) under
QEMU (TCG) on this machine's own root filesystem, read-only over 9p,
and run a command in it as root.

verbs:
  run [--upstream-impl] CMD [ARG...]
                    boot, run CMD in the current folder, stream its
                    output, exit with its status

The run fails (exit 1) when the command fails, the guest panics or hangs
past --timeout, or the kernel log holds a KASAN, UBSAN, lockdep or WARN
report. The command sees $KFORK_OUT, a folder the host keeps: the run's
console.log, dmesg and status are there too ($KFORK_WORK/vm/VARIANT).
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f'tools/vm: error: {message} (see tools/vm --help)', file=sys.stderr)
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog='tools/vm', description=DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest='verb', metavar='VERB', parser_class=_Parser)
    run = verbs.add_parser('run', help='boot and run a command')
    run.add_argument('--upstream-impl', action='store_true',
                     help='the build with the distro\'s implementation files')
    run.add_argument('--timeout', type=int, default=600,
                     help='seconds before the guest is killed (default: 600)')
    run.add_argument('--no-build', action='store_true',
                     help='boot the last build as it is, without make')
    run.add_argument('command', nargs=argparse.REMAINDER, metavar='CMD',
                     help='the command and its arguments')
    return parser


def kernel_image(variant: str, build: bool) -> tuple[Path, Path]:
    """The bzImage of a variant (built or brought up to date unless
    build is False) and the folder for its guest runs."""
    work, src, version = session.prepare()
    spec = session.spec(work, src, version, variant)
    if build:
        tree.sync(src, tree.default_overlay(), variant)
        image = runner.build_kernel(spec, work, variant)
    else:
        image = spec.build_dir / 'arch/x86/boot/bzImage'
        if not image.is_file():
            raise ToolError(f'no {variant} kernel in {spec.build_dir}: run without --no-build')
    return image, work.root / 'vm' / variant


def _run(args: argparse.Namespace) -> int:
    command = [c for c in args.command if c != '--'] if args.command[:1] == ['--'] \
        else list(args.command)
    if not command:
        raise ToolError('run needs a command')
    vm.require_programs(['qemu-system-x86_64', command[0]])
    variant = 'upstream-impl' if args.upstream_impl else 'fork'
    image, folder = kernel_image(variant, not args.no_build)
    result = vm.boot(image, folder, variant, command, Path.cwd(), args.timeout)
    vm.announce(result)
    return 0 if result.ok else 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.verb == 'run':
            return _run(args)
        _parser().print_help()
        return 2
    except ToolError as err:
        print(f'tools/vm: error: {err}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print('tools/vm: interrupted', file=sys.stderr)
        return 130
