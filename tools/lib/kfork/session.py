"""What every tool does before it builds: packages, work area, tree."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any, List, Sequence, Tuple

from . import deps, runner, tree
from .common import FORK, PACKAGE, WorkArea, project_root, say

DEFAULT_KUNITCONFIG = project_root() / '.kunitconfig'
# The benchmarks' kernel: .kunitconfig with Debian's production options
# in place of the debug checkers, built in folders of its own.
PRODUCTION_KUNITCONFIG = project_root() / 'kunit' / 'production.kunitconfig'
# The data-race detector's kernel: KCSAN in place of KASAN and UBSAN.
KCSAN_KUNITCONFIG = project_root() / 'kunit' / 'kcsan.kunitconfig'
# The kernels of a variant, by name: each its kunitconfig and folder.
DEBUG, PRODUCTION, KCSAN = 'debug', 'production', 'kcsan'
KUNITCONFIGS = {DEBUG: DEFAULT_KUNITCONFIG, PRODUCTION: PRODUCTION_KUNITCONFIG,
                KCSAN: KCSAN_KUNITCONFIG}
QEMU_CONFIG = project_root() / 'kunit' / 'qemu_x86_64.py'


def prepare() -> Tuple[WorkArea, tree.Tree, str]:
    """Install what is missing and return the work area, tree and version."""
    deps.ensure()
    version = deps.installed_version(PACKAGE)
    work = WorkArea.from_env()
    if work.state_file.is_file():
        last = work.state_file.read_text().strip()
        if last and last != version:
            say(f'{PACKAGE} is now {version}; the fork was last built on {last}')
    return work, tree.ensure_tree(work, version), version


def spec(work: WorkArea, src: tree.Tree, version: str, build_name: str,
         kunitconfig: Path = DEFAULT_KUNITCONFIG, glob: str = '', timeout: int = 300,
         jobs: int = 0, kernel_args: Sequence[str] = (), fragments: Sequence[Path] = (),
         make_options: Sequence[str] = (), kmemleak: bool = False) -> runner.RunSpec:
    """The kunit.py invocation for one build folder of the work area.
    kmemleak: boot with it on. Off, it saves five seconds of boot and
    slows no allocation; only a suite that scans (probe_fuzz) uses it."""
    args = ('kmemleak=on' if kmemleak else 'kmemleak=off', *kernel_args)
    if kunitconfig.resolve() == KCSAN_KUNITCONFIG.resolve():
        make_options = (*make_options, *kcsan_make_options(tree.default_overlay().files(FORK)))
    return runner.RunSpec(tree=src.path, build_dir=work.build_dir(version, build_name),
                          kunitconfig=kunitconfig.resolve(), qemu_config=QEMU_CONFIG,
                          glob=glob, timeout=timeout, jobs=jobs or os.cpu_count() or 1,
                          kernel_args=args, fragments=tuple(fragments),
                          make_options=tuple(make_options))


def kcsan_make_options(paths: Sequence[str]) -> List[str]:
    """KCSAN_SANITIZE_<file>.o=y for the overlay's files of kernel/trace,
    whose Makefile leaves the folder out of KCSAN (the function tracer
    must not recurse into it): without it KCSAN would see no race in
    the probe core, trace_kprobe.c or trace_uprobe.c."""
    return sorted({f'KCSAN_SANITIZE_{PurePosixPath(p).stem}.o=y' for p in paths
                   if p.startswith('kernel/trace/') and p.endswith('.c')})


def build_name(variant: str, kernel: str = DEBUG) -> str:
    """The build folder of one of a variant's KERNELS: the debug one is
    named by the variant alone."""
    return variant if kernel == DEBUG else f'{kernel}-{variant}'


def kernel_spec(work: WorkArea, src: tree.Tree, version: str, variant: str, kernel: str,
                **options: Any) -> runner.RunSpec:
    """spec() for one of a variant's kernels (KUNITCONFIGS), each in its
    own folder."""
    return spec(work, src, version, build_name(variant, kernel),
                kunitconfig=KUNITCONFIGS[kernel], **options)
