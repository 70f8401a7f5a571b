"""The guest's uprobe test: real uprobe events on a program compiled here.

Runs inside a tools/vm guest (python3 -m kfork.guest_uprobe). It compiles
tools/guest/uprobe/target.c with the values below, in each form a program
takes (a non-PIE, a PIE and a static executable, and a shared library),
reads from the ELF where everything is (addresses, file offsets, the call
sites, the local's frame slot, the USDT note), starts the program, reads
where it was loaded, registers uprobe and uretprobe events through tracefs
with every fetch method of the seed series, lets the program run and
checks each recorded field against the value worked out here from the C
source and the x86-64 SysV ABI. Prints TAP, one case per check.
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import struct
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Callable, Dict, List, Optional, Sequence, Tuple

from . import perf_event
from .common import project_root
from .tap import Tap

SOURCE = project_root() / 'tools' / 'guest' / 'uprobe' / 'target.c'
SOURCE_M32 = SOURCE.with_name('target32.c')
GROUP = 'kfork'

# The program's values (gcc -D). Strings hold no spaces, so a trace line
# splits on them.
VALUES: Dict[str, int | str] = {
    'KF_INT': -123456789,
    'KF_STR': 'kfork-global',
    'KF_FLAG_LOW': 0x9, 'KF_FLAG_MID': 0x5a, 'KF_FLAG_HIGH': 0x1abcde,
    'KF_RO': 0x0123456789abcdef,
    'KF_ID': -1234567890123,
    'KF_NAME': 'kfork-record',
    'KF_REC_LOW': 0x6, 'KF_REC_MID': 0x33, 'KF_REC_HIGH': 0x0fedc,
    'KF_NEG16': -300, 'KF_NEG8': -7, 'KF_BYTE': 200,
    'KF_LOCAL_MUL': 1000,
    'KF_A': -50, 'KF_B': 7, 'KF_F': 6, 'KF_G': -100, 'KF_H': 3,
    'KF_CALLS': 3,
    # the USDT probe kfork:tick's argument at call i is KF_TICK + i
    'KF_TICK': -4242,
    # The file kf_cold's pointers map: KF_COLD at its start, KF_EDGE
    # across its first page boundary, KF_EDGE_BEFORE bytes before it.
    'KF_PAGE': 4096, 'KF_EDGE_BEFORE': 5,
}
KF_COLD = 'kfork-cold'
KF_EDGE = 'edge-crossing'


def cold_file_bytes() -> bytes:
    """Two pages: KF_COLD at 0, KF_EDGE ending in the second page."""
    page = num('KF_PAGE')
    data = bytearray(2 * page)
    data[:len(KF_COLD) + 1] = KF_COLD.encode() + b'\0'
    at = page - num('KF_EDGE_BEFORE')
    data[at:at + len(KF_EDGE) + 1] = KF_EDGE.encode() + b'\0'
    return bytes(data)


def num(name: str) -> int:
    value = VALUES[name]
    assert isinstance(value, int)
    return value


def kf_work_result(call: int) -> int:
    """kf_work's return value for call i: a - b + 1 (s[0] != 0)
    + 1 (bits == &rec->bits) + f + g + h."""
    return num('KF_A') + call - num('KF_B') + 2 + num('KF_F') + num('KF_G') + num('KF_H')


def gcc_defines() -> List[str]:
    """-D options; KF_SUM lets the program check the values itself."""
    total = sum(kf_work_result(i) for i in range(num('KF_CALLS')))
    values: Dict[str, int | str] = {**VALUES, 'KF_SUM': total}
    out = []
    for name, value in values.items():
        text = f'"{value}"' if isinstance(value, str) else f'({value}LL)'
        out.append(f'-D{name}={text}')
    return out


# Values as the probe types show them (Documentation/trace/uprobetracer.rst:
# 'u'/'s' decimal, 'x' hexadecimal, x64 when no type is given; strings and
# $comm quoted).

def unsigned(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def signed(value: int, bits: int) -> int:
    value = unsigned(value, bits)
    return value - (1 << bits) if value >> (bits - 1) else value


def shown(value: int, type_: str) -> str:
    bits = int(type_[1:])
    if type_[0] == 's':
        return str(signed(value, bits))
    if type_[0] == 'u':
        return str(unsigned(value, bits))
    return hex(unsigned(value, bits))


def bitfield(container: int, width: int, offset: int) -> str:
    """b<width>@<offset>/32: the field's bits of the container, unsigned."""
    return str((unsigned(container, 32) >> offset) & ((1 << width) - 1))


def pack_bits(low: int, mid: int, high: int) -> int:
    """struct kf_bits as one u32: low in bits 0-3, mid 4-10, high 11-31."""
    return low | mid << 4 | high << 11


# --- what the ELF says ------------------------------------------------------

@dataclass(frozen=True)
class Segment:
    offset: int
    vaddr: int
    filesz: int
    flags: str

    @property
    def bias(self) -> int:
        return self.vaddr - self.offset


@dataclass(frozen=True)
class Usdt:
    """A stapsdt note: the probe's address, its semaphore's, and its
    argument as sys/sdt.h writes it (SIZE@OPERAND, SIZE negative when
    signed)."""
    location: int
    semaphore: int
    argument: str


@dataclass(frozen=True)
class Elf:
    symbols: Dict[str, int]
    segments: List[Segment]
    work_call_site: int    # return address of main's call to kf_work
    sink_call_site: int    # return address of kf_work's call to kf_sink
    local_fbreg: int       # kf_local at frame base (CFA) + this
    usdt: Usdt             # kfork:tick
    # Where the running program has it: its address = link address +
    # load (0 for an executable linked at a fixed address).
    load: int = 0

    def at(self, vaddr: int) -> int:
        return vaddr + self.load

    def segment_of(self, vaddr: int) -> Segment:
        return segment_of(self.segments, vaddr)

    def file_offset(self, vaddr: int) -> int:
        return vaddr - self.segment_of(vaddr).bias


def segment_of(segments: Sequence[Segment], vaddr: int) -> Segment:
    """The LOAD segment whose file bytes hold VADDR."""
    for seg in segments:
        if seg.vaddr <= vaddr < seg.vaddr + seg.filesz:
            return seg
    raise ValueError(f'{vaddr:#x} is in no file-backed segment')


_NM = re.compile(r'^([0-9a-f]+)\s+\w\s+(\S+)$')
_LOAD = re.compile(r'^\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+'
                   r'(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(.*?)\s+0x[0-9a-f]+\s*$')
_INSN = re.compile(r'^\s*([0-9a-f]+):\s+(.*?)\s*$')
_STAPSDT = re.compile(r'Provider: (\S+)\s+Name: (\S+)\s+Location: (0x[0-9a-f]+), '
                      r'Base: 0x[0-9a-f]+, Semaphore: (0x[0-9a-f]+)\s+Arguments: (\S+)')
_FUNC = re.compile(r'^[0-9a-f]+ <(\S+)>:$')


def parse_nm(text: str) -> Dict[str, int]:
    out = {}
    for line in text.splitlines():
        m = _NM.match(line.strip())
        if m:
            out[m.group(2)] = int(m.group(1), 16)
    return out


def parse_segments(text: str) -> List[Segment]:
    """readelf -lW: the LOAD program headers."""
    return [Segment(int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16),
                    m.group(4).replace(' ', ''))
            for m in map(_LOAD.match, text.splitlines()) if m]


def disassembly(text: str) -> Dict[str, List[Tuple[int, str]]]:
    """objdump -d --no-show-raw-insn: each function's (address, insn)."""
    funcs: Dict[str, List[Tuple[int, str]]] = {}
    current: Optional[List[Tuple[int, str]]] = None
    for line in text.splitlines():
        head = _FUNC.match(line.strip())
        if head:
            current = funcs.setdefault(head.group(1), [])
            continue
        insn = _INSN.match(line)
        if insn and current is not None:
            current.append((int(insn.group(1), 16), insn.group(2)))
    return funcs


def parse_usdt(text: str, provider: str, name: str) -> Usdt:
    """readelf -n: the stapsdt note of PROVIDER:NAME (a static binary
    also has libc's)."""
    for m in _STAPSDT.finditer(text):
        if (m.group(1), m.group(2)) == (provider, name):
            return Usdt(int(m.group(3), 16), int(m.group(4), 16), m.group(5))
    raise ValueError(f'no USDT note for {provider}:{name}')


# sys/sdt.h names registers as the assembler does; uprobe events take
# pt_regs' names.
_SDT_REGS = {f'{p}{r}': r for r in ('ax', 'bx', 'cx', 'dx', 'si', 'di', 'bp', 'sp')
             for p in ('r', 'e', '')}
_SDT_REGS.update({f'r{n}{s}': f'r{n}' for n in range(8, 16) for s in ('', 'd', 'w', 'b')})
_SDT_ARG = re.compile(r'^(-?)(1|2|4|8)@(?:(-?\d+)?\(%(\w+)\)|%(\w+)|\$(-?\d+))$')


