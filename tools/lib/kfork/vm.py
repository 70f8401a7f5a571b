"""Boot the fork kernel on the host's own root filesystem and run a command.

The kernel is the KUnit build of tools/kunit (its kunitconfig includes
kunit/guest.config), booted with kunit.enable=0 under QEMU's TCG. The
root is the host's / shared read-only over 9p, so every program on the
machine runs in the guest with no image to build; the run's folder is
shared writable at the same path (guest-init). The command's status
comes back through that folder: a guest that panics, hangs or never
gets there has none, and fails the run.
"""

from __future__ import annotations

import concurrent.futures
import shlex
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, TypeVar

from . import logscan, marks
from .runner import judge_log, modules_root, print_reports
from .common import ToolError, WorkArea, project_root, say, vcpus

GUEST_INIT = Path(__file__).resolve().with_name('guest-init')

# Programs guest tests use, and the Debian package that brings each.
PACKAGES = {
    'tc': 'iproute2', 'ip': 'iproute2', 'python3': 'python3', 'gcc': 'gcc',
    'readelf': 'binutils', 'nm': 'binutils', 'objdump': 'binutils', 'perf': 'linux-perf',
    'qemu-system-x86_64': 'qemu-system-x86', 'ping': 'iputils-ping',
}


def require_programs(names: Sequence[str]) -> None:
    """Stop with one line naming the package when a program is missing."""
    for name in names:
        if '/' in name:
            if not Path(name).exists():
                raise ToolError(f'{name} does not exist on this machine')
        elif not shutil.which(name):
            package = PACKAGES.get(name)
            hint = f': apt-get install {package}' if package else ''
            raise ToolError(f'{name} is not installed on this machine{hint}')


@dataclass
class GuestRun:
    """The outcome of one boot."""

    variant: str
    folder: Path
    status: Optional[int] = None
    timed_out: bool = False
    boot_seconds: Optional[float] = None
    reports: List[logscan.Report] = field(default_factory=list)
    # The kernel's build folder (whose objects name the overlay's
    # functions), and the KCSAN reports that do not fail the run.
    build_dir: Optional[Path] = None
    races: List[logscan.Report] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == 0 and not self.timed_out and not self.reports

    def problem(self) -> str:
        if self.timed_out:
            return 'the guest did not finish before the timeout and was killed'
        if self.status is None:
            return 'the guest stopped before the command finished (panic or crash: see the log)'
        if self.reports:
            return f'{len(self.reports)} checker report(s) in the kernel log'
        if self.status:
            return f'the command exited with status {self.status}'
        return ''


def kernel_hz(image: Path) -> str:
    """CONFIG_HZ of the build an image comes from (BUILD/arch/x86/boot/
    bzImage beside BUILD/.config): guest tests that read back times the
    kernel keeps in jiffies need the tick. '' when unknown."""
    config = image.parents[3] / '.config'
    if config.is_file():
        for line in config.read_text().splitlines():
            if line.startswith('CONFIG_HZ='):
                return line.partition('=')[2]
    return ''


def smp_accel() -> List[str]:
    """vcpus() vCPUs, each on a host thread of its own (multi-threaded
    TCG): the fork's lockless paths can only race on several CPUs
    (kunit/smp.config). kunit/qemu_x86_64.py boots KUnit the same way."""
    return ['-smp', str(vcpus()), '-accel', 'tcg,thread=multi']


def qemu_argv(image: Path, folder: Path, variant: str, keep: Sequence[Path],
              kmemleak: bool = False, memory_mb: int = 1024,
              kunit: bool = False, kernel_args: Sequence[str] = ()) -> List[str]:
    """QEMU for a guest: q35 (its ACPI routes the virtio interrupts in
    a second, i440fx's took 20 s here), TCG, no network card. kmemleak
    only when asked for: tracking every allocation doubles boot time
    and slows every test, and only a test that scans can use it. keep:
    host folders the guest must see although they are under /tmp.
    kunit: run the built-in KUnit suites before init (a coverage run
    wants them in the same boot as the guest tests), with a log buffer
    that holds all of their output. kernel_args: more of the kernel's
    command line, such as the suites' module parameters."""
    for path in (folder, *keep):
        if any(c.isspace() for c in str(path)):
            raise ToolError(f'{path}: a path with white space cannot go on the '
                            f'kernel command line; move it or set KFORK_WORK')
    append = ' '.join([
        'console=ttyS0', 'quiet', 'panic=-1',
        'kunit.enable=1 log_buf_len=8M' if kunit else 'kunit.enable=0',
        'kmemleak=on' if kmemleak else 'kmemleak=off',
        'root=hostroot', 'rootfstype=9p', 'ro',
        'rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose',
        f'init={GUEST_INIT}', f'kfork_out={folder}', f'kfork_variant={variant}',
        f'kfork_hz={kernel_hz(image)}',
        f'kfork_keep={":".join(str(p) for p in keep)}',
        f'kfork_modroot={modules_root(image)}',
        *kernel_args,
    ])
    return ['qemu-system-x86_64', '-machine', 'q35', *smp_accel(), '-nodefaults',
            '-nographic', '-no-reboot', '-m', str(memory_mb), '-bios', 'qboot.rom',
            '-kernel', str(image), '-append', append,
            '-fsdev', 'local,id=root,path=/,security_model=none,readonly=on,multidevs=remap',
            '-device', 'virtio-9p-pci,fsdev=root,mount_tag=hostroot',
            '-fsdev', f'local,id=out,path={folder},security_model=none',
            '-device', 'virtio-9p-pci,fsdev=out,mount_tag=kfork-out',
            '-serial', 'stdio']


