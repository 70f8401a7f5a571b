"""The guest's clients test: the machine's own tracing tools on uprobe events.

Runs inside a tools/vm guest (python3 -m kfork.guest_clients). Users do
not write uprobe_events by hand: this compiles tools/guest/clients/foo.c,
the seed cover letter's example, in four ways (perf and bpftrace run on
the non-PIE and PIE executables) and drives the kernel the ways they
do:

- perf (linux-perf): the cover letter's flow, `perf probe -x foo -a
  'foo=main+OFF glob=@ADDR:s32 str=@+OFF:string bit=@+OFF:b10@2/32
  argc=%di:s32 local=-0x8(%bp)'` with this build's addresses, `perf
  record -e probe_foo:foo ./foo`, `perf script`, `perf probe -l` and
  `-d`; and with the debug info, `perf probe -V main:LINE` and a probe
  on that line fetching argc and local by name;
- bpftrace: `uprobe:` and `uretprobe:` on main with arg0, arg1 and
  retval, attached through the perf uprobe PMU;
- kprobes: `perf probe -a` on vfs_read with a register argument and
  bpftrace's `kprobe:` (the perf kprobe PMU), on one read of dd;
- USDT: tools/guest/clients/usdt.c's probe with a semaphore, defined by
  `perf probe sdt_kfclients:tick` after `perf buildid-cache --add`
  (with its semaphore as the reference counter) and recorded, and
  traced by bpftrace's `usdt:`; the program counts the passes that
  found its semaphore raised;
- tools/uprobe, the project's own: the cover letter's probe by names
  (FUNC+OFF, @+VAR) in a non-PIE, a PIE, a static executable and a
  library.

Every value expected comes from foo.c, the ELF (nm, readelf, objdump)
and 6.1's print formats, never from a run. A client that is not
installed skips its cases with the reason. Prints TAP.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from .common import project_root
from .guest_uprobe import (FIELD_RE, Segment, Usdt, disassembly, parse_nm, parse_segments,
                           parse_trace, parse_usdt, sdt_fetcharg, segment_of, tracefs, write)
from .tap import Tap

SOURCE = project_root() / 'tools' / 'guest' / 'clients' / 'foo.c'
USDT_SOURCE = SOURCE.with_name('usdt.c')
# foo.c's values
GLOB = -1
STR = 'hello uprobe.'
FOO_FOO = 5             # struct foo's 20-bit field, after 2 unused bits
LOCAL = 0x1234
EXIT = 127
# perf probe names the group after the program, probe_PROG
GROUP, EVENT = 'probe_foo', 'foo'
# usdt.c's values
PROVIDER, NAME = 'kfclients', 'tick'
TICKS, TICK_BASE = 5, 100
TIMEOUT = 300           # seconds for one client command under TCG


@dataclass(frozen=True)
class Kind:
    """A way to build foo.c. In the library form foo.c's main is the
    library's kf_main (-Dmain=kf_main), which a stub program calls."""
    name: str
    cflags: Tuple[str, ...]
    pie: bool = False               # loaded away from its link addresses
    library: bool = False

    @property
    def func(self) -> str:
        return 'kf_main' if self.library else 'main'


KINDS = (
    Kind('non-PIE', ('-no-pie',)),
    Kind('PIE', ('-pie', '-fPIE'), pie=True),
    Kind('static', ('-static',)),
    Kind('library', ('-shared', '-fPIC', '-Dmain=kf_main'), pie=True, library=True),
)
NON_PIE, PIE = KINDS[0], KINDS[1]
STUB = ('int kf_main(int argc, char **argv);\n'
        'int main(int argc, char **argv) { return kf_main(argc, argv); }\n')