def sdt_fetcharg(argument: str) -> str:
    """A USDT argument as a uprobe fetch argument: '-8@%rax' is
    '%ax:s64', '-4@-20(%rbp)' is '-20(%bp):s32', '4@$5' is '\\5:u32'."""
    m = _SDT_ARG.match(argument)
    if not m:
        raise ValueError(f'USDT argument {argument!r} is not SIZE@OPERAND')
    sign, size, offset, base, reg, imm = m.groups()
    type_ = f'{"s" if sign else "u"}{int(size) * 8}'
    if imm is not None:
        return f'\\{imm}:{type_}'
    if reg is not None:
        return f'%{_SDT_REGS[reg]}:{type_}'
    offset = int(offset or 0)
    return f'{"+" if offset >= 0 else "-"}{abs(offset)}(%{_SDT_REGS[base]}):{type_}'


def return_site(funcs: Dict[str, List[Tuple[int, str]]], caller: str, callee: str) -> int:
    """The address after the one call of callee in caller (through the
    PLT in a shared library)."""
    insns = funcs[caller]
    calls = [i for i, (_, text) in enumerate(insns)
             if text.startswith('call') and (f'<{callee}>' in text or f'<{callee}@plt>' in text)]
    if len(calls) != 1 or calls[0] + 1 >= len(insns):
        raise ValueError(f'{caller} does not call {callee} exactly once')
    return insns[calls[0] + 1][0]


def has_frame_prologue(funcs: Dict[str, List[Tuple[int, str]]], name: str) -> bool:
    """push %rbp; mov %rsp,%rbp: then %rbp = CFA - 16 in the body."""
    texts = [re.sub(r'\s+', ' ', t) for _, t in funcs[name][:3]]
    return 'push %rbp' in texts[:2] and 'mov %rsp,%rbp' in texts[:3]


def parse_local_fbreg(text: str, function: str, variable: str) -> int:
    """readelf --debug-dump=info: the DW_OP_fbreg offset of a local,
    after checking its function's frame base is the CFA."""
    dies: List[Tuple[str, List[str]]] = []
    for line in text.splitlines():
        m = re.search(r'Abbrev Number: \d+ \((DW_TAG_\w+)\)', line)
        if m:
            dies.append((m.group(1), []))
        elif dies:
            dies[-1][1].append(line)
    in_function = False
    for tag, attrs in dies:
        name = next((a.rsplit(':', 1)[1].strip() for a in attrs if 'DW_AT_name' in a), None)
        if tag == 'DW_TAG_subprogram':
            in_function = name == function
            if in_function and not any('DW_OP_call_frame_cfa' in a for a in attrs):
                raise ValueError(f'{function} has no CFA frame base')
        elif in_function and tag == 'DW_TAG_variable' and name == variable:
            for attr in attrs:
                fb = re.search(r'DW_OP_fbreg: (-?\d+)', attr)
                if fb:
                    return int(fb.group(1))
    raise ValueError(f'no frame slot for {variable} in {function}')


def tool(*argv: str) -> str:
    """What a binutils command prints."""
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def read_elf(path: Path, caller: str) -> Elf:
    """CALLER is the function that calls kf_work: main, or kf_main in
    the library."""
    funcs = disassembly(tool('objdump', '-d', '--no-show-raw-insn', str(path)))
    if not has_frame_prologue(funcs, 'kf_work'):
        raise ValueError('kf_work has no frame-pointer prologue')
    return Elf(parse_nm(tool('nm', str(path))),
               parse_segments(tool('readelf', '-lW', str(path))),
               return_site(funcs, caller, 'kf_work'),
               return_site(funcs, 'kf_work', 'kf_sink'),
               parse_local_fbreg(tool('readelf', '--debug-dump=info', str(path)),
                                 'kf_work', 'kf_local'),
               parse_usdt(tool('readelf', '-nW', str(path)), 'kfork', 'tick'))


def parse_load(maps: str, path: Path, elf: Elf) -> int:
    """/proc/PID/maps: PATH's mapping of file offset 0 holds the first
    LOAD segment (offset 0), so load = its start - that segment's vaddr."""
    first = min(seg.vaddr for seg in elf.segments if seg.offset == 0)
    for line in maps.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[5] == str(path) and int(parts[2], 16) == 0:
            return int(parts[0].split('-')[0], 16) - first
    raise ValueError(f'{path} is not mapped at offset 0:\n{maps}')


# --- the probes -------------------------------------------------------------

Expect = Callable[[int], str]    # the shown value for call i


@dataclass(frozen=True)
class Arg:
    name: str          # as the trace shows it
    spec: str          # as written to uprobe_events
    expect: Expect
    what: str
    # For a value known only by its properties: passes when it holds.
    holds: Optional[Callable[[str], bool]] = None
    # kunit/project-behaviour's guest.uprobe.MARKED, where the value
    # expected is the fork's
    marked: str = ''


@dataclass(frozen=True)
class Probe:
    event: str
    kind: str          # 'p' or 'r'
    vaddr: int
    args: List[Arg]
    semaphore: Optional[int] = None    # a USDT semaphore's link address
    # kunit/project-behaviour's guest.uprobe.MARKED, for a probe only
    # the fork takes
    marked: str = ''

    def place(self, path: Path, elf: Elf) -> str:
        """PATH:OFFSET[(REF_CTR_OFFSET)] as uprobe_events lists it."""
        refctr = (f'({elf.file_offset(self.semaphore):#x})'
                  if self.semaphore is not None else '')
        return f'{path}:0x{elf.file_offset(self.vaddr):016x}{refctr}'

    def definition(self, path: Path, elf: Elf) -> str:
        return (f'{self.kind}:{GROUP}/{self.event} {self.place(path, elf)} '
                + ' '.join(a.spec for a in self.args))


def const(text: str) -> Expect:
    return lambda call: text


def user_stack_at_entry(value: str) -> bool:
    """%rsp at a function's first instruction: the caller's %rsp was
    16-byte aligned at the call (SysV ABI), and the call pushed 8 bytes.
    x86-64 puts the stack just below 0x7ffffffff000, randomized by at
    most 16 GiB."""
    try:
        sp = int(value, 16)
    except ValueError:
        return False
    return sp % 16 == 8 and 0x7ffffffff000 - (1 << 34) - (1 << 24) < sp < 0x7ffffffff000


