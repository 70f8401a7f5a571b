"""perf_event_open(2) and bpf(2) for the guest suites.

What perf and bpftrace do to attach to uprobe events, with nothing but
the C library: a tracepoint event on a tracefs-defined uprobe event
(PERF_TYPE_TRACEPOINT, its id), or a uprobe of the perf `uprobe` PMU
(its type from sysfs, the file in config1, the offset in config2), the
way libbpf attaches; the raw records `perf record` reads from such an
event's ring buffer; a BPF program put on such an event, and the query
bpftool's `perf` listing makes of it (BPF_TASK_FD_QUERY). Values from
include/uapi/linux/perf_event.h and include/uapi/linux/bpf.h.
"""

from __future__ import annotations

import ctypes
import fcntl
import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import List

SYS_PERF_EVENT_OPEN = 298          # x86-64
SYS_BPF = 321                      # x86-64
PERF_TYPE_TRACEPOINT = 2
# struct perf_event_attr up to config2 (PERF_ATTR_SIZE_VER1): type,
# size, config, sample_period, sample_type, read_format, the flag bits,
# wakeup_events, bp_type, config1, config2. Flags 0: enabled, counting.
_ATTR = struct.Struct('<IIQQQQQIIQQ')
# perf_event_attr's flag bits, as `perf stat -- COMMAND` sets them:
# counting starts at the task's exec, and its children inherit it.
DISABLED = 1 << 0
INHERIT = 1 << 1
ENABLE_ON_EXEC = 1 << 12
_PMU = Path('/sys/bus/event_source/devices')

_libc = ctypes.CDLL(None, use_errno=True)


def _open(type_: int, config: int, config1: int, config2: int, pid: int,
          cpu: int = -1, flags: int = 0, sample_type: int = 0) -> int:
    # a sampling event records every hit: sample_period 1
    period = 1 if sample_type else 0
    attr = ctypes.create_string_buffer(
        _ATTR.pack(type_, _ATTR.size, config, period, sample_type, 0, flags, 0, 0,
                   config1, config2),
        _ATTR.size)
    fd = int(_libc.syscall(ctypes.c_long(SYS_PERF_EVENT_OPEN), attr, ctypes.c_long(pid),
                           ctypes.c_long(cpu), ctypes.c_long(-1), ctypes.c_ulong(0)))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, f'perf_event_open: {os.strerror(err)}')
    return fd


def open_tracepoint(event_id: int, pid: int, cpu: int = -1, flags: int = 0) -> int:
    """Count the hits of a trace event (events/GROUP/EVENT/id) in PID,
    or with pid -1, system-wide on CPU; FLAGS are the attr's bits."""
    return _open(PERF_TYPE_TRACEPOINT, event_id, 0, 0, pid, cpu, flags)


def open_raw_sampler(event_id: int, pid: int) -> int:
    """Record each hit of a trace event in PID with its raw record, as
    `perf record -e GROUP:EVENT` does: read them with RingBuffer."""
    return _open(PERF_TYPE_TRACEPOINT, event_id, 0, 0, pid, sample_type=PERF_SAMPLE_RAW)


def pmu_config_bit(pmu: str, name: str) -> int:
    """The config bit a PMU's format file names ('config:0')."""
    field = (_PMU / pmu / 'format' / name).read_text().strip()
    where, _, bit = field.partition(':')
    if where != 'config' or not bit.isdigit():
        raise ValueError(f'{pmu}/format/{name} is {field!r}, not config:BIT')
    return 1 << int(bit)


def _open_probe_pmu(pmu: str, name: bytes, offset: int, pid: int, retprobe: bool,
                    cpu: int) -> int:
    """A probe of perf's `uprobe` or `kprobe` PMU: NAME (a file, or a
    kernel function) in config1, the offset in config2."""
    type_ = int((_PMU / pmu / 'type').read_text())
    config = pmu_config_bit(pmu, 'retprobe') if retprobe else 0
    where = ctypes.create_string_buffer(name)
    return _open(type_, config, ctypes.addressof(where), offset, pid, cpu)


def open_uprobe(path: Path, offset: int, pid: int, retprobe: bool = False,
                cpu: int = -1) -> int:
    """A uprobe of the perf `uprobe` PMU on PATH at file OFFSET, counting
    in PID (or with pid -1, system-wide on CPU): the kernel makes a local
    trace_uprobe for it."""
    return _open_probe_pmu('uprobe', os.fsencode(path), offset, pid, retprobe, cpu)


def open_kprobe(function: str, pid: int, retprobe: bool = False, cpu: int = -1) -> int:
    """A kprobe of the perf `kprobe` PMU on FUNCTION's entry (or return),
    as bpftrace's kprobe: attaches: a local trace_kprobe."""
    return _open_probe_pmu('kprobe', function.encode(), 0, pid, retprobe, cpu)


def count(fd: int) -> int:
    """A counting event's value (read_format 0: one u64)."""
    data = os.read(fd, 8)
    return int(struct.unpack('<Q', data)[0])