@dataclass(frozen=True)
class Program:
    """foo as built here: where everything is in its ELF."""
    kind: Kind
    path: Path                      # the ELF probed
    command: Path                   # what runs it: path, or the library's stub
    symbols: Dict[str, int]
    segments: List[Segment]
    main: List[Tuple[int, str]]     # foo.c's main's (address, instruction)

    @property
    def probe_point(self) -> int:
        """The cover letter's main+0x13: the instruction after the one
        that stores local, so -0x8(%bp) holds it."""
        for (_, insn), (after, _) in zip(self.main, self.main[1:]):
            if insn.replace(' ', '').endswith(f'${LOCAL:#x},-0x8(%rbp)'):
                return after
        raise ValueError(f'main stores no {LOCAL:#x} at -0x8(%rbp): {self.main}')

    @property
    def place(self) -> str:
        """The probe point as FUNC+OFF."""
        return f'{self.kind.func}+{self.probe_point - self.symbols[self.kind.func]:#x}'

    @property
    def bias(self) -> int:
        """Link address less file offset of the probed text: the base
        that @+OFFSET counts from (6.1: probe address - probe offset)."""
        return segment_of(self.segments, self.probe_point).bias

    def file_offset(self) -> int:
        return self.probe_point - self.bias

    def fetchargs(self, by_name: bool = False, glob_by_offset: bool = False
                  ) -> List[Tuple[str, str, str]]:
        """The cover letter's arguments: (name, fetch spec, the value as
        6.1 prints it). glob is read @ADDR as the cover letter does, but
        @+ when told or where it is not at its link address (a PIE, a
        library). BY_NAME: @+VAR, as tools/uprobe takes it."""
        def foffs(var: str) -> str:
            return f'@+{var}' if by_name else f'@+{self.symbols[var] - self.bias:#x}'

        glob = (foffs('glob') if self.kind.pie or by_name or glob_by_offset
                else f'@{self.symbols["glob"]:#x}')
        return [
            ('glob', f'{glob}:s32', str(GLOB)),
            ('str', f'{foffs("str")}:string', f'"{STR}"'),
            # bits 2 to 11 of the u32 holding the fields: foo's low ten
            # bits; a bitfield prints as its container, u32, in decimal
            ('bit', f'{foffs("foo")}:b10@2/32', str(FOO_FOO & 0x3ff)),
            ('argc', '%di:s32', '1'),
            # no type: x64, printed 0x%Lx
            ('local', '-0x8(%bp)', hex(LOCAL)),
        ]


def build(folder: Path, kind: Kind) -> Program:
    """foo.c compiled as the cover letter does (gcc -g) in KIND's way, in
    a folder of its own; the program is foo (perf's group probe_foo)."""
    where = folder / kind.name
    where.mkdir(parents=True, exist_ok=True)
    command = where / 'foo'
    path = where / 'libfoo.so' if kind.library else command
    subprocess.run(['gcc', '-g', '-O0', '-fno-omit-frame-pointer', *kind.cflags,
                    '-o', str(path), str(SOURCE)], check=True)
    if kind.library:
        stub = where / 'stub.c'
        stub.write_text(STUB)
        subprocess.run(['gcc', '-o', str(command), str(stub), f'-L{where}', '-lfoo',
                        f'-Wl,-rpath,{where}'], check=True)

    def tool(*argv: str) -> str:
        return subprocess.run(argv, check=True, capture_output=True, text=True).stdout

    funcs = disassembly(tool('objdump', '-d', '--no-show-raw-insn', str(path)))
    return Program(kind, path, command, parse_nm(tool('nm', str(path))),
                   parse_segments(tool('readelf', '-lW', str(path))), funcs[kind.func])


@dataclass(frozen=True)
class Ran:
    status: int
    out: str

    def why(self) -> str:
        return f'exit {self.status}\n{self.out}'


def run(argv: Sequence[str], cwd: Path) -> Ran:
    """A client command, its output and errors as one text (perf writes
    its notes to stderr). perf keeps its files under HOME, and pages
    nothing."""
    env = dict(os.environ, HOME=str(cwd), PAGER='cat', TERM='dumb')
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as err:
        return Ran(-1, f'timed out after {TIMEOUT} s: {err.output or ""}')
    return Ran(done.returncode, done.stdout)


# perf script: "COMM PID [CPU] TIME: GROUP:EVENT: (ADDR) NAME=VALUE ..."
_SCRIPT = re.compile(r'^\s*(\S+)\s+\d+\s+\[\d+\]\s+[\d.]+:\s+(\w+):(\w+):\s+'
                     r'\(([0-9a-f]+)\)\s*(.*)$')


@dataclass(frozen=True)
class Sample:
    comm: str
    event: str
    address: int
    fields: Dict[str, str]


def parse_script(text: str) -> List[Sample]:
    """perf script's lines of probe events."""
    out = []
    for m in map(_SCRIPT.match, text.splitlines()):
        if m:
            out.append(Sample(m.group(1), f'{m.group(2)}:{m.group(3)}', int(m.group(4), 16),
                              dict(FIELD_RE.findall(m.group(5)))))
    return out


def skip_all(tap: Tap, names: Sequence[str], why: str) -> None:
    for name in names:
        tap.skip(name, why)