def probes(elf: Elf) -> List[Probe]:
    """Every seed fetch method, with what it must record."""
    sym = elf.symbols
    rec_bits = pack_bits(num('KF_REC_LOW'), num('KF_REC_MID'), num('KF_REC_HIGH'))
    flag_bits = pack_bits(num('KF_FLAG_LOW'), num('KF_FLAG_MID'), num('KF_FLAG_HIGH'))
    ro_foffs = elf.file_offset(sym['kf_ro'])
    # At kf_work's entry the call has pushed its return address: $stack0 is
    # main's call site, $stack1 and $stack2 the 7th and 8th arguments
    # (SysV ABI: integer arguments past the 6th go on the stack, in order).
    entry = [
        Arg('a', 'a=%di:s64', lambda i: str(num('KF_A') + i), '%REG, s64 (1st argument)'),
        Arg('b', 'b=%si:u32', const(str(num('KF_B'))), '%REG, u32 (2nd argument)'),
        Arg('s', 's=+0(%dx):string', const(f'"{VALUES["KF_STR"]}"'),
            '+0(%REG) string through a pointer argument'),
        Arg('id', 'id=+0(%cx):s64', const(shown(num('KF_ID'), 's64')), 'dereference, s64'),
        Arg('name', 'name=+0(+8(%cx)):string', const(f'"{VALUES["KF_NAME"]}"'),
            'nested dereference, string'),
        Arg('low', 'low=+16(%cx):b4@0/32', const(bitfield(rec_bits, 4, 0)), 'bitfield b4@0/32'),
        Arg('mid', 'mid=+16(%cx):b7@4/32', const(bitfield(rec_bits, 7, 4)), 'bitfield b7@4/32'),
        Arg('high', 'high=+16(%cx):b21@11/32', const(bitfield(rec_bits, 21, 11)),
            'bitfield b21@11/32'),
        Arg('n16', 'n16=+20(%cx):s16', const(shown(num('KF_NEG16'), 's16')), 's16'),
        Arg('u16', 'u16=+20(%cx):u16', const(shown(num('KF_NEG16'), 'u16')), 'u16'),
        Arg('x16', 'x16=+20(%cx):x16', const(shown(num('KF_NEG16'), 'x16')), 'x16'),
        Arg('n8', 'n8=+22(%cx):s8', const(shown(num('KF_NEG8'), 's8')), 's8'),
        Arg('x8', 'x8=+22(%cx):x8', const(shown(num('KF_NEG8'), 'x8')), 'x8'),
        Arg('u8', 'u8=+23(%cx):u8', const(shown(num('KF_BYTE'), 'u8')), 'u8'),
        Arg('back', 'back=-16(%r8):s64', const(shown(num('KF_ID'), 's64')),
            'negative offset dereference'),
        # Arrays (uprobetracer.rst: TYPE[N], shown as {a,b,...}): id's
        # two halves and its first bytes, little-endian; name as an
        # array of one string pointer.
        Arg('halves', 'halves=+0(%cx):s32[2]',
            const('{%s,%s}' % (shown(num('KF_ID'), 's32'), shown(num('KF_ID') >> 32, 's32'))),
            'array of s32'),
        Arg('low3', 'low3=+0(%cx):x8[3]',
            const('{%s}' % ','.join(shown(num('KF_ID') >> (8 * i), 'x8') for i in range(3))),
            'array of x8'),
        Arg('names', 'names=+8(%cx):string[1]', const(f'{{"{VALUES["KF_NAME"]}"}}'),
            'array of one string'),
        Arg('gint', f'gint=@{elf.at(sym["kf_int"]):#x}:s32',
            const(shown(num('KF_INT'), 's32')), '@ADDR, s32'),
        Arg('gu32', f'gu32=@{elf.at(sym["kf_int"]):#x}:u32',
            const(shown(num('KF_INT'), 'u32')), '@ADDR, u32'),
        Arg('gx32', f'gx32=@{elf.at(sym["kf_int"]):#x}:x32',
            const(shown(num('KF_INT'), 'x32')), '@ADDR, x32'),
        Arg('gstr', f'gstr=@{elf.at(sym["kf_str"]):#x}:string',
            const(f'"{VALUES["KF_STR"]}"'), '@ADDR string'),
        Arg('gmid', f'gmid=@{elf.at(sym["kf_flags"]):#x}:b7@4/32',
            const(bitfield(flag_bits, 7, 4)), '@ADDR bitfield'),
        Arg('ro', f'ro=@+{ro_foffs:#x}:u64', const(shown(num('KF_RO'), 'u64')),
            '@+FILE_OFFSET, u64'),
        Arg('rox', f'rox=@+{ro_foffs:#x}:x64', const(shown(num('KF_RO'), 'x64')),
            '@+FILE_OFFSET, x64'),
        Arg('ret', 'ret=$stack0', const(hex(elf.at(elf.work_call_site))),
            '$stack0 (return address), default type x64'),
        Arg('g', 'g=$stack1:s64', const(str(num('KF_G'))), '$stack1 (7th argument)'),
        Arg('h', 'h=$stack2:u16', const(str(num('KF_H'))), '$stack2 (8th argument)'),
        Arg('top0', 'top0=+0($stack):x64', const(hex(elf.at(elf.work_call_site))),
            'dereference of $stack'),
        Arg('comm', 'comm=$comm', const('"kf_target"'), '$comm'),
        Arg('imm', 'imm=\\1234:u32', const('1234'), '\\IMM'),
        # The parser keeps the text in kernel memory; 6.1's uprobe fetch
        # reads it as a user address, which faults (project behaviour).
        Arg('istr', 'istr=\\"kfork"', const('"kfork"'), '\\"STR" immediate string',
            marked='immediate_string'),
        Arg('top', 'top=$stack', const('8 mod 16, in the user stack'),
            '$stack: the stack pointer', holds=user_stack_at_entry),
    ]
    # An argument without NAME= is called argN, N its position from 1.
    entry.append(Arg(f'arg{len(entry) + 1}', '%si:x8', const(shown(num('KF_B'), 'x8')),
                     'unnamed argument is argN'))
    # After the call to kf_sink, %rbp is kf_work's frame pointer, 16 below
    # the CFA (push %rbp after the return address), so the local sits at
    # %rbp + 16 + fbreg.
    local_offset = 16 + elf.local_fbreg
    sign = '+' if local_offset >= 0 else '-'
    local = [Arg('lv', f'lv={sign}{abs(local_offset)}(%bp):s32',
                 lambda i: str(signed((num('KF_A') + i) * num('KF_LOCAL_MUL'), 32)),
                 'local variable in the frame (DWARF fbreg)')]
    ret = [
        Arg('arg1', '$retval', lambda i: shown(kf_work_result(i), 'x64'),
            '$retval unnamed, default x64'),
        Arg('rv', 'rv=$retval:s64', lambda i: str(kf_work_result(i)), '$retval s64'),
        Arg('rx', 'rx=$retval:x32', lambda i: shown(kf_work_result(i), 'x32'), '$retval x32'),
    ]
    # kf_cold's strings lie in pages of a file mapping the program never
    # touches: the first hit's reads must bring them in (a fetch that
    # cannot sleep misses them), later hits find them mapped.
    cold = [
        Arg('cold', 'cold=+0(%di):string', const(f'"{KF_COLD}"'),
            'string in a page not yet mapped'),
        Arg('edge', 'edge=+0(%si):string', const(f'"{KF_EDGE}"'),
            'string across a page boundary, not yet mapped'),
        # the first 8 bytes of KF_COLD as a pointer: not canonical, so the
        # read in the chain faults
        Arg('bad', 'bad=+0(+0(%di)):string', const('(fault)'),
            'fault inside a chain on a mapped file'),
    ]
    # The USDT probe's argument, and its semaphore counted up while the
    # event is enabled (checked by trace_form).
    usdt = [Arg('tick', f'tick={sdt_fetcharg(elf.usdt.argument)}',
                lambda i: str(num('KF_TICK') + i), f'USDT argument {elf.usdt.argument}')]
    return [Probe('kf_entry', 'p', sym['kf_work'], entry),
            Probe('kf_local', 'p', elf.sink_call_site, local),
            Probe('kf_exit', 'r', sym['kf_work'], ret),
            Probe('kf_cold', 'p', sym['kf_cold'], cold),
            Probe('kf_usdt', 'p', elf.usdt.location, usdt, elf.usdt.semaphore)]


def fork_probes(elf: Elf) -> List[Probe]:
    """The fork's $argN on uprobes (kunit/project-behaviour's uprobe
    cases): at kf_work's first instruction the x86-64 SysV ABI has the
    integer arguments in rdi, rsi, rdx, rcx, r8, r9, then on the stack
    above the return address, so $arg7 is $stack1 and $arg8 $stack2."""
    rec_bits = pack_bits(num('KF_REC_LOW'), num('KF_REC_MID'), num('KF_REC_HIGH'))
    args = [
        Arg('a1', 'a1=$arg1:s64', lambda i: str(num('KF_A') + i), '$arg1 (rdi), s64'),
        Arg('a2', 'a2=$arg2:u32', const(str(num('KF_B'))), '$arg2 (rsi), u32'),
        Arg('a3', 'a3=+0($arg3):string', const(f'"{VALUES["KF_STR"]}"'),
            'string through $arg3 (rdx)'),
        Arg('a4', 'a4=+0($arg4):s64', const(shown(num('KF_ID'), 's64')),
            'dereference of $arg4 (rcx)'),
        Arg('a4n', 'a4n=+0(+8($arg4)):string', const(f'"{VALUES["KF_NAME"]}"'),
            'nested dereference of $arg4, string'),
        Arg('a5', 'a5=+0($arg5):b7@4/32', const(bitfield(rec_bits, 7, 4)),
            'bitfield through $arg5 (r8)'),
        Arg('a6', 'a6=$arg6:s64', const(str(num('KF_F'))), '$arg6 (r9)'),
        Arg('a7', 'a7=$arg7:s64', const(str(num('KF_G'))), '$arg7, the first on the stack'),
        Arg('a8', 'a8=$arg8:u16', const(str(num('KF_H'))), '$arg8, the second on the stack'),
        Arg('ax', 'ax=$arg1', lambda i: shown(num('KF_A') + i, 'x64'), '$arg1, default x64'),
    ]
    return [Probe('kf_args', 'p', elf.symbols['kf_work'], args, marked='args')]


# --- the trace --------------------------------------------------------------

_LINE = re.compile(r':\s+(\w+):\s+\((0x[0-9a-f]+)(?: <- (0x[0-9a-f]+))?\)\s*(.*)$')
FIELD_RE = re.compile(r'(\w+)=("[^"]*"|\S+)')


@dataclass(frozen=True)
class Record:
    event: str
    where: Tuple[int, Optional[int]]
    fields: Dict[str, str]


def parse_trace(text: str) -> List[Record]:
    """Event lines of the trace file: 'EVENT: (0xIP) f=v ...', or for a
    return probe '(0xRET <- 0xFUNC)' (uprobetracer.rst's example)."""
    out = []
    for line in text.splitlines():
        if line.startswith('#'):
            continue
        m = _LINE.search(line)
        if m:
            second = int(m.group(3), 16) if m.group(3) else None
            out.append(Record(m.group(1), (int(m.group(2), 16), second),
                              dict(FIELD_RE.findall(m.group(4)))))
    return out


def parse_profile(text: str) -> Dict[str, int]:
    """uprobe_profile: filename, event name, hits."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-1].isdigit():
            out[parts[-2]] = int(parts[-1])
    return out


def caret_column(log: str) -> Optional[Tuple[str, int]]:
    """The last error_log entry's command and the caret's offset in it."""
    lines = log.splitlines()
    for i in range(len(lines) - 1, 0, -1):
        if lines[i].strip() == '^' and lines[i - 1].startswith('  Command: '):
            prefix = len('  Command: ')
            return lines[i - 1][prefix:], lines[i].index('^') - prefix
    return None


def write_once(path: Path, text: str) -> Optional[str]:
    """write(2) once, through the C library: os.write retries a write
    that fails with EINTR (PEP 475), and a tracefs enable returns EINTR
    for good while perf holds the event. The kernel's error, if any."""
    libc = ctypes.CDLL(None, use_errno=True)
    data = (text + '\n').encode()
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        if libc.write(fd, data, len(data)) >= 0:
            return None
        return os.strerror(ctypes.get_errno())
    finally:
        os.close(fd)


# --- running it -------------------------------------------------------------

def tracefs() -> Path:
    path = Path('/sys/kernel/tracing')
    if not (path / 'uprobe_events').exists():
        subprocess.run(['mount', '-t', 'tracefs', 'nodev', str(path)], check=True)
    return path