PERF_SAMPLE_RAW = 1 << 10
PERF_RECORD_SAMPLE = 9
# struct perf_event_mmap_page: data_head, data_tail, data_offset and
# data_size, the u64s at byte 1024 (after the 1 KiB of its first part)
_MMAP_DATA = struct.Struct('<QQQQ')
_MMAP_DATA_AT = 1024
# struct perf_event_header: type, misc, size (the whole record's)
_HEADER = struct.Struct('<IHH')


@dataclass(frozen=True)
class Record:
    """A record of the ring buffer: its type and what follows its header."""

    type: int
    body: bytes


def parse_records(data: bytes) -> List[Record]:
    """The records in DATA, laid end to end as the ring buffer holds them."""
    records = []
    at = 0
    while at < len(data):
        type_, _, size = _HEADER.unpack_from(data, at)
        if size < _HEADER.size or at + size > len(data):
            raise ValueError(f'perf record of size {size} at byte {at} of {len(data)}')
        records.append(Record(type_, data[at + _HEADER.size:at + size]))
        at += size
    return records


def raw_sample(body: bytes) -> bytes:
    """The raw record of a PERF_RECORD_SAMPLE of sample_type
    PERF_SAMPLE_RAW alone: its u32 size, then that many bytes."""
    (size,) = struct.unpack_from('<I', body)
    if 4 + size > len(body):
        raise ValueError(f'raw sample of {size} bytes in a body of {len(body)}')
    return body[4:4 + size]


class RingBuffer:
    """An event's mmap ring buffer: a control page, then 2^n data pages."""

    def __init__(self, fd: int, data_pages: int = 8) -> None:
        self.map = mmap.mmap(fd, (1 + data_pages) * mmap.PAGESIZE)

    def take(self) -> bytes:
        """The bytes written since the last take, which it frees."""
        head, tail, offset, size = _MMAP_DATA.unpack_from(self.map, _MMAP_DATA_AT)
        if head - tail > size:
            raise ValueError(f'perf ring buffer: head {head} is past tail {tail} + {size}')
        start = offset + tail % size
        first = min(head - tail, offset + size - start)
        # what runs past the end of the data pages went on at their start
        out = self.map[start:start + first] + self.map[offset:offset + head - tail - first]
        struct.pack_into('<Q', self.map, _MMAP_DATA_AT + 8, head)
        return out

    def close(self) -> None:
        self.map.close()


BPF_PROG_LOAD = 5
BPF_TASK_FD_QUERY = 20
BPF_PROG_TYPE_KPROBE = 2          # what uprobe events run, as kprobe events do
BPF_FD_TYPE_UPROBE = 4
BPF_FD_TYPE_URETPROBE = 5
PERF_EVENT_IOC_SET_BPF = 0x40042408   # _IOW('$', 8, __u32)
# union bpf_attr for BPF_PROG_LOAD, up to kern_version: prog_type,
# insn_cnt, insns, license, log_level, log_size, log_buf, kern_version
_PROG_LOAD = struct.Struct('<IIQQIIQI')
# for BPF_TASK_FD_QUERY: pid, fd, flags, buf_len, buf; then what the
# kernel fills in: prog_id, fd_type, probe_offset, probe_addr
_FD_QUERY = struct.Struct('<IIIIQIIQQ')


def _bpf(cmd: int, attr: ctypes.Array[ctypes.c_char]) -> int:
    ret = int(_libc.syscall(ctypes.c_long(SYS_BPF), ctypes.c_long(cmd), attr,
                            ctypes.c_uint(len(attr))))
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f'bpf({cmd}): {os.strerror(err)}')
    return ret


def load_verdict_program(verdict: int) -> int:
    """A BPF program of the kprobe type that only returns VERDICT: on a
    perf event, 0 keeps the hit from being recorded and 1 lets it be."""
    # mov r0, VERDICT; exit
    insns = ctypes.create_string_buffer(struct.pack('<BBhiBBhi', 0xb7, 0, 0, verdict,
                                                    0x95, 0, 0, 0), 16)
    gpl = ctypes.create_string_buffer(b'GPL')
    attr = ctypes.create_string_buffer(
        _PROG_LOAD.pack(BPF_PROG_TYPE_KPROBE, 2, ctypes.addressof(insns),
                        ctypes.addressof(gpl), 0, 0, 0, 0), _PROG_LOAD.size)
    return _bpf(BPF_PROG_LOAD, attr)


def set_bpf(fd: int, prog_fd: int) -> None:
    """Run the program at each hit of the perf event FD."""
    fcntl.ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd)


@dataclass(frozen=True)
class FdQuery:
    """What the kernel says of a perf event that runs a BPF program."""

    fd_type: int
    name: bytes
    probe_offset: int
    probe_addr: int


def task_fd_query(pid: int, fd: int) -> FdQuery:
    """BPF_TASK_FD_QUERY of the perf event FD of task PID."""
    name = ctypes.create_string_buffer(4096)
    attr = ctypes.create_string_buffer(
        _FD_QUERY.pack(pid, fd, 0, len(name), ctypes.addressof(name), 0, 0, 0, 0),
        _FD_QUERY.size)
    _bpf(BPF_TASK_FD_QUERY, attr)
    fields = _FD_QUERY.unpack(attr.raw)
    return FdQuery(fields[6], name.value, fields[7], fields[8])