def check_perf(tap: Tap, prog: Program) -> None:
    """The cover letter's flow: perf probe writes the definition, perf
    record takes one sample of foo's one call, perf script prints it."""
    names = [f'perf {prog.kind.name}: {step}' for step in
             ('perf probe -a', 'uprobe_events holds the definition', 'perf record',
              'perf script: one sample of foo', 'perf script: the probe address',
              'perf script: the fields', 'perf probe -l lists it', 'perf probe -d')]
    if shutil.which('perf') is None:
        skip_all(tap, names, 'perf is not installed (Debian package linux-perf)')
        return
    events = tracefs() / 'uprobe_events'
    at, args = prog.probe_point, prog.fetchargs()
    spec = ' '.join(f'{name}={fetch}' for name, fetch, _ in args)
    added = run(['perf', 'probe', '-x', str(prog.path), '-a', f'{EVENT}={prog.place} {spec}'],
                prog.path.parent)
    if not tap.check(added.status == 0, names[0], added.why()):
        skip_all(tap, names[1:], 'perf probe did not add the event')
        return
    want = f'p:{GROUP}/{EVENT} {prog.path}:0x{prog.file_offset():016x} {spec}'
    listing = events.read_text()
    tap.check(want in listing.splitlines(), names[1], f'want {want}\ngot {listing}')
    data = prog.path.parent / 'perf.data'
    recorded = run(['perf', 'record', '-o', str(data), '-e', f'{GROUP}:{EVENT}',
                    str(prog.path)], prog.path.parent)
    tap.check(data.is_file() and 'perf record: Captured' in recorded.out, names[2],
              recorded.why())
    script = run(['perf', '--no-pager', 'script', '-i', str(data)], prog.path.parent)
    samples = [s for s in parse_script(script.out) if s.event == f'{GROUP}:{EVENT}']
    if tap.check(len(samples) == 1 and samples[0].comm == 'foo', names[3], script.why()):
        sample = samples[0]
        # a non-PIE runs at its link address; a PIE is loaded a whole
        # number of pages away from it
        placed = (sample.address == at if not prog.kind.pie else
                  sample.address != at and (sample.address - at) % 4096 == 0)
        tap.check(placed, names[4], f'{prog.place} links at {at:#x}, '
                  f'the sample shows {sample.address:#x}')
        want_fields = {name: value for name, _, value in args}
        tap.check(sample.fields == want_fields, names[5],
                  f'want {want_fields}\ngot  {sample.fields}')
    else:
        skip_all(tap, names[4:6], 'no sample')
    listed = run(['perf', '--no-pager', 'probe', '-l'], prog.path.parent)
    tap.check(listed.status == 0 and f'{GROUP}:{EVENT} ' in listed.out, names[6], listed.why())
    deleted = run(['perf', 'probe', '-d', f'{GROUP}:{EVENT}'], prog.path.parent)
    left = events.read_text()
    tap.check(deleted.status == 0 and f'{GROUP}/{EVENT} ' not in left, names[7],
              f'{deleted.why()}\nuprobe_events: {left}')


def source_line() -> int:
    """foo.c's `return 127;` counted from main's line, as perf probe's
    FUNC:LINE does: the probe point of the cover letter's main+0x13."""
    lines = SOURCE.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith('int main('))
    return next(i for i, line in enumerate(lines) if line.strip() == f'return {EXIT};') - first