def write(path: Path, text: str, append: bool = True) -> Optional[str]:
    """One write(2), as `echo TEXT >> path` (or `>`) does: tracefs files
    take one command per write and cannot seek, so no buffered file
    object. The kernel's error, if it refuses."""
    flags = os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC)
    try:
        fd = os.open(path, flags)
        try:
            os.write(fd, (text + '\n').encode())
        finally:
            os.close(fd)
        return None
    except OSError as err:
        return os.strerror(err.errno) if err.errno else str(err)


@dataclass(frozen=True)
class Form:
    """A way to build target.c. The program is always kf_target ($comm);
    in a library form the probes go into the library, which the stub
    main of STUB calls."""
    name: str
    cflags: Tuple[str, ...]
    library: bool = False

    @property
    def caller(self) -> str:
        return 'kf_main' if self.library else 'main'


FORMS = (
    Form('non-PIE', ('-no-pie',)),
    Form('PIE', ('-pie', '-fPIE')),
    Form('library', ('-shared', '-fPIC', '-Dmain=kf_main'), library=True),
    Form('static', ('-static',)),
)
STUB = 'int kf_main(int argc, char **argv);\nint main(int argc, char **argv) { return kf_main(argc, argv); }\n'


def compile_target(folder: Path, form: Form) -> Tuple[Path, Path]:
    """The program to run and the file to probe (the same but in the
    library form)."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / 'kf_target'
    probed = folder / 'libkf_target.so' if form.library else binary
    subprocess.run(['gcc', '-O0', '-g', '-fno-omit-frame-pointer', *form.cflags,
                    *gcc_defines(), '-o', str(probed), str(SOURCE)], check=True)
    if form.library:
        stub = folder / 'stub.c'
        stub.write_text(STUB)
        subprocess.run(['gcc', '-o', str(binary), str(stub), f'-L{folder}', '-lkf_target',
                        f'-Wl,-rpath,{folder}'], check=True)
    return binary, probed


def check_records(tap: Tap, form: Form, probe: Probe, records: List[Record], elf: Elf) -> None:
    calls = num('KF_CALLS')
    name = f'{form.name}: {probe.event}'
    mine = [r for r in records if r.event == probe.event]
    if not tap.check(len(mine) == calls, f'{name}: {calls} records', f'got {len(mine)}'):
        return
    where = ((elf.at(elf.work_call_site), elf.at(probe.vaddr)) if probe.kind == 'r'
             else (elf.at(probe.vaddr), None))
    got_where = {r.where for r in mine}
    tap.check(got_where == {where}, f'{name}: probe address in the record',
              f'want {where}, got {got_where}')
    for arg in probe.args:
        want = [arg.expect(i) for i in range(calls)]
        got = [r.fields.get(arg.name, '(missing)') for r in mine]
        ok = all(map(arg.holds, got)) if arg.holds else got == want
        what, detail = f'{name}: {arg.spec} ({arg.what})', f'want {want}\ngot  {got}'
        if arg.marked:
            tap.marked(arg.marked, ok, what, detail)
        else:
            tap.check(ok, what, detail)


def check_error_log(tap: Tap, trace: Path, events: Path, path: Path, elf: Elf,
                    before: str) -> None:
    """A bad type: refused, logged with the caret on the type, nothing
    else changed."""
    bad_type = 'u33'
    command = f'p:{GROUP}/kf_bad {path}:{elf.file_offset(elf.symbols["kf_work"]):#x} %di:{bad_type}'
    write(trace / 'error_log', '', append=False)
    err = write(events, command)
    tap.check(err is not None, 'bad definition is refused', 'the write succeeded')
    log = (trace / 'error_log').read_text()
    tap.check('trace_uprobe: error: Unknown type' in log, 'error_log names the cause', log)
    caret = caret_column(log)
    tap.check(caret == (command, command.index(bad_type)),
              'error_log caret under the bad type', f'want column {command.index(bad_type)}, '
              f'got {caret}')
    tap.check(events.read_text() == before, 'previous definitions untouched',
              f'before:\n{before}\nafter:\n{events.read_text()}')
    tap.check(not (trace / 'events' / GROUP / 'kf_bad').exists(), 'no kf_bad event')


def write_logged(trace: Path, events: Path, command: str) -> Tuple[Optional[str], str]:
    """Write COMMAND to uprobe_events with error_log emptied first: the
    kernel's error, if any, and what error_log holds after it."""
    write(trace / 'error_log', '', append=False)
    err = write(events, command)
    return err, (trace / 'error_log').read_text()


def define(trace: Path, events: Path, command: str) -> Optional[str]:
    """Write COMMAND to uprobe_events: None, or the error and what
    error_log says of it."""
    err, log = write_logged(trace, events, command)
    return None if err is None else f'{command}: {err}\n{log}'


def check_args_refused(tap: Tap, trace: Path, events: Path, command: str, arg: str,
                       why: str, what: str, marked: str = '') -> None:
    """COMMAND is refused, error_log gives WHY with the caret under ARG;
    MARKED, the refusal's entry in kunit/project-behaviour if it is the
    fork's."""
    err, log = write_logged(trace, events, command)
    refused = err is not None and f'trace_uprobe: error: {why}' in log
    if marked:
        tap.marked(marked, refused, what, log)
    else:
        tap.check(refused, what, log)
    tap.check(caret_column(log) == (command, command.index(arg)),
              f'{what}: caret under {arg}', f'want column {command.index(arg)}, '
              f'got {caret_column(log)}')


def check_fork_args(tap: Tap, trace: Path, events: Path, path: Path, elf: Elf) -> None:
    """$argN where the fork refuses it: at a return probe, saying why."""
    place = f'{path}:{elf.file_offset(elf.symbols["kf_work"]):#x}'
    check_args_refused(tap, trace, events, f'r:{GROUP}/kf_argret {place} x=$arg1', '$arg1',
                       '$argN is not available on return probe', '$argN refused on uretprobe',
                       marked='args_at_return')


# target32.c's values: kf_m32(KF_M32_A + i, KF_M32_B, KF_M32_STR, KF_M32_C).
M32_VALUES: Dict[str, int | str] = {
    'KF_M32_A': -50, 'KF_M32_B': 60000, 'KF_M32_STR': 'kfork-m32', 'KF_M32_C': -2,
}
M32_ARGS = ('a=$arg1:s32 b=$arg2:u16 s=+0($arg3):string cl=$arg4:u32 ch=$arg5:s32 '
            'ax=$arg1')


def m32_expected(call: int) -> Dict[str, str]:
    """kf_m32's fields at call i, by cdecl: a, b (a short, in a slot of
    its own), s, then c's two slots, low word first; x64 shows the slot
    as the 32-bit word it is, zero-extended."""
    a = int(M32_VALUES['KF_M32_A']) + call
    c = int(M32_VALUES['KF_M32_C'])
    return {'a': shown(a, 's32'), 'b': shown(int(M32_VALUES['KF_M32_B']), 'u16'),
            's': f'"{M32_VALUES["KF_M32_STR"]}"', 'cl': shown(c, 'u32'),
            'ch': shown(c >> 32, 's32'), 'ax': hex(unsigned(a, 32))}