def _command_script(command: Sequence[str], cwd: Path) -> str:
    return f'#!/bin/sh\ncd {shlex.quote(str(cwd))} || exit 125\nexec {shlex.join(command)}\n'


def _keep(cwd: Path) -> List[Path]:
    """What a guest command may need from the host besides its folder."""
    return [project_root(), cwd, WorkArea.from_env().root]


def boot(image: Path, folder: Path, variant: str, command: Sequence[str], cwd: Path,
         timeout: int, stream: bool = True, kmemleak: bool = False,
         kunit: bool = False, kernel_args: Sequence[str] = ()) -> GuestRun:
    """Boot, run command in cwd, stream the console (unless several
    guests run at once); judge the result."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / 'cmd').write_text(_command_script(command, cwd))
    # the image is BUILD/arch/x86/boot/bzImage
    run = GuestRun(variant, folder, build_dir=image.parents[3])
    console = folder / 'console.log'
    start = time.monotonic()
    argv = qemu_argv(image, folder, variant, _keep(cwd), kmemleak, kunit=kunit,
                     kernel_args=kernel_args)
    with open(console, 'w', encoding='utf-8') as log, \
            subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             errors='backslashreplace') as proc:
        assert proc.stdout is not None
        pipe = proc.stdout

        def pump() -> None:
            for line in pipe:
                log.write(line)
                if line.startswith('kfork-guest: booted') and run.boot_seconds is None:
                    run.boot_seconds = time.monotonic() - start
                if stream:
                    sys.stdout.write(line)
                    sys.stdout.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.timed_out = True
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
    return read_result(run)


def read_result(run: GuestRun) -> GuestRun:
    """Fill in the command's status and the checker reports from what
    the guest left in its folder: the kernel log it saved at the end,
    or the console when it never got there."""
    status = run.folder / 'status'
    if status.is_file() and status.read_text().strip().isdigit():
        run.status = int(status.read_text().strip())
    log = run.folder / 'dmesg'
    if not log.is_file():
        log = run.folder / 'console.log'
    if log.is_file():
        text = log.read_text(errors='replace')
        if run.build_dir is None:
            run.reports = logscan.scan(text)
        else:
            run.reports, run.races = judge_log(text, run.build_dir, run.variant,
                                               marks.project())
    return run


T = TypeVar('T')


def at_once(jobs: Mapping[str, Callable[[], T]]) -> Dict[str, T]:
    """Run each variant's boot in a thread of its own: each guest is one
    single-threaded TCG process, so two fill the machine's two cores.

    Every boot runs to its end. A ToolError, OSError or subprocess
    error inside one comes back here and is raised as one ToolError
    naming the variant (both, when both failed), which the tool prints
    as its one-line error."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(jobs))) as pool:
        futures = {v: pool.submit(job) for v, job in jobs.items()}
        concurrent.futures.wait(futures.values())
    errors = []
    for variant, future in futures.items():
        err = future.exception()
        if isinstance(err, (ToolError, OSError, subprocess.SubprocessError)):
            text = str(err)
            errors.append(text if text.startswith(f'{variant}: ') else f'{variant}: {text}')
        elif err is not None:
            raise err
    if errors:
        raise ToolError('; '.join(errors))
    return {v: future.result() for v, future in futures.items()}


def announce(run: GuestRun) -> None:
    print_reports(run.reports, run.variant, run.races)
    if run.boot_seconds is not None:
        say(f'{run.variant}: boot to the command took {run.boot_seconds:.1f} s '
            f'on {vcpus()} vCPUs')
    if not run.ok:
        say(f'{run.variant}: {run.problem()}; console log: {run.folder / "console.log"}')
