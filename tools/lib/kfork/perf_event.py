"""perf_event_open(2) for the guest suites: counting events on one task.

What perf and bpftrace do to attach to uprobe events, with nothing but
the C library: a tracepoint event on a tracefs-defined uprobe event
(PERF_TYPE_TRACEPOINT, its id), or a uprobe of the perf `uprobe` PMU
(its type from sysfs, the file in config1, the offset in config2), the
way libbpf attaches. Values from include/uapi/linux/perf_event.h.
"""

from __future__ import annotations

import ctypes
import os
import struct
from pathlib import Path

SYS_PERF_EVENT_OPEN = 298          # x86-64
PERF_TYPE_TRACEPOINT = 2
# struct perf_event_attr up to config2 (PERF_ATTR_SIZE_VER1): type,
# size, config, sample_period, sample_type, read_format, the flag bits,
# wakeup_events, bp_type, config1, config2. Flags 0: enabled, counting.
_ATTR = struct.Struct('<IIQQQQQIIQQ')
_PMU = Path('/sys/bus/event_source/devices')

_libc = ctypes.CDLL(None, use_errno=True)


def _open(type_: int, config: int, config1: int, config2: int, pid: int,
          cpu: int = -1) -> int:
    attr = ctypes.create_string_buffer(
        _ATTR.pack(type_, _ATTR.size, config, 0, 0, 0, 0, 0, 0, config1, config2), _ATTR.size)
    fd = int(_libc.syscall(ctypes.c_long(SYS_PERF_EVENT_OPEN), attr, ctypes.c_long(pid),
                           ctypes.c_long(cpu), ctypes.c_long(-1), ctypes.c_ulong(0)))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, f'perf_event_open: {os.strerror(err)}')
    return fd


def open_tracepoint(event_id: int, pid: int, cpu: int = -1) -> int:
    """Count the hits of a trace event (events/GROUP/EVENT/id) in PID,
    or with pid -1, system-wide on CPU."""
    return _open(PERF_TYPE_TRACEPOINT, event_id, 0, 0, pid, cpu)


def pmu_config_bit(pmu: str, name: str) -> int:
    """The config bit a PMU's format file names ('config:0')."""
    field = (_PMU / pmu / 'format' / name).read_text().strip()
    where, _, bit = field.partition(':')
    if where != 'config' or not bit.isdigit():
        raise ValueError(f'{pmu}/format/{name} is {field!r}, not config:BIT')
    return 1 << int(bit)


def open_uprobe(path: Path, offset: int, pid: int, retprobe: bool = False) -> int:
    """A uprobe of the perf `uprobe` PMU on PATH at file OFFSET, counting
    in PID: the kernel makes a local trace_uprobe for it."""
    type_ = int((_PMU / 'uprobe' / 'type').read_text())
    config = pmu_config_bit('uprobe', 'retprobe') if retprobe else 0
    name = ctypes.create_string_buffer(os.fsencode(path))
    return _open(type_, config, ctypes.addressof(name), offset, pid)


def count(fd: int) -> int:
    """A counting event's value (read_format 0: one u64)."""
    data = os.read(fd, 8)
    return int(struct.unpack('<Q', data)[0])