def compile_m32(folder: Path) -> Optional[Path]:
    """target32.c as an i386 program, or None where gcc -m32 cannot
    build one (no gcc-multilib on the host)."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / 'kf_m32'
    values: Dict[str, int | str] = {**M32_VALUES, 'KF_CALLS': num('KF_CALLS')}
    defines = [f'-D{k}="{v}"' if isinstance(v, str) else f'-D{k}=({v}LL)'
               for k, v in values.items()]
    done = subprocess.run(['gcc', '-m32', '-O0', '-no-pie', *defines, '-o', str(binary),
                           str(SOURCE_M32)], capture_output=True, text=True)
    return binary if done.returncode == 0 else None


def check_compat_args(tap: Tap, trace: Path, events: Path, folder: Path) -> None:
    """$argN in a 32-bit task: the i386 cdecl convention, every argument
    on the stack (the fork's; 6.1 refuses $argN on uprobes)."""
    name = 'i386 task: $argN by the cdecl convention'
    binary = compile_m32(folder / 'm32')
    if binary is None:
        tap.skip(name, 'gcc -m32 cannot build a program here (gcc-multilib)')
        return
    symbols = parse_nm(tool('nm', str(binary)))
    segments = parse_segments(tool('readelf', '-lW', str(binary)))
    vaddr = symbols['kf_m32']
    command = (f'p:{GROUP}/kf_m32 {binary}:{vaddr - segment_of(segments, vaddr).bias:#x} '
               f'{M32_ARGS}')
    err = define(trace, events, command)
    if not tap.marked('args_i386', err is None, f'{name}: defined', err or ''):
        return
    enable = trace / 'events' / GROUP / 'kf_m32' / 'enable'
    write(trace / 'trace', '', append=False)
    write(enable, '1', append=False)
    subprocess.run([str(binary)], check=True, capture_output=True)
    write(enable, '0', append=False)
    got = [r.fields for r in parse_trace((trace / 'trace').read_text()) if r.event == 'kf_m32']
    want = [m32_expected(i) for i in range(num('KF_CALLS'))]
    tap.check(got == want, name, f'want {want}\ngot  {got}')
    write(events, f'-:{GROUP}/kf_m32')


def check_multiprobe(tap: Tap, trace: Path, events: Path, binary: Path, cold_file: Path,
                     elf: Elf) -> None:
    """Two probes under one event (kf_sink's and kf_cold's entries):
    both record into it, KF_CALLS times each.  On the fork, removing one
    of them while the event is enabled is refused; 6.1 frees it while
    the uprobes core still calls it (KASAN: use-after-free in
    filter_chain, then an oops at the next hit), so the upstream build
    skips that step, saying so."""
    name = f'{GROUP}/kf_multi'
    places = [f'{binary}:0x{elf.file_offset(elf.symbols[f]):016x}' for f in ('kf_sink', 'kf_cold')]
    for place in places:
        err = write(events, f'p:{name} {place}')
        tap.check(err is None, f'kf_multi: probe {place.rsplit(":", 1)[1]} defined', err or '')
    write(trace / 'trace', '', append=False)
    write(trace / 'events' / name / 'enable', '1', append=False)
    removal = 'kf_multi: a probe of the enabled event is not removed'
    if tap.fork:
        before = events.read_text()
        err = write(events, f'-:{name} {places[0]}')
        tap.check(err is not None and events.read_text() == before, removal, events.read_text())
    else:
        tap.skip(removal, 'not run on upstream: 6.1 frees the probe while the event is '
                 'enabled (use-after-free at the next hit), a fix')
    status = subprocess.run([str(binary), str(cold_file)]).returncode
    write(trace / 'events' / name / 'enable', '0', append=False)
    got = [r.where[0] for r in parse_trace((trace / 'trace').read_text()) if r.event == 'kf_multi']
    want = sorted([elf.symbols['kf_sink'], elf.symbols['kf_cold']] * num('KF_CALLS'))
    tap.check(status == 0 and sorted(got) == want, 'kf_multi: each probe records into the event',
              f'status {status}, want {[hex(a) for a in want]}, got {[hex(a) for a in got]}')
    err = write(events, f'-:{name}')
    tap.check(err is None and '/kf_multi ' not in events.read_text(),
              'kf_multi: -:EVENT removes both probes once disabled', err or events.read_text())


class Stepper:
    """kf_target run with its step argument: at each step it prints the
    step's name and its USDT semaphore, then waits for a byte."""

    def __init__(self, binary: Path, cold_file: Path) -> None:
        self.proc = subprocess.Popen([str(binary), str(cold_file), 'step'],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def _pipes(self) -> Tuple[IO[str], IO[str]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        return self.proc.stdin, self.proc.stdout

    def step(self, name: str) -> int:
        """Wait for step NAME; its semaphore."""
        words = self._pipes()[1].readline().split()
        if len(words) != 2 or words[0] != name or not words[1].isdigit():
            raise ValueError(f'kf_target: step {name} expected, got {words}')
        return int(words[1])

    def go(self) -> None:
        stdin = self._pipes()[0]
        stdin.write('g')
        stdin.flush()

    def finish(self) -> int:
        """Its exit status, once it has run to its end."""
        self._pipes()[0].close()
        return self.proc.wait(timeout=120)

    def run_through(self) -> int:
        """From step 'ready' to its end, nothing changed between the
        steps; its exit status."""
        for step in ('done', 'after'):
            self.go()
            self.step(step)
        self.go()
        return self.finish()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def define_all(tap: Tap, trace: Path, events: Path, path: Path, elf: Elf,
               defs: List[Probe], form: Form) -> Tuple[str, List[Probe]]:
    """Write each definition, check the listing shows each; the listing
    and the probes defined (a marked probe only the fork takes is not,
    on upstream)."""
    defined = []
    for probe in defs:
        err = define(trace, events, probe.definition(path, elf))
        what = f'{form.name}: {probe.event}: defined'
        if (tap.marked(probe.marked, err is None, what, err or '') if probe.marked
                else tap.check(err is None, what, err or '')):
            defined.append(probe)
    listing = events.read_text()
    for probe in defined:
        head = f'{probe.kind}:{GROUP}/{probe.event} {probe.place(path, elf)}'
        tap.check(any(line.startswith(head + ' ') for line in listing.splitlines()),
                  f'{form.name}: {probe.event}: listed in uprobe_events', f'want {head}\n{listing}')
    return listing, defined


def trace_form(tap: Tap, trace: Path, events: Path, folder: Path, form: Form,
               cold_file: Path) -> Optional[Tuple[Path, Elf, str]]:
    """Build FORM, start it, probe it where it was loaded, let it run and
    check every record; the probed file, its ELF (placed where it ran)
    and the listing, or None when the ELF is not as the probes need."""
    binary, probed = compile_target(folder / form.name, form)
    elf = read_elf(probed, form.caller)
    # @+OFFSET is turned into an address with the probed text's load bias,
    # so it reaches data whose segment has the same bias (.rodata here).
    text_bias = elf.segment_of(elf.symbols['kf_work']).bias
    if not tap.check(elf.segment_of(elf.symbols['kf_ro']).bias == text_bias,
                     f'{form.name}: ELF: kf_ro lies at the text\'s load bias'):
        return None
    enable = trace / 'events' / GROUP / 'enable'
    program = Stepper(binary, cold_file)
    try:
        semaphores = [program.step('ready')]
        maps = Path(f'/proc/{program.proc.pid}/maps').read_text()
        elf = replace(elf, load=parse_load(maps, probed.resolve(), elf))
        listing, defs = define_all(tap, trace, events, probed, elf,
                                   probes(elf) + fork_probes(elf), form)
        write(enable, '1', append=False)
        program.go()
        semaphores.append(program.step('done'))
        write(enable, '0', append=False)
        program.go()
        semaphores.append(program.step('after'))
        program.go()
        status = program.finish()
    finally:
        program.kill()
    tap.check(status == 0, f'{form.name}: kf_target ran and checked its own sum',
              f'exit status {status}')
    # sys/sdt.h: a tracer adds one to the semaphore while it listens
    # (uprobes' ref_ctr_offset), and takes it back when it stops.
    tap.check(semaphores == [0, 1, 0], f'{form.name}: kf_usdt: USDT semaphore 0, 1 while '
              'enabled, 0 after', f'got {semaphores}')
    records = parse_trace((trace / 'trace').read_text())
    for probe in defs:
        check_records(tap, form, probe, records, elf)
    hits = parse_profile((trace / 'uprobe_profile').read_text())
    for probe in defs:
        tap.check(hits.get(probe.event) == num('KF_CALLS'),
                  f'{form.name}: {probe.event}: uprobe_profile hits',
                  f'want {num("KF_CALLS")}, got {hits.get(probe.event)}')
    return probed, elf, listing


def perf_open_error(event_id: int) -> Optional[str]:
    """Why perf_event_open(2) refuses the trace event EVENT_ID as a
    system-wide tracepoint on the first CPU we run on, or None (the
    event then closed again) if it does not."""
    try:
        fd = perf_event.open_tracepoint(event_id, -1, min(os.sched_getaffinity(0)))
    except OSError as err:
        return os.strerror(err.errno)
    os.close(fd)
    return None


def check_enable_refused(tap: Tap, trace: Path, events: Path, probed: Path, elf: Elf,
                         cold_file: Path) -> None:
    """Places the parser cannot judge, refused when the event is enabled
    (kernel/events/uprobes.c): an offset past the end of the file and an
    odd semaphore offset (-EINVAL, __uprobe_register), and while a
    process maps the file, an instruction uprobes cannot step (hlt:
    -ENOTSUPP, arch_uprobe_analyze_insn). perf's open of the event as a
    tracepoint fails the same way, and leaves nothing behind: enabling it
    in tracefs again fails as the first time, not with the EINTR of an
    event perf holds. Each event stays defined and disabled, and the
    other definitions stay as they were."""
    # kf_sink: no other event probes it with a different semaphore
    # (6.1 refuses that at definition)
    sink = elf.file_offset(elf.symbols['kf_sink'])
    # ENOTSUPP (524) is a kernel-internal errno (include/linux/errno.h):
    # userspace knows no name for it.
    places = {
        'kf_past': (f'{probed}:{probed.stat().st_size + 0x1000:#x}', 'an offset past the file',
                    os.strerror(errno.EINVAL)),
        'kf_oddref': (f'{probed}:{sink:#x}({elf.file_offset(elf.usdt.semaphore) + 1:#x})',
                      'an odd semaphore offset', os.strerror(errno.EINVAL)),
        'kf_hlt': (f'{probed}:{elf.file_offset(elf.symbols["kf_unprobeable"]):#x}',
                   'hlt, which uprobes cannot step,', os.strerror(524)),
    }
    before = events.read_text()
    program = Stepper(probed, cold_file)
    try:
        program.step('ready')
        for event, (place, what, why) in places.items():
            err = write(events, f'p:{GROUP}/{event} {place}')
            if not tap.check(err is None, f'{event}: {what} is defined', err or ''):
                continue
            enable = trace / 'events' / GROUP / event / 'enable'
            err = write(enable, '1', append=False)
            tap.check(err == why and enable.read_text().strip() == '0',
                      f'{event}: enabling {what} fails: {why}', f'write: {err}, enable: '
                      f'{enable.read_text().strip()}')
            event_id = int((trace / 'events' / GROUP / event / 'id').read_text())
            perf_err = perf_open_error(event_id)
            # once: os.write would retry an EINTR for good
            err = write_once(enable, '1')
            tap.check(perf_err == why and err == why,
                      f'{event}: perf\'s open fails the same way, and tracefs\'s enable after it',
                      f'perf_event_open: {perf_err}, write: {err}')
            err = write(events, f'-:{GROUP}/{event}')
            tap.check(err is None and events.read_text() == before,
                      f'{event}: removed, the other definitions as they were',
                      f'{err}\n{events.read_text()}')
    finally:
        program.kill()


def check_replaced(tap: Tap, trace: Path, events: Path, binary: Path, cold_file: Path,
                   form: Form) -> None:
    """A probed binary replaced by a new build (a new file renamed over
    the path, as a linker or a package upgrade does): the probe stays on
    the file it was defined on (uprobes key on the inode), so the new
    program records nothing, and the definition stays listed as it was."""
    listing = events.read_text()
    fresh, _ = compile_target(binary.parent / 'new', form)
    os.replace(fresh, binary)
    write(trace / 'trace', '', append=False)
    write(trace / 'events' / GROUP / 'kf_entry' / 'enable', '1', append=False)
    status = subprocess.run([str(binary), str(cold_file)]).returncode
    write(trace / 'events' / GROUP / 'kf_entry' / 'enable', '0', append=False)
    got = [r for r in parse_trace((trace / 'trace').read_text()) if r.event == 'kf_entry']
    tap.check(status == 0 and not got, 'kf_entry: the binary replaced, the new one is not '
              'probed', f'status {status}, {len(got)} records')
    tap.check(events.read_text() == listing, 'kf_entry: the binary replaced, the listing '
              'as it was', events.read_text())


def check_perf(tap: Tap, trace: Path, events: Path, binary: Path, elf: Elf,
               cold_file: Path) -> None:
    """perf's way in, on three runs of one program, A counted, B started
    before the perf events were opened and C after: an event defined in
    tracefs opened as a perf tracepoint on A, and the perf uprobe PMU's
    entry and return probes on A (how bpftrace and libbpf attach). Each
    counts A's KF_CALLS calls. perf's per-process filter
    (uprobe_perf_filter) keeps the breakpoint out of B's and C's memory,
    so the tracefs event's profile counts A's hits alone."""
    work = elf.file_offset(elf.symbols['kf_work'])
    err = write(events, f'p:{GROUP}/kf_perf {binary}:{work:#x}')
    if not tap.check(err is None, 'kf_perf: defined', err or ''):
        return
    event_id = int((trace / 'events' / GROUP / 'kf_perf' / 'id').read_text())
    runs = {name: Stepper(binary, cold_file) for name in ('A', 'B')}
    fds = {}
    try:
        for program in runs.values():
            program.step('ready')
        pid = runs['A'].proc.pid
        fds['tracepoint kf_perf'] = perf_event.open_tracepoint(event_id, pid)
        fds['uprobe PMU'] = perf_event.open_uprobe(binary, work, pid)
        fds['uprobe PMU retprobe'] = perf_event.open_uprobe(binary, work, pid, retprobe=True)
        runs['C'] = Stepper(binary, cold_file)
        runs['C'].step('ready')
        statuses = {name: program.run_through() for name, program in runs.items()}
        counts = {what: perf_event.count(fd) for what, fd in fds.items()}
    finally:
        for fd in fds.values():
            os.close(fd)
        for program in runs.values():
            program.kill()
    calls = num('KF_CALLS')
    tap.check(statuses == {'A': 0, 'B': 0, 'C': 0}, 'kf_perf: three runs of kf_target',
              f'exit statuses {statuses}')
    for what, got in counts.items():
        tap.check(got == calls, f'kf_perf: {what} counts the calls in A',
                  f'want {calls}, got {got}')
    hits = parse_profile((trace / 'uprobe_profile').read_text()).get('kf_perf')
    tap.check(hits == calls, 'kf_perf: perf\'s filter keeps B and C from hitting',
              f'want {calls} hits (A\'s), got {hits}')
    err = write(events, f'-:{GROUP}/kf_perf')
    tap.check(err is None, 'kf_perf: removed once perf has closed it', err or '')


def check_perf_record(tap: Tap, trace: Path, events: Path, binary: Path, elf: Elf,
                      cold_file: Path) -> None:
    """`perf record -e kfork:kf_raw`: the event sampled at each hit, and
    the raw record perf reads. kf_raw's head is a struct trace_entry
    (u16 type, u8 flags, u8 preempt_count, s32 pid: 8 bytes) and the
    probed address (an unsigned long), so its one argument, a u8, lies at
    byte 16. perf puts a u32 size before the record and keeps records
    u64-aligned, so the record is ALIGN(16 + 1 + 4, 8) - 4 = 20 bytes:
    3 bytes after the u8, which must be 0, not what the buffer held."""
    work = elf.symbols['kf_work']
    err = write(events, f'p:{GROUP}/kf_raw {binary}:{elf.file_offset(work):#x} '
                        'u8=+23(%cx):u8')
    if not tap.check(err is None, 'kf_raw: defined', err or ''):
        return
    event_id = int((trace / 'events' / GROUP / 'kf_raw' / 'id').read_text())
    program = Stepper(binary, cold_file)
    fd = -1
    try:
        program.step('ready')
        pid = program.proc.pid
        maps = Path(f'/proc/{pid}/maps').read_text()
        elf = replace(elf, load=parse_load(maps, binary.resolve(), elf))
        fd = perf_event.open_raw_sampler(event_id, pid)
        ring = perf_event.RingBuffer(fd)
        try:
            status = program.run_through()
            records = perf_event.parse_records(ring.take())
        finally:
            ring.close()
    finally:
        if fd >= 0:
            os.close(fd)
        program.kill()
    samples = [perf_event.raw_sample(r.body) for r in records
               if r.type == perf_event.PERF_RECORD_SAMPLE]
    calls = num('KF_CALLS')
    if not tap.check(status == 0 and len(samples) == calls,
                     f'kf_raw: perf samples each of the {calls} calls',
                     f'status {status}, {len(samples)} samples of {len(records)} records'):
        return
    want = (event_id, pid, elf.at(work), num('KF_BYTE'), b'\0' * 3)
    for i, raw in enumerate(samples):
        if not tap.check(len(raw) == 20, f'kf_raw: call {i}: a raw record of 20 bytes',
                         f'got {len(raw)}: {raw.hex()}'):
            continue
        type_, = struct.unpack_from('<H', raw, 0)
        got_pid, vaddr = struct.unpack_from('<iQ', raw, 4)
        tap.check((type_, got_pid, vaddr, raw[16], raw[17:]) == want,
                  f'kf_raw: call {i}: type, pid, address, u8 and zeroed padding',
                  f'want {want}, got {raw.hex()}')
    err = write(events, f'-:{GROUP}/kf_raw')
    tap.check(err is None, 'kf_raw: removed once perf has closed it', err or '')


def check_perf_exec(tap: Tap, trace: Path, events: Path, binary: Path, elf: Elf,
                    cold_file: Path) -> None:
    """`perf stat -e EVENT -- sh -c "A; A"`: perf opens the event on a
    forked child before it execs, disabled until the exec and inherited
    by the shell's children. Nothing runs kf_work until the shell's two
    children exec kf_target, whose breakpoints come with their exec's
    mmap; their counts fold into the event at their exit: 2 * KF_CALLS."""
    work = elf.file_offset(elf.symbols['kf_work'])
    err = write(events, f'p:{GROUP}/kf_perf_exec {binary}:{work:#x}')
    if not tap.check(err is None, 'kf_perf_exec: defined', err or ''):
        return
    event_id = int((trace / 'events' / GROUP / 'kf_perf_exec' / 'id').read_text())
    run = f'{binary} {cold_file}'
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(go_w)
            os.read(go_r, 1)
            os.execv('/bin/sh', ['sh', '-c', f'{run} && {run}'])
        finally:
            os._exit(127)
    os.close(go_r)
    fd = -1
    try:
        fd = perf_event.open_tracepoint(event_id, pid, flags=perf_event.DISABLED
                                        | perf_event.INHERIT | perf_event.ENABLE_ON_EXEC)
    finally:
        os.write(go_w, b'g')
        os.close(go_w)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    try:
        got = perf_event.count(fd)
    finally:
        os.close(fd)
    calls = 2 * num('KF_CALLS')
    tap.check(status == 0 and got == calls,
              'kf_perf_exec: an event enabled on exec counts the inheriting children',
              f'status {status}, want {calls}, got {got}')
    hits = parse_profile((trace / 'uprobe_profile').read_text()).get('kf_perf_exec')
    tap.check(hits == calls, 'kf_perf_exec: the children hit, and only they',
              f'want {calls}, got {hits}')
    err = write(events, f'-:{GROUP}/kf_perf_exec')
    tap.check(err is None, 'kf_perf_exec: removed once perf has closed it', err or '')


def check_one_kind_of_consumer(tap: Tap, trace: Path, events: Path, binary: Path,
                               elf: Elf) -> None:
    """An event serves tracefs or perf, not both at once: while it is
    enabled in tracefs perf cannot open it, and while perf has it open
    tracefs cannot enable it (EINTR, as 6.1's probe_event_enable)."""
    work = elf.file_offset(elf.symbols['kf_work'])
    err = write(events, f'p:{GROUP}/kf_kind {binary}:{work:#x}')
    if not tap.check(err is None, 'kf_kind: defined', err or ''):
        return
    folder = trace / 'events' / GROUP / 'kf_kind'
    event_id = int((folder / 'id').read_text())
    write(folder / 'enable', '1', append=False)
    try:
        os.close(perf_event.open_tracepoint(event_id, os.getpid()))
        err = None
    except OSError as refused:
        err = os.strerror(refused.errno)
    write(folder / 'enable', '0', append=False)
    tap.check(err == os.strerror(errno.EINTR), 'kf_kind: perf cannot open it while '
              'tracefs has it enabled', f'{err}')
    fd = perf_event.open_tracepoint(event_id, os.getpid())
    try:
        err = write_once(folder / 'enable', '1')
        enabled = (folder / 'enable').read_text().strip()
    finally:
        os.close(fd)
    tap.check(err == os.strerror(errno.EINTR) and enabled == '0',
              'kf_kind: tracefs cannot enable it while perf has it open',
              f'write: {err}, enable: {enabled}')
    err = write(events, f'-:{GROUP}/kf_kind')
    tap.check(err is None, 'kf_kind: removed once both let it go', err or '')


def check_perf_systemwide(tap: Tap, trace: Path, events: Path, binary: Path, elf: Elf,
                          cold_file: Path) -> None:
    """A system-wide perf event (pid -1, one per CPU) wants every
    process: two runs, one started before the events were opened and
    one after, both hit, and the counts add up to both runs' calls."""
    work = elf.file_offset(elf.symbols['kf_work'])
    err = write(events, f'p:{GROUP}/kf_perf_all {binary}:{work:#x}')
    if not tap.check(err is None, 'kf_perf_all: defined', err or ''):
        return
    event_id = int((trace / 'events' / GROUP / 'kf_perf_all' / 'id').read_text())
    runs = [Stepper(binary, cold_file)]
    fds: List[int] = []
    try:
        runs[0].step('ready')
        fds = [perf_event.open_tracepoint(event_id, -1, cpu)
               for cpu in sorted(os.sched_getaffinity(0))]
        runs.append(Stepper(binary, cold_file))
        runs[1].step('ready')
        statuses = [program.run_through() for program in runs]
        total = sum(perf_event.count(fd) for fd in fds)
    finally:
        for fd in fds:
            os.close(fd)
        for program in runs:
            program.kill()
    calls = 2 * num('KF_CALLS')
    tap.check(statuses == [0, 0], 'kf_perf_all: two runs of kf_target', f'{statuses}')
    tap.check(total == calls, 'kf_perf_all: the system-wide events count both runs\' calls',
              f'want {calls}, got {total}')
    hits = parse_profile((trace / 'uprobe_profile').read_text()).get('kf_perf_all')
    tap.check(hits == calls, 'kf_perf_all: both runs hit', f'want {calls}, got {hits}')
    write(events, f'-:{GROUP}/kf_perf_all')


def check_soft_disabled(tap: Tap, trace: Path, events: Path, binary: Path, elf: Elf,
                        cold_file: Path) -> None:
    """An event an enable_event trigger holds (soft mode) is armed but
    records nothing until the trigger fires: kf_soft on kf_work's entry,
    enabled by the trigger of kf_soft_on on kf_work's return. The first
    call hits kf_soft while it is still soft-disabled; its return fires
    the trigger; the other KF_CALLS - 1 calls are recorded. All
    KF_CALLS hits count in uprobe_profile. Once fired, the trigger has
    enabled kf_soft for good: it stays enabled when the trigger goes."""
    work = elf.file_offset(elf.symbols['kf_work'])
    for definition in (f'p:{GROUP}/kf_soft {binary}:{work:#x}',
                       f'r:{GROUP}/kf_soft_on {binary}:{work:#x}'):
        err = write(events, definition)
        if not tap.check(err is None, f'{definition.split()[0]}: defined', err or ''):
            return
    on = trace / 'events' / GROUP / 'kf_soft_on'
    write(trace / 'trace', '', append=False)
    err = write(on / 'trigger', f'enable_event:{GROUP}:kf_soft', append=False)
    tap.check(err is None, 'kf_soft: an enable_event trigger holds it', err or '')
    write(on / 'enable', '1', append=False)
    status = subprocess.run([str(binary), str(cold_file)]).returncode
    write(on / 'enable', '0', append=False)
    write(on / 'trigger', f'!enable_event:{GROUP}:kf_soft', append=False)
    calls = num('KF_CALLS')
    records = [r for r in parse_trace((trace / 'trace').read_text()) if r.event == 'kf_soft']
    hits = parse_profile((trace / 'uprobe_profile').read_text()).get('kf_soft')
    tap.check(status == 0 and len(records) == calls - 1,
              'kf_soft: soft-disabled until the trigger, then recorded',
              f'status {status}, want {calls - 1} records, got {len(records)}')
    tap.check(hits == calls, 'kf_soft: every hit counted, soft-disabled or not',
              f'want {calls}, got {hits}')
    # the trigger fired: the event is enabled for good, trigger or not
    soft = trace / 'events' / GROUP / 'kf_soft' / 'enable'
    state = soft.read_text().strip()
    tap.check(state == '1', 'kf_soft: still enabled once the trigger is gone', state)
    write(soft, '0', append=False)
    for event in ('kf_soft_on', 'kf_soft'):
        err = write(events, f'-:{GROUP}/{event}')
        tap.check(err is None, f'{event}: removed once its trigger is gone', err or '')


def check_bpf(tap: Tap, trace: Path, events: Path, binary: Path, elf: Elf,
              cold_file: Path) -> None:
    """A BPF program on a uprobe perf event, as bpftrace puts one there:
    its verdict decides whether perf records a hit (0: the system-wide
    counts stay 0; 1: they count KF_CALLS), and BPF_TASK_FD_QUERY (what
    bpftool's perf listing asks) names the event's file and offset and
    its kind, through a tracefs event opened as a tracepoint and
    through the uprobe PMU's entry and return probes."""
    work = elf.file_offset(elf.symbols['kf_work'])
    err = write(events, f'p:{GROUP}/kf_bpf {binary}:{work:#x}')
    if not tap.check(err is None, 'kf_bpf: defined', err or ''):
        return
    event_id = int((trace / 'events' / GROUP / 'kf_bpf' / 'id').read_text())
    cpus = sorted(os.sched_getaffinity(0))
    calls = num('KF_CALLS')
    for verdict, want in ((0, 0), (1, calls)):
        fds: List[int] = []
        try:
            # one program per event: an event's programs are a set, and
            # the events of every CPU share the event's call
            for cpu in cpus:
                fds.append(perf_event.open_tracepoint(event_id, -1, cpu))
                fds.append(perf_event.load_verdict_program(verdict))
                perf_event.set_bpf(fds[-2], fds[-1])
            status = subprocess.run([str(binary), str(cold_file)]).returncode
            got = sum(perf_event.count(fd) for fd in fds[::2])
            query = perf_event.task_fd_query(os.getpid(), fds[0])
        finally:
            for fd in fds:
                os.close(fd)
        tap.check(status == 0 and got == want,
                  f'kf_bpf: a program returning {verdict}: perf counts {want} hits',
                  f'status {status}, got {got}')
        tap.check(query == perf_event.FdQuery(perf_event.BPF_FD_TYPE_UPROBE,
                                               os.fsencode(binary), work, 0),
                  f'kf_bpf: the query of the tracepoint event (verdict {verdict})',
                  f'{query}')
    write(events, f'-:{GROUP}/kf_bpf')
    for retprobe, kind in ((False, perf_event.BPF_FD_TYPE_UPROBE),
                           (True, perf_event.BPF_FD_TYPE_URETPROBE)):
        prog = perf_event.load_verdict_program(1)
        fd = perf_event.open_uprobe(binary, work, -1, retprobe, cpus[0])
        try:
            perf_event.set_bpf(fd, prog)
            query = perf_event.task_fd_query(os.getpid(), fd)
        finally:
            os.close(fd)
            os.close(prog)
        tap.check(query == perf_event.FdQuery(kind, os.fsencode(binary), work, 0),
                  f'kf_bpf: the query of the uprobe PMU\'s {"return " if retprobe else ""}'
                  'probe', f'{query}')


def check_beside_kprobes(tap: Tap, trace: Path, events: Path, binary: Path,
                         elf: Elf) -> None:
    """Uprobe and kprobe events share dynamic_events, where each kind
    takes the commands that are its own. With a kprobe event defined
    there, a uprobe is defined beside it; uprobe_events and
    uprobe_profile list only the uprobes, dynamic_events lists both;
    a uprobe cannot take the kprobe's name; -:EVENT of the kprobe through
    uprobe_events removes nothing (ENOENT) while through dynamic_events
    it removes the kprobe alone."""
    group = f'{GROUP}_k'
    dynamic = trace / 'dynamic_events'
    err = write(dynamic, f'p:{group}/kf_kp vfs_read')
    if not tap.check(err is None, f'{group}/kf_kp: a kprobe event defined in dynamic_events',
                     err or ''):
        return
    work = elf.file_offset(elf.symbols['kf_work'])
    err = write(events, f'p:{GROUP}/kf_beside {binary}:{work:#x}')
    tap.check(err is None, 'kf_beside: a uprobe defined beside the kprobe', err or '')
    listing = events.read_text()
    clash = f'p:{group}/kf_kp'
    check_args_refused(tap, trace, events, f'{clash} {binary}:{work:#x}', clash,
                       'Given group/event name is already used by another event',
                       'a uprobe named as the kprobe is refused')
    tap.check(events.read_text() == listing, 'the refused uprobe changes nothing',
              events.read_text())
    profile = (trace / 'uprobe_profile').read_text()
    tap.check(f'{GROUP}/kf_beside ' in listing and f'{group}/' not in listing,
              'uprobe_events lists the uprobes, not the kprobe', listing)
    tap.check('kf_kp' not in profile and 'kf_beside' in parse_profile(profile),
              'uprobe_profile lists the uprobes, not the kprobe', profile)
    both = dynamic.read_text()
    tap.check(f'{group}/kf_kp ' in both and all(line in both for line in listing.splitlines()),
              'dynamic_events lists the uprobes and the kprobe', both)
    err = write(events, f'-:{group}/kf_kp')
    tap.check(err == os.strerror(errno.ENOENT) and events.read_text() == listing
              and dynamic.read_text() == both,
              'uprobe_events: -:EVENT of a kprobe removes nothing', f'{err}')
    err = write(dynamic, f'-:{group}/kf_kp')
    tap.check(err is None and f'{group}/' not in dynamic.read_text()
              and events.read_text() == listing,
              'dynamic_events: -:EVENT removes the kprobe and only it', f'{err}')
    write(events, f'-:{GROUP}/kf_beside')


def check_not_removed(tap: Tap, trace: Path, events: Path, binary: Path) -> None:
    """Commands that name nothing there is change nothing: a probe kind
    with no place (p alone, EINVAL: no kind of dynamic_events takes it),
    -:EVENT of an existing event under another group, and -:EVENT with a
    place that is not its own (ENOENT)."""
    listing = events.read_text()
    dynamic = trace / 'dynamic_events'
    before = dynamic.read_text()
    err = write(dynamic, 'p')
    tap.check(err == os.strerror(errno.EINVAL) and dynamic.read_text() == before,
              'dynamic_events: "p" alone is refused', f'{err}')
    for command, what in ((f'-:{GROUP}_other/kf_entry', 'another group'),
                          (f'-:{GROUP}/kf_entry {binary}x:0x0', 'another file')):
        err = write(events, command)
        tap.check(err == os.strerror(errno.ENOENT) and events.read_text() == listing,
                  f'-:EVENT with {what} removes nothing', f'{err}\n{events.read_text()}')


def check_not_uprobe_commands(tap: Tap, trace: Path, events: Path, binary: Path) -> None:
    """uprobe_events takes only uprobes: a command that is none (a kind
    neither p nor r, a kind with no place, a path with no offset or with
    a name where the offset goes) is refused with EINVAL before any
    parsing, so it leaves no error_log entry and changes nothing."""
    listing = events.read_text()
    for command, what in ((f'x:{GROUP}/kf_x {binary}:0x0', 'a kind neither p nor r'),
                          ('r', '"r" alone'),
                          (f'p {binary}', 'a path with no offset'),
                          (f'p {binary}:kf_work', 'a name for the offset')):
        write(trace / 'error_log', '', append=False)
        err = write(events, command)
        log = (trace / 'error_log').read_text()
        tap.check(err == os.strerror(errno.EINVAL) and not log
                  and events.read_text() == listing,
                  f'uprobe_events: {what} is not a uprobe', f'{err}\n{log}')


def check_group_removal(tap: Tap, events: Path, binary: Path, elf: Elf) -> None:
    """-:GROUP/ (no event name) removes every event of the group and
    nothing else; -:EVENT (no group) removes that event in any group."""
    group = f'{GROUP}_g'
    work = elf.file_offset(elf.symbols['kf_work'])
    before = events.read_text()
    for event in ('kf_ga', 'kf_gb', 'kf_gc'):
        err = write(events, f'p:{group}/{event} {binary}:{work:#x}')
        tap.check(err is None, f'{group}/{event} defined', err or '')
    err = write(events, '-:kf_gc')
    left = events.read_text()
    tap.check(err is None and f'{group}/kf_gc ' not in left and f'{group}/kf_gb ' in left,
              '-:EVENT with no group removes the event of that name', f'{err}\n{left}')
    err = write(events, f'-:{group}/')
    tap.check(err is None and events.read_text() == before,
              '-:GROUP/ removes the group\'s events, and only them',
              f'{err}\n{events.read_text()}')


def check_refctr_mismatch(tap: Tap, events: Path, probed: Path, elf: Elf) -> None:
    """The uprobes core keeps one semaphore per place: a second event on
    kf_work (kf_entry has none) with a semaphore is refused (-EINVAL)
    and changes nothing."""
    before = events.read_text()
    work = elf.file_offset(elf.symbols['kf_work'])
    err = write(events, f'p:{GROUP}/kf_refdiff {probed}:{work:#x}'
                        f'({elf.file_offset(elf.usdt.semaphore):#x})')
    tap.check(err == os.strerror(errno.EINVAL) and events.read_text() == before,
              'kf_refdiff: a second semaphore for one place is refused',
              f'{err}\n{events.read_text()}')


def check_removal_by_place(tap: Tap, events: Path, probed: Path, elf: Elf) -> None:
    """-:EVENT PATH:OFFSET(REF_CTR_OFFSET) removes only a probe whose place
    is written as the listing writes it; another semaphore matches none."""
    usdt = Probe('kf_usdt', 'p', elf.usdt.location, [], elf.usdt.semaphore)
    place = usdt.place(probed, elf)
    before = events.read_text()
    wrong = place.replace(f'({elf.file_offset(elf.usdt.semaphore):#x})',
                          f'({elf.file_offset(elf.usdt.semaphore) + 2:#x})')
    err = write(events, f'-:{GROUP}/kf_usdt {wrong}')
    tap.check(err is not None and events.read_text() == before,
              'kf_usdt: -:EVENT with another semaphore removes nothing', f'{err}')
    err = write(events, f'-:{GROUP}/kf_usdt {place}')
    tap.check(err is None and '/kf_usdt ' not in events.read_text(),
              'kf_usdt: -:EVENT PATH:OFFSET(REF_CTR_OFFSET) removes it',
              f'{err}\n{events.read_text()}')


def run(folder: Path) -> Tap:
    tap = Tap('uprobe')
    trace = tracefs()
    events = trace / 'uprobe_events'
    write(events, '', append=False)
    cold_file = folder / 'kf_cold.bin'
    cold_file.write_bytes(cold_file_bytes())
    for form in FORMS:
        write(trace / 'trace', '', append=False)
        traced = trace_form(tap, trace, events, folder, form, cold_file)
        if traced and form is FORMS[0]:
            probed, elf, listing = traced
            # probed is the program in this form
            check_error_log(tap, trace, events, probed, elf, listing)
            check_fork_args(tap, trace, events, probed, elf)
            check_compat_args(tap, trace, events, folder)
            check_enable_refused(tap, trace, events, probed, elf, cold_file)
            check_multiprobe(tap, trace, events, probed, cold_file, elf)
            check_removal(tap, trace, events)
            check_perf(tap, trace, events, probed, elf, cold_file)
            check_perf_systemwide(tap, trace, events, probed, elf, cold_file)
            check_perf_exec(tap, trace, events, probed, elf, cold_file)
            check_perf_record(tap, trace, events, probed, elf, cold_file)
            check_one_kind_of_consumer(tap, trace, events, probed, elf)
            check_soft_disabled(tap, trace, events, probed, elf, cold_file)
            check_bpf(tap, trace, events, probed, elf, cold_file)
            check_beside_kprobes(tap, trace, events, probed, elf)
            check_not_removed(tap, trace, events, probed)
            check_not_uprobe_commands(tap, trace, events, probed)
            check_group_removal(tap, events, probed, elf)
            check_refctr_mismatch(tap, events, probed, elf)
            check_removal_by_place(tap, events, probed, elf)
            check_replaced(tap, trace, events, probed, cold_file, form)
        write(events, '', append=False)
    return tap


def check_removal(tap: Tap, trace: Path, events: Path) -> None:
    """-:EVENT of an enabled event is refused (-EBUSY: a tracer still
    reads it); once disabled it goes, and only it."""
    enable = trace / 'events' / GROUP / 'kf_local' / 'enable'
    write(enable, '1', append=False)
    before = events.read_text()
    err = write(events, f'-:{GROUP}/kf_local')
    tap.check(err == os.strerror(errno.EBUSY) and events.read_text() == before,
              '-:EVENT of an enabled event is refused: busy', f'{err}\n{events.read_text()}')
    write(enable, '0', append=False)
    err = write(events, f'-:{GROUP}/kf_local')
    left = events.read_text()
    tap.check(err is None and '/kf_local ' not in left
              and not (trace / 'events' / GROUP / 'kf_local').exists(),
              '-:EVENT removes kf_local', err or left)
    tap.check(all(f'{GROUP}/{p} ' in left for p in ('kf_entry', 'kf_exit')),
              '-:EVENT leaves the others', left)


def main(argv: Sequence[str] = ()) -> int:
    folder = Path(argv[0]) if argv else Path('/tmp/kfork-uprobe')
    folder.mkdir(parents=True, exist_ok=True)
    try:
        tap = run(folder)
    except (OSError, ValueError, subprocess.CalledProcessError) as err:
        tap = Tap('uprobe')
        tap.check(False, 'uprobe test setup', str(err))
    print('\n'.join(tap.lines()))
    return 0 if tap.ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