def check_perf_dwarf(tap: Tap, prog: Program) -> None:
    """perf probe with the debug info: the variables at a source line
    (-V) and a probe on that line fetching them by name, which perf
    turns into frame-slot fetches with the DWARF types (argc: int, s32;
    local: long, s64, decimal)."""
    names = [f'perf dwarf {prog.kind.name}: {step}' for step in
             ('perf probe -V lists main\'s variables', 'perf probe -a by line and names',
              'the place is main+OFF\'s', 'perf record and script: argc and local')]
    if shutil.which('perf') is None:
        skip_all(tap, names, 'perf is not installed (Debian package linux-perf)')
        return
    cwd, where = prog.path.parent, f'main:{source_line()}'
    shown = run(['perf', '--no-pager', 'probe', '-x', str(prog.path), '-V', where], cwd)
    tap.check(shown.status == 0 and all(re.search(pattern, shown.out) for pattern in
                                        (r'\bint\s+argc\b', r'\blong int\s+local\b')),
              names[0], shown.why())
    added = run(['perf', 'probe', '-x', str(prog.path), '-a', f'foo_dw={where} argc local'], cwd)
    if not tap.check(added.status == 0, names[1], added.why()):
        skip_all(tap, names[2:], 'perf probe did not add the event')
        return
    listing = (tracefs() / 'uprobe_events').read_text()
    place = f'p:{GROUP}/foo_dw {prog.path}:0x{prog.file_offset():016x} '
    tap.check(any(line.startswith(place) for line in listing.splitlines()), names[2],
              f'want {place}...\ngot {listing}')
    data = cwd / 'dwarf.data'
    run(['perf', 'record', '-o', str(data), '-e', f'{GROUP}:foo_dw', str(prog.command)], cwd)
    script = run(['perf', '--no-pager', 'script', '-i', str(data)], cwd)
    got = [s.fields for s in parse_script(script.out) if s.event == f'{GROUP}:foo_dw']
    want = {'argc': '1', 'local': str(LOCAL)}
    tap.check(got == [want], names[3], f'want {[want]}, got {got}\n{script.why()}')
    run(['perf', 'probe', '-d', f'{GROUP}:foo_dw'], cwd)


def check_bpftrace(tap: Tap, prog: Program) -> None:
    """bpftrace's uprobe and uretprobe on main, through the perf uprobe
    PMU (nothing shows in uprobe_events): main's argc and argv[0] on
    entry, its return value on return."""
    names = [f'bpftrace {prog.kind.name}: {step}' for step in
             ('runs foo', 'uprobe: arg0 is argc, arg1 argv', 'uretprobe: retval',
              'no event is left behind')]
    if shutil.which('bpftrace') is None:
        skip_all(tap, names, 'bpftrace is not installed (Debian package bpftrace)')
        return
    events = tracefs() / 'uprobe_events'
    before = events.read_text()
    program = (f'uprobe:{prog.path}:main {{ printf("argc=%d argv0=%s\\n", arg0, '
               f'str(*(uint64 *)arg1)); }} '
               f'uretprobe:{prog.path}:main {{ printf("ret=%d\\n", retval); }}')
    traced = run(['bpftrace', '-e', program, '-c', str(prog.path)], prog.path.parent)
    lines = [line.strip() for line in traced.out.splitlines()]
    tap.check(traced.status == 0 and 'Attaching 2 probes...' in lines, names[0], traced.why())
    tap.check(f'argc=1 argv0={prog.path}' in lines, names[1], traced.why())
    tap.check(f'ret={EXIT}' in lines, names[2], traced.why())
    tap.check(events.read_text() == before, names[3], events.read_text())


UPROBE_TOOL = project_root() / 'tools' / 'uprobe'


def check_by_name(tap: Tap, prog: Program) -> None:
    """tools/uprobe defines the cover letter's probe by names, FUNC+OFF
    and @+VAR: the definition it prints is the one worked out from the
    ELF, and the event records foo's values when it runs."""
    names = [f'tools/uprobe {prog.kind.name}: {step}' for step in
             ('add by name', 'the place and @+ offsets are the ELF\'s', 'the event records',
              'del')]
    trace = tracefs()
    args = prog.fetchargs(by_name=True)
    by_name = ' '.join(f'{name}={fetch}' for name, fetch, _ in args)
    added = run([str(UPROBE_TOOL), 'add', f'p:kfu/foo {prog.path}:{prog.place} {by_name}'],
                prog.path.parent)
    if not tap.check(added.status == 0, names[0], added.why()):
        skip_all(tap, names[1:], 'tools/uprobe did not add the event')
        return
    resolved = ' '.join(f'{name}={fetch}' for name, fetch, _ in
                        prog.fetchargs(glob_by_offset=True))
    want = f'p:kfu/foo {prog.path}:{prog.file_offset():#x} {resolved}'
    tap.check(added.out.splitlines()[-1:] == [want], names[1], f'want {want}\n{added.why()}')
    write(trace / 'trace', '', append=False)
    write(trace / 'events' / 'kfu' / 'foo' / 'enable', '1', append=False)
    ran = run([str(prog.command)], prog.path.parent)
    write(trace / 'events' / 'kfu' / 'foo' / 'enable', '0', append=False)
    records = [r for r in parse_trace((trace / 'trace').read_text()) if r.event == 'foo']
    want_fields = {name: value for name, _, value in args}
    tap.check(ran.status == EXIT and [r.fields for r in records] == [want_fields], names[2],
              f'status {ran.status}, want {want_fields}\ngot {[r.fields for r in records]}')
    deleted = run([str(UPROBE_TOOL), 'del', 'kfu/foo'], prog.path.parent)
    tap.check(deleted.status == 0 and 'kfu/foo ' not in (trace / 'uprobe_events').read_text(),
              names[3], deleted.why())


@dataclass(frozen=True)
class UsdtProgram:
    """usdt.c as built here, and its note."""
    path: Path
    note: Usdt
    segments: List[Segment]

    def file_offset(self, vaddr: int) -> int:
        return vaddr - segment_of(self.segments, vaddr).bias

    def definition(self) -> str:
        """The uprobe_events line of perf's sdt_ event: the note's place,
        its semaphore as the reference counter, its argument."""
        return (f'p:sdt_{PROVIDER}/{NAME} {self.path}:0x{self.file_offset(self.note.location):016x}'
                f'({self.file_offset(self.note.semaphore):#x}) '
                f'arg1={sdt_fetcharg(self.note.argument)}')


def build_usdt(folder: Path) -> UsdtProgram:
    where = folder / 'usdt'
    where.mkdir(parents=True, exist_ok=True)
    path = where / 'usdt'
    subprocess.run(['gcc', '-g', '-O0', '-o', str(path), str(USDT_SOURCE)], check=True)

    def tool(*argv: str) -> str:
        return subprocess.run(argv, check=True, capture_output=True, text=True).stdout

    return UsdtProgram(path, parse_usdt(tool('readelf', '-nW', str(path)), PROVIDER, NAME),
                       parse_segments(tool('readelf', '-lW', str(path))))


def raised(passes: int) -> str:
    """What usdt.c prints when its semaphore was raised at PASSES passes."""
    return f'raised {passes} of {TICKS}'


def check_usdt_perf(tap: Tap, prog: UsdtProgram) -> None:
    """perf's USDT flow: buildid-cache --add reads the notes, perf probe
    sdt_PROVIDER:NAME defines the event with the semaphore, and perf
    record raises it in the program it runs."""
    names = [f'perf usdt: {step}' for step in
             ('perf buildid-cache --add', 'perf probe sdt_kfclients:tick',
              'uprobe_events holds the note\'s place, semaphore and argument',
              'the program sees its semaphore raised at every pass while recorded',
              'perf script: each pass\'s argument', 'perf probe -d',
              'the program sees it down once the event is gone')]
    if shutil.which('perf') is None:
        skip_all(tap, names, 'perf is not installed (Debian package linux-perf)')
        return
    events = tracefs() / 'uprobe_events'
    cwd, event = prog.path.parent, f'sdt_{PROVIDER}:{NAME}'
    cached = run(['perf', 'buildid-cache', '--add', str(prog.path)], cwd)
    tap.check(cached.status == 0, names[0], cached.why())
    added = run(['perf', 'probe', '-x', str(prog.path), event], cwd)
    if not tap.check(added.status == 0, names[1], added.why()):
        skip_all(tap, names[2:], 'perf probe did not add the event')
        return
    listing = events.read_text()
    tap.check(prog.definition() in listing.splitlines(), names[2],
              f'want {prog.definition()}\ngot {listing}')
    data = cwd / 'usdt.data'
    recorded = run(['perf', 'record', '-o', str(data), '-e', event, str(prog.path)], cwd)
    tap.check(raised(TICKS) in recorded.out.splitlines(), names[3], recorded.why())
    script = run(['perf', '--no-pager', 'script', '-i', str(data)], cwd)
    got = [s.fields.get('arg1') for s in parse_script(script.out) if s.event == event]
    want = [str(TICK_BASE + i) for i in range(TICKS)]
    tap.check(got == want, names[4], f'want {want}, got {got}\n{script.why()}')
    deleted = run(['perf', 'probe', '-d', event], cwd)
    tap.check(deleted.status == 0 and f'sdt_{PROVIDER}/{NAME} ' not in events.read_text(),
              names[5], deleted.why())
    alone = run([str(prog.path)], cwd)
    tap.check(alone.out.splitlines() == [raised(0)], names[6], alone.why())


def check_usdt_bpftrace(tap: Tap, prog: UsdtProgram) -> None:
    """bpftrace's usdt: probe: attached through the uprobe PMU with the
    semaphore as its reference counter."""
    names = ['bpftrace usdt: each pass\'s argument',
             'bpftrace usdt: the program sees its semaphore raised at every pass']
    if shutil.which('bpftrace') is None:
        skip_all(tap, names, 'bpftrace is not installed (Debian package bpftrace)')
        return
    traced = run(['bpftrace', '-e', f'usdt:{prog.path}:{PROVIDER}:{NAME} '
                  '{ printf("tick=%d\\n", arg0); }', '-c', str(prog.path)], prog.path.parent)
    lines = [line.strip() for line in traced.out.splitlines()]
    want = [f'tick={TICK_BASE + i}' for i in range(TICKS)]
    tap.check([line for line in lines if line.startswith('tick=')] == want, names[0],
              traced.why())
    tap.check(raised(TICKS) in lines, names[1], traced.why())


# dd reads its input once with its block size: vfs_read's count (the
# third argument, %dx) in a kprobe on it; a size no other read is likely
# to ask for.
DD_BLOCK = 1234


def dd_once(folder: Path) -> List[str]:
    """dd by its real path: bpftrace -c refuses a name that two paths
    (/bin and /usr/bin on a merged /usr) reach."""
    source = folder / 'dd.in'
    source.write_bytes(bytes(DD_BLOCK))
    return [os.path.realpath(shutil.which('dd') or '/bin/dd'), f'if={source}', 'of=/dev/null',
            f'bs={DD_BLOCK}', 'count=1']


def check_perf_kprobe(tap: Tap, folder: Path) -> None:
    """perf probe on a kernel function, with a raw register argument:
    kprobe events share the probe core with uprobe events."""
    names = ['perf kprobe: perf probe -a vfs_read', 'perf kprobe: dd\'s read is recorded',
             'perf kprobe: perf probe -d']
    if shutil.which('perf') is None:
        skip_all(tap, names, 'perf is not installed (Debian package linux-perf)')
        return
    added = run(['perf', 'probe', '-a', 'kf_read=vfs_read count=%dx:u64'], folder)
    if not tap.check(added.status == 0, names[0], added.why()):
        skip_all(tap, names[1:], 'perf probe did not add the event')
        return
    data = folder / 'kprobe.data'
    run(['perf', 'record', '-o', str(data), '-e', 'probe:kf_read', *dd_once(folder)], folder)
    script = run(['perf', '--no-pager', 'script', '-i', str(data)], folder)
    counts = [s.fields.get('count') for s in parse_script(script.out)
              if s.comm == 'dd' and s.event == 'probe:kf_read']
    tap.check(str(DD_BLOCK) in counts, names[1], f'dd\'s counts {counts}\n{script.why()}')
    deleted = run(['perf', 'probe', '-d', 'probe:kf_read'], folder)
    tap.check(deleted.status == 0 and 'kf_read' not in
              (tracefs() / 'kprobe_events').read_text(), names[2], deleted.why())


def check_bpftrace_kprobe(tap: Tap, folder: Path) -> None:
    """bpftrace's kprobe: through the perf kprobe PMU."""
    name = 'bpftrace kprobe: vfs_read\'s arg2 in dd'
    if shutil.which('bpftrace') is None:
        tap.skip(name, 'bpftrace is not installed (Debian package bpftrace)')
        return
    dd = ' '.join(dd_once(folder))
    traced = run(['bpftrace', '-e', 'kprobe:vfs_read /comm == "dd"/ '
                  '{ printf("count=%d\\n", arg2); }', '-c', dd], folder)
    lines = [line.strip() for line in traced.out.splitlines()]
    tap.check(f'count={DD_BLOCK}' in lines, name, traced.why())


def run_all(folder: Path) -> Tap:
    tap = Tap('clients')
    tracefs()
    for kind in KINDS:
        prog = build(folder, kind)
        if kind in (NON_PIE, PIE):
            check_perf(tap, prog)
            check_perf_dwarf(tap, prog)
            check_bpftrace(tap, prog)
        check_by_name(tap, prog)
    usdt = build_usdt(folder)
    check_usdt_perf(tap, usdt)
    check_usdt_bpftrace(tap, usdt)
    check_perf_kprobe(tap, folder)
    check_bpftrace_kprobe(tap, folder)
    return tap


def main(argv: Sequence[str] = ()) -> int:
    folder = Path(argv[0]) if argv else Path('/tmp/kfork-clients')
    folder.mkdir(parents=True, exist_ok=True)
    try:
        tap = run_all(folder)
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as err:
        tap = Tap('clients')
        tap.check(False, 'clients test setup', str(err))
    print('\n'.join(tap.lines()))
    return 0 if tap.ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
