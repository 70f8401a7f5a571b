"""The guest's probe stress test: uprobe and kprobe events hit on every
vCPU at once while other processes change them. Runs inside a tools/vm
guest (python3 -m kfork.guest_probestress FOLDER) and prints TAP.

What the fork claims of these paths is about concurrency: a uprobe hit
takes no lock, hit counts are per CPU and summed when uprobe_profile or
kprobe_profile is read, fetched strings go through a per-CPU area, and
the probe lists are read under RCU while commands change them. The
program (tools/guest/stress/hammer.c) runs two threads per vCPU, each
pinned to one, each calling the probed function in a loop with
arguments of its own.

Each event is tested in phases:
- exact: only the callers run, the event enabled throughout. The summed
  hit count grows by the calls made, and the buffer holds one record of
  each call, no more, every field what that call passed.
- churn: the callers run for CHURN_SECONDS while other processes enable
  and disable the event (and try to remove it while it is enabled: it
  must be refused as busy), open and close perf events of the probe
  PMU on the same function, add a second probe to the event and remove
  it, and define and remove unrelated events. Every record left in the
  buffer must still be well formed, the count may not pass the calls,
  and every command must end in one of the outcomes it can have.
- exact again: the counts are still right after all that.
Then: two writers defining one event name at once (one wins, the other
gets EEXIST with an error_log entry of its own command), a definition
racing removals (the listing and the events folder agree), and per-CPU
allocations back where they were once everything is removed.

Counts are exact, so no figure here comes from a run: the calls are the
program's, the records' values are what its threads passed
(hammer.c), and the kretprobe's hits and misses add up to the calls.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import perf_event
from .common import project_root
from .guest_uprobe import (FIELD_RE, Record, caret_column, parse_nm, parse_segments,
                           parse_trace, segment_of, tool, tracefs)
from .churn import OK, Churn, Job, check_churns, command, run_jobs
from .tap import Tap

SOURCE = project_root() / 'tools' / 'guest' / 'stress' / 'hammer.c'
GROUP = 'kfork_stress'
OTHER = 'kfork_other'
# Calls per thread in an exact phase: 2 threads per vCPU on 2 vCPUs make
# 6,000 records of under 100 bytes, far less than BUFFER_KB per CPU.
EXACT_CALLS = 1500
BUFFER_KB = 4096
CHURN_SECONDS = 3.0
RACE_ROUNDS = 30
# struct open_how's flags as openat(2) of hammer.c builds them on x86-64:
# O_RDONLY | O_CLOEXEC (02000000) | O_LARGEFILE (0100000), which
# the 64-bit openat adds (force_o_largefile()).
OPEN_FLAGS = 0o2000000 | 0o100000
ENOENT = 2


def threads() -> int:
    """Two callers per vCPU: one to run while the other is preempted."""
    return 2 * (os.cpu_count() or 1)


def thread_name(tid: int) -> str:
    """hammer.c's name for thread TID: its length is the number."""
    return 't' + str(tid) * tid


# --- the program ------------------------------------------------------------

@dataclass(frozen=True)
class Program:
    path: Path
    hit: int      # file offsets of kf_stress_hit and kf_stress_spare
    spare: int


def build(folder: Path) -> Program:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / 'hammer'
    subprocess.run(['gcc', '-O2', '-g', '-pthread', '-o', str(path), str(SOURCE)], check=True)
    symbols = parse_nm(tool('nm', str(path)))
    segments = parse_segments(tool('readelf', '-lW', str(path)))

    def offset(name: str) -> int:
        return symbols[name] - segment_of(segments, symbols[name]).bias
    return Program(path, offset('kf_stress_hit'), offset('kf_stress_spare'))


class Hammer:
    """A run of the program, its threads held until go()."""

    def __init__(self, program: Program, mode: str, amount: int) -> None:
        self.proc = subprocess.Popen([str(program.path), mode, str(threads()), str(amount)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout and self.proc.stdin
        ready = self.proc.stdout.readline()
        if ready.strip() != 'ready':
            self.proc.kill()
            raise RuntimeError(f'hammer did not start: {ready!r}')

    def go(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.write('go\n')
        self.proc.stdin.flush()

    def wait(self) -> Dict[int, int]:
        """The calls each thread made; a failed run or a thread that was
        not pinned (its records could interleave out of order) raises."""
        out, err = self.proc.communicate(timeout=600)
        if self.proc.returncode or err:
            raise RuntimeError(f'hammer: status {self.proc.returncode}: {err}')
        return {int(t): int(n) for t, n in re.findall(r'^calls (\d+) (\d+)$', out, re.M)}


def run_exact(program: Program, mode: str, before: Callable[[], None]) -> Dict[int, int]:
    """EXACT_CALLS per thread; BEFORE runs once the program has started."""
    hammer = Hammer(program, mode, EXACT_CALLS)
    before()
    hammer.go()
    return hammer.wait()


# --- commands from several processes ------------------------------------------

def churn_while(program: Program, mode: str, jobs: Dict[str, Job], trace: Path
                ) -> Tuple[Dict[int, int], List[Churn]]:
    """The program's threads and JOBS for CHURN_SECONDS; the buffer is
    emptied once the program has started (its loader opens files)."""
    hammer = Hammer(program, mode, -int(CHURN_SECONDS))
    clear(trace)
    churns = run_jobs(jobs, CHURN_SECONDS, hammer.go)
    return hammer.wait(), churns


def toggler(enable: Path, events: Path, event: str, removal: bool) -> Job:
    """Enable EVENT and disable it; with REMOVAL, try to remove it while
    it is enabled in between, which must be refused as busy."""
    def job(deadline: float) -> Churn:
        allowed = {f'enable: {OK}', f'disable: {OK}'}
        if removal:
            allowed.add('remove while enabled: EBUSY')
        churn = Churn('enable, removal refused, disable' if removal else 'enable, disable',
                      allowed)
        while time.monotonic() < deadline:
            churn.add('enable', command(enable, '1', append=False))
            if removal:
                churn.add('remove while enabled', command(events, f'-:{event}'))
            churn.add('disable', command(enable, '0', append=False))
        return churn
    return job


def sibling(events: Path, event: str, place: str, args: str) -> Job:
    """Add a second probe to EVENT and remove it. While the event is
    enabled the removal may be refused, and the next addition then
    finds the probe there."""
    def job(deadline: float) -> Churn:
        churn = Churn('second probe added and removed',
                      {f'add: {OK}', 'add: EEXIST', f'remove: {OK}', 'remove: EBUSY'})
        while time.monotonic() < deadline:
            churn.add('add', command(events, f'p:{event} {place} {args}'))
            churn.add('remove', command(events, f'-:{event} {place}'))
        return churn
    return job


def bystander(events: Path, definitions: Sequence[str]) -> Job:
    """Define unrelated events and remove them."""
    def job(deadline: float) -> Churn:
        churn = Churn('unrelated events defined and removed', {f'define: {OK}', f'remove: {OK}'})
        while time.monotonic() < deadline:
            for line in definitions:
                churn.add('define', command(events, line))
            for line in definitions:
                churn.add('remove', command(events, '-:' + line.split()[0].split(':', 1)[1]))
        return churn
    return job


def perf_opener(open_one: Callable[[int, bool], int], what: str) -> Job:
    """Open a probe PMU event on every CPU, entry and return, then close
    them all: a local probe on the same function each time."""
    def job(deadline: float) -> Churn:
        churn = Churn(what, {f'open: {OK}'})
        while time.monotonic() < deadline:
            fds = []
            for cpu in range(os.cpu_count() or 1):
                for retprobe in (False, True):
                    try:
                        fds.append(open_one(cpu, retprobe))
                        churn.add('open', OK)
                    except OSError as err:
                        churn.add('open', errno.errorcode.get(err.errno or 0, str(err)))
            for fd in fds:
                os.close(fd)
        return churn
    return job


# --- what the buffer must hold ------------------------------------------------

Decoded = Tuple[int, int]           # (thread, seq) of a record
Decoder = Callable[[Record], Optional[Decoded]]


def sequence_problems(records: Sequence[Record], event: str, decode: Decoder,
                      calls: Dict[int, int], exact: bool) -> List[str]:
    """Records of EVENT whose fields disagree, belong to no thread, or
    break their thread's order (each thread runs on one CPU, whose
    buffer keeps its records in call order). EXACT: one record of every
    call, none lost."""
    problems: List[str] = []
    last: Dict[int, int] = {}
    seen: Dict[int, int] = {}
    for record in (r for r in records if r.event == event):
        got = decode(record)
        if got is None or got[0] not in calls:
            problems.append(f'malformed: {record}')
            continue
        tid, seq = got
        if not last.get(tid, -1) < seq < calls[tid]:
            problems.append(f'thread {tid}: seq {seq} after {last.get(tid)} '
                            f'of {calls[tid]} calls: {record}')
        last[tid] = seq
        seen[tid] = seen.get(tid, 0) + 1
    if exact and seen != calls:
        problems.append(f'records per thread {seen}, calls {calls}')
    return problems[:10]


def decode_uprobe(fork: bool) -> Decoder:
    """kf_stress_hit's record: its name, id and the two seqs agree."""
    def decode(record: Record) -> Optional[Decoded]:
        f = record.fields
        try:
            tid, seq = int(f['id']), int(f['seq'])
        except (KeyError, ValueError):
            return None
        same = [f.get('n'), *([f.get('a3')] if fork else [])]
        if f.get('name') != f'"{thread_name(tid)}"' or any(s != str(seq) for s in same):
            return None
        return tid, seq
    return decode


_OPENED = re.compile(r'^"/kfork-stress/(t(\d)\d*)/(\d+)"$')


def decode_open(record: Record) -> Optional[Decoded]:
    """do_sys_openat2's record: the path hammer.c built, and its flags."""
    m = _OPENED.match(record.fields.get('path', ''))
    if not m or m.group(1) != thread_name(int(m.group(2))) \
            or record.fields.get('flags') != hex(OPEN_FLAGS):
        return None
    return int(m.group(2)), int(m.group(3))


# A kprobe event's line: 'EVENT: (SYMBOL+OFF/SIZE) f=v ...', or for a
# return probe '(CALLER+OFF/SIZE <- FUNCTION)' (kprobetrace.rst).
_KPROBE_LINE = re.compile(r':\s+(\w+):\s+\(([^)]*)\)\s*(.*)$')


def parse_kprobe_trace(text: str) -> List[Record]:
    """The kprobe events' records of the trace file; a record's place
    is printed as a symbol, so it is left out (0)."""
    return [Record(m.group(1), (0, None), dict(FIELD_RE.findall(m.group(3))))
            for m in (_KPROBE_LINE.search(line) for line in text.splitlines()
                      if not line.startswith('#')) if m]


def overruns(trace: Path) -> int:
    """Records the buffer lost to overwriting, over every CPU."""
    return sum(int(m.group(1)) for stats in (trace / 'per_cpu').glob('cpu*/stats')
               for m in [re.search(r'^overrun: (\d+)$', stats.read_text(), re.M)] if m)


def clear(trace: Path) -> None:
    command(trace / 'trace', '', append=False)


# --- per-CPU memory -----------------------------------------------------------

def percpu_allocations() -> Optional[int]:
    """Live per-CPU allocations (CONFIG_PERCPU_STATS), or None."""
    debugfs = Path('/sys/kernel/debug')
    if not (debugfs / 'percpu_stats').exists():
        subprocess.run(['mount', '-t', 'debugfs', 'none', str(debugfs)], capture_output=True)
    try:
        text = (debugfs / 'percpu_stats').read_text()
    except OSError:
        return None
    m = re.search(r'nr_cur_alloc\s*:\s*(\d+)', text)
    return int(m.group(1)) if m else None


KMEMLEAK = Path('/sys/kernel/debug/kmemleak')


def kmemleak_scan() -> bool:
    """Scan for leaks once what was freed too late to count is old
    enough (kmemleak reports an object 5 s old and after a second scan
    saw it unchanged): kmemleak logs what it finds, and the log scanner
    fails the run on it. False when kmemleak is off in this boot."""
    if not KMEMLEAK.exists() or command(KMEMLEAK, 'scan') != OK:
        return False
    time.sleep(6)
    return command(KMEMLEAK, 'scan') == OK


# --- uprobe events ------------------------------------------------------------

def uprobe_args(fork: bool) -> str:
    """kf_stress_hit(name, pair, seq): the string, a dereference of each
    of pair's two longs, seq by register and, on the fork, by $arg3."""
    args = 'name=+0(%di):string id=+0(%si):s64 seq=+8(%si):s64 n=%dx:s64'
    return args + (' a3=$arg3:s64' if fork else '')


def uprobe_hits(trace: Path) -> int:
    """uprobe_profile's lines are FILE EVENT HITS, one per probe and the
    event's name without its group: the hits of kfork_stress/hit."""
    return sum(int(parts[2]) for parts in map(str.split, (trace / 'uprobe_profile')
                                               .read_text().splitlines())
               if len(parts) == 3 and parts[1] == 'hit')


def check_uprobe_exact(tap: Tap, trace: Path, program: Program, when: str) -> None:
    """An exact phase: hits and records, one of each per call."""
    clear(trace)
    hits: List[int] = []
    calls = run_exact(program, 'u', lambda: hits.append(uprobe_hits(trace)))
    total = sum(calls.values())
    got = uprobe_hits(trace) - hits[0]
    tap.marked('uprobe_hits_exact', got == total,
               f'uprobe {when}: uprobe_profile counts every hit of every CPU',
               f'hits lost: {got} of {total} calls')
    records = parse_trace((trace / 'trace').read_text())
    problems = sequence_problems(records, 'hit', decode_uprobe(tap.fork), calls, exact=True)
    tap.check(not problems and overruns(trace) == 0,
              f'uprobe {when}: one well-formed record of each call',
              f'overruns {overruns(trace)}\n' + '\n'.join(problems))


def uprobe_place(program: Program, offset: int) -> str:
    """PATH:OFFSET as uprobe_events lists it, which -:EVENT PLACE matches."""
    return f'{program.path}:0x{offset:016x}'


def check_uprobe_phase(tap: Tap, trace: Path, program: Program, what: str,
                       jobs: Dict[str, Job]) -> None:
    """A churn phase: the callers and JOBS; then every record well formed
    and the hits between the records and the calls."""
    before = uprobe_hits(trace)
    calls, churns = churn_while(program, 'u', jobs, trace)
    command(trace / 'events' / GROUP / 'hit' / 'enable', '0', append=False)
    check_churns(tap, what, churns)
    hits = uprobe_hits(trace) - before
    records = parse_trace((trace / 'trace').read_text())
    mine = [r for r in records if r.event == 'hit']
    tap.check(len(mine) <= hits <= sum(calls.values()) and hits > 0,
              f'{what}: records <= hits <= calls',
              f'{len(mine)} records, {hits} hits, {sum(calls.values())} calls')
    problems = sequence_problems(records, 'hit', decode_uprobe(tap.fork), calls, exact=False)
    tap.check(not problems, f'{what}: every record is well formed', '\n'.join(problems))


def check_uprobe_churn(tap: Tap, trace: Path, program: Program) -> None:
    """Two phases: busy removals refused; a second probe added to the
    event and removed. Not both at once: -:EVENT removes every probe of
    the event that may go, which would take the first probe along."""
    events = trace / 'uprobe_events'
    event = f'{GROUP}/hit'
    enable = trace / 'events' / GROUP / 'hit' / 'enable'
    spare = uprobe_place(program, program.spare)
    common = {
        'perf': perf_opener(lambda cpu, ret: perf_event.open_uprobe(
            program.path, program.hit, -1, ret, cpu), 'perf uprobe PMU opened and closed'),
        'bystander': bystander(events, [f'p:{OTHER}/u {spare}',
                                        f'r:{OTHER}/ur {uprobe_place(program, program.hit)}']),
    }
    check_uprobe_phase(tap, trace, program, 'uprobe churn',
                       {'toggle': toggler(enable, events, event, removal=True), **common})
    what = 'uprobe churn, second probe'
    if tap.fork:
        check_uprobe_phase(tap, trace, program, what, {
            'toggle': toggler(enable, events, event, removal=False),
            'sibling': sibling(events, event, spare, uprobe_args(tap.fork)), **common})
        # the last removal may have come while the event was enabled
        command(events, f'-:{event} {spare}')
    else:
        tap.skip(f'{what}: not run on upstream',
                 '6.1 frees a probe of an enabled event (use-after-free at the next hit; '
                 'guest.uprobe checks the fix)')
    listing = events.read_text()
    tap.check(f'{OTHER}/' not in listing and listing.count(f'{event} ') == 1,
              'uprobe churn: the event has its one probe, no bystander is left', listing)


def check_uprobes(tap: Tap, trace: Path, program: Program) -> None:
    events = trace / 'uprobe_events'
    err = command(events, f'p:{GROUP}/hit {program.path}:{program.hit:#x} '
                  f'{uprobe_args(tap.fork)}')
    if not tap.check(err == OK, 'uprobe: event defined', err):
        return
    command(trace / 'events' / GROUP / 'hit' / 'enable', '1', append=False)
    check_uprobe_exact(tap, trace, program, 'first exact phase')
    check_uprobe_churn(tap, trace, program)
    command(trace / 'events' / GROUP / 'hit' / 'enable', '1', append=False)
    check_uprobe_exact(tap, trace, program, 'after the churn')
    command(trace / 'events' / GROUP / 'hit' / 'enable', '0', append=False)
    err = command(events, f'-:{GROUP}/hit')
    tap.check(err == OK and not events.read_text().strip(), 'uprobe: event removed at the end',
              f'{err}\n{events.read_text()}')


# --- kprobe events ------------------------------------------------------------

KPROBED = 'do_sys_openat2'
# Never called here: the place of the event's second probe.
KSPARE = '__x64_sys_sethostname'
KARGS = 'path=+0($arg2):ustring flags=+0($arg3):x64'
MODULE = 'trace-printk'
MODULE_PROBE = f'p:{GROUP}/mod trace_printk:trace_printk_irq_work'


class KprobeProfile:
    """kprobe_profile, opened once and read again from its start: an
    open(2) of it would itself be a hit of do_sys_openat2's probes."""

    def __init__(self, trace: Path) -> None:
        self.fd = os.open(trace / 'kprobe_profile', os.O_RDONLY)

    def read(self) -> Dict[str, Tuple[int, int]]:
        """Hits and misses by event name (without its group), summed over
        the event's probes: one line of NAME HITS MISSED each."""
        os.lseek(self.fd, 0, os.SEEK_SET)
        chunks = []
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        out: Dict[str, Tuple[int, int]] = {}
        for parts in map(str.split, b''.join(chunks).decode().splitlines()):
            if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
                hits, missed = out.get(parts[0], (0, 0))
                out[parts[0]] = (hits + int(parts[1]), missed + int(parts[2]))
        return out

    def close(self) -> None:
        os.close(self.fd)


def profile_delta(before: Dict[str, Tuple[int, int]], after: Dict[str, Tuple[int, int]],
                  name: str) -> Tuple[int, int]:
    b, a = before.get(name, (0, 0)), after.get(name, (0, 0))
    return a[0] - b[0], a[1] - b[1]


def check_kprobe_exact(tap: Tap, trace: Path, program: Program, when: str) -> None:
    """Every open is one hit and one record of the entry event, and one
    of the return event, whose instances are enough for every thread;
    the one-instance kretprobe misses some. Only the program opens
    files meanwhile (the profile is read through a descriptor opened
    before), and the events' filter records only its opens."""
    profile = KprobeProfile(trace)
    before: List[Dict[str, Tuple[int, int]]] = []

    def ready() -> None:
        clear(trace)    # the loader's opens
        before.append(profile.read())
    calls = run_exact(program, 'k', ready)
    after = profile.read()
    profile.close()
    total = sum(calls.values())
    entry, ret, ret1 = (profile_delta(before[0], after, name)
                        for name in ('kopen', 'kret', 'kret1'))
    tap.check(entry == (total, 0), f'kprobe {when}: kprobe_profile counts every open, no miss',
              f'(hits, missed) {entry} for {total} calls')
    tap.check(ret == (total, 0), f'kprobe {when}: and every return, none missed',
              f'(hits, missed) {ret} for {total} calls')
    # kernel/kprobes.c counts a kretprobe's misses with a plain ++ from
    # every CPU (pre_handler_kretprobe()), so misses on two CPUs at once
    # can lose a count: the sum may fall short of the calls, never pass.
    tap.check(0 < ret1[0] and 0 < ret1[1] and sum(ret1) <= total,
              f'kprobe {when}: a kretprobe of one instance hits some returns, misses some',
              f'(hits, missed) {ret1} for {total} calls')
    records = parse_kprobe_trace((trace / 'trace').read_text())
    problems = sequence_problems(records, 'kopen', decode_open, calls, exact=True)
    tap.check(not problems and overruns(trace) == 0,
              f'kprobe {when}: one well-formed record of each open',
              f'overruns {overruns(trace)}\n' + '\n'.join(problems))
    for name, hits in (('kret', ret[0]), ('kret1', ret1[0])):
        returns = [r for r in records if r.event == name]
        tap.check(len(returns) == hits and all(r.fields.get('ret') == str(-ENOENT)
                                               for r in returns),
                  f'kprobe {when}: {name}: one record of each return caught, each -ENOENT',
                  f'{len(returns)} records, {hits} hits; first {returns[:2]}')


def module_loader() -> Job:
    def job(deadline: float) -> Churn:
        churn = Churn('module loaded and unloaded', {f'modprobe: {OK}', f'rmmod: {OK}'})
        while time.monotonic() < deadline:
            for step, argv in (('modprobe', ['modprobe', MODULE]),
                               ('rmmod', ['rmmod', MODULE.replace('-', '_')])):
                done = subprocess.run(argv, capture_output=True, text=True)
                churn.add(step, OK if done.returncode == 0 else done.stderr.strip())
        return churn
    return job


def check_kprobe_phase(tap: Tap, trace: Path, program: Program, what: str,
                       jobs: Dict[str, Job]) -> Tuple[Dict[str, Tuple[int, int]],
                                                      Dict[str, Tuple[int, int]], List[Churn]]:
    """A churn phase: the callers and JOBS; then every record well formed
    and the kretprobe's counts at least the calls (the churning
    processes open files too). The profile before and after."""
    profile = KprobeProfile(trace)
    before = profile.read()
    calls, churns = churn_while(program, 'k', jobs, trace)
    after = profile.read()
    profile.close()
    command(trace / 'events' / GROUP / 'kopen' / 'enable', '0', append=False)
    check_churns(tap, what, churns)
    records = parse_kprobe_trace((trace / 'trace').read_text())
    problems = sequence_problems(records, 'kopen', decode_open, calls, exact=False)
    tap.check(not problems, f'{what}: every record is well formed', '\n'.join(problems))
    ret = profile_delta(before, after, 'kret')
    returns = sum(1 for r in records if r.event == 'kret')
    tap.check(sum(ret) >= sum(calls.values()) and returns <= ret[0],
              f'{what}: the kretprobe\'s hits + missed >= calls, records <= hits',
              f'(hits, missed) {ret}, {sum(calls.values())} calls, {returns} records')
    return before, after, churns


def check_kprobe_churn(tap: Tap, trace: Path, program: Program) -> None:
    """As check_uprobe_churn(), and a module loaded and unloaded while
    a probe of it stays defined."""
    events = trace / 'kprobe_events'
    event = f'{GROUP}/kopen'
    enable = trace / 'events' / GROUP / 'kopen' / 'enable'
    common = {
        'perf': perf_opener(lambda cpu, ret: perf_event.open_kprobe(KPROBED, -1, ret, cpu),
                            'perf kprobe PMU opened and closed'),
        'bystander': bystander(events, [f'p:{OTHER}/k vfs_read', f'r:{OTHER}/kr vfs_read']),
    }
    before, after, churns = check_kprobe_phase(
        tap, trace, program, 'kprobe churn',
        {'toggle': toggler(enable, events, event, removal=True), 'module': module_loader(),
         **common})
    loads = sum(n for c in churns for k, n in c.outcomes.items() if k == f'modprobe: {OK}')
    mod = profile_delta(before, after, 'mod')
    tap.check(loads > 0 and mod == (loads, 0),
              'kprobe churn: the module probe hit once per load of its module',
              f'{loads} loads, (hits, missed) {mod}')
    check_kprobe_phase(tap, trace, program, 'kprobe churn, second probe', {
        'toggle': toggler(enable, events, event, removal=False),
        'sibling': sibling(events, event, KSPARE, KARGS), **common})
    command(events, f'-:{event} {KSPARE}')
    listing = events.read_text()
    tap.check(f'{OTHER}/' not in listing and listing.count(f'{event} ') == 1
              and f'{GROUP}/mod ' in listing,
              'kprobe churn: the events have their probes, no bystander is left', listing)


def check_kprobes(tap: Tap, trace: Path, program: Program) -> None:
    events = trace / 'kprobe_events'
    # kret's default instances, max(10, 2 * CPUs), outnumber the threads
    # (2 a vCPU) that can be inside the function at once; kret1 has one.
    for line in (f'p:{GROUP}/kopen {KPROBED} {KARGS}',
                 f'r:{GROUP}/kret {KPROBED} ret=$retval:s64',
                 f'r1:{GROUP}/kret1 {KPROBED} ret=$retval:s64', MODULE_PROBE):
        err = command(events, line)
        if not tap.check(err == OK, f'kprobe: {line.split()[0]} defined', err):
            return
    for name in ('kopen', 'kret', 'kret1'):
        err = command(trace / 'events' / GROUP / name / 'filter', 'comm == "hammer"',
                      append=False)
        tap.check(err == OK, f'kprobe: {name} records the program\'s opens only', err)
    for name in ('kopen', 'kret', 'kret1', 'mod'):
        command(trace / 'events' / GROUP / name / 'enable', '1', append=False)
    check_kprobe_exact(tap, trace, program, 'first exact phase')
    check_kprobe_churn(tap, trace, program)
    command(trace / 'events' / GROUP / 'kopen' / 'enable', '1', append=False)
    check_kprobe_exact(tap, trace, program, 'after the churn')
    command(trace / 'events' / GROUP / 'enable', '0', append=False)
    errs = [command(events, f'-:{GROUP}/{name}') for name in ('kopen', 'kret', 'kret1', 'mod')]
    tap.check(errs == [OK] * 4 and GROUP not in events.read_text(),
              'kprobe: events removed at the end', f'{errs}\n{events.read_text()}')


# --- commands racing commands -------------------------------------------------

def _write_at(barrier: 'multiprocessing.synchronize.Barrier', path: Path, line: str,
              queue: 'multiprocessing.Queue[Tuple[str, str]]') -> None:
    barrier.wait()
    queue.put((line, command(path, line)))


def race(path: Path, lines: Sequence[str]) -> Dict[str, str]:
    """LINES written to PATH at once, each by a process of its own."""
    barrier = multiprocessing.Barrier(len(lines))
    queue: 'multiprocessing.Queue[Tuple[str, str]]' = multiprocessing.Queue()
    processes = [multiprocessing.Process(target=_write_at, args=(barrier, path, line, queue))
                 for line in lines]
    for process in processes:
        process.start()
    got = dict(queue.get(timeout=120) for _ in processes)
    for process in processes:
        process.join()
    return got


def check_same_name(tap: Tap, trace: Path, program: Program) -> None:
    """Two definitions of one event at one place whose arguments differ:
    the second to register is refused with EEXIST, and the error_log
    entry is its own command, the caret at its argument."""
    events = trace / 'uprobe_events'
    place = f'{program.path}:{program.hit:#x}'
    lines = [f'p:{GROUP}/same {place} a=%ax', f'p:{GROUP}/same {place} b=%bx']
    wrong: List[str] = []
    for _ in range(RACE_ROUNDS):
        command(trace / 'error_log', '', append=False)
        got = race(events, lines)
        losers = [line for line, outcome in got.items() if outcome != OK]
        winners = [line for line, outcome in got.items() if outcome == OK]
        logged = caret_column((trace / 'error_log').read_text())
        if len(winners) != 1 or [got[line] for line in losers] != ['EEXIST']:
            wrong.append(f'outcomes {got}')
        elif logged != (losers[0], losers[0].rindex(' ') + 1):
            wrong.append(f'{losers[0]!r} refused, error_log holds {logged}')
        elif events.read_text().count(f'{GROUP}/same ') != 1:
            wrong.append(f'listing {events.read_text()!r}')
        command(events, f'-:{GROUP}/same')
    # Debian's 6.1 has the mainline fix (fd837de3c9cb) that keeps the
    # error_log's command the writer's own: both builds must pass.
    tap.check(not wrong, f'race: one of two definitions of an event wins, {RACE_ROUNDS} '
              'times; the other is refused and logged as its own command',
              '\n'.join(wrong[:5]))


def removal_racer(events: Path, event: str) -> Job:
    def job(deadline: float) -> Churn:
        churn = Churn('removal', {f'remove: {OK}', 'remove: ENOENT'})
        while time.monotonic() < deadline:
            churn.add('remove', command(events, f'-:{event}'))
        return churn
    return job


def definer(events: Path, event: str, place: str, trace: Path) -> Job:
    """Define EVENT, then see that the listing and the events folder
    agree about it: both or neither. The remover may act between the
    two reads, so a disagreement counts only when a second look
    disagrees too."""
    folder = trace / 'events' / event

    def job(deadline: float) -> Churn:
        # EEXIST: defined again before the remover got to it
        churn = Churn('definition', {f'define: {OK}', 'define: EEXIST',
                                     'listed and folder agree: yes'})
        while time.monotonic() < deadline:
            churn.add('define', command(events, f'p:{event} {place}'))
            # only this process defines it: the state changes at most
            # once (a removal) during three looks
            looks = [(f'{event} ' in events.read_text(), folder.exists()) for _ in range(3)]
            agree = any(listed == there for listed, there in looks)
            churn.add('listed and folder agree', 'yes' if agree else f'no: {looks}')
        return churn
    return job


def check_define_remove(tap: Tap, trace: Path, program: Program) -> None:
    events = trace / 'uprobe_events'
    event = f'{GROUP}/churn'
    jobs = {'define': definer(events, event, f'{program.path}:{program.spare:#x}', trace),
            'remove': removal_racer(events, event)}
    churns = run_jobs(jobs, CHURN_SECONDS)
    check_churns(tap, 'race: definition against removal', churns)
    listing = events.read_text()
    tap.check(listing.count(f'{event} ') == (trace / 'events' / event).exists(),
              'race: definition against removal: listing and events folder agree at the end',
              listing)
    command(events, f'-:{event}')


# --- the suite ----------------------------------------------------------------

def run(folder: Path) -> Tap:
    tap = Tap('probestress')
    cpus = os.cpu_count() or 1
    tap.check(cpus >= 2, f'the guest runs on {cpus} CPUs, at least 2', '')
    trace = tracefs()
    for name in ('uprobe_events', 'kprobe_events'):
        command(trace / name, '', append=False)
    command(trace / 'buffer_size_kb', str(BUFFER_KB), append=False)
    # The module's first load allocates trace_printk()'s per-CPU buffers
    # for good: before the count, not during it.
    for argv in (['modprobe', MODULE], ['rmmod', MODULE.replace('-', '_')]):
        subprocess.run(argv, capture_output=True)
    percpu = percpu_allocations()
    # what the boot may have leaked is reported now, and not again
    if kmemleak_scan():
        command(KMEMLEAK, 'clear')
    program = build(folder)
    check_uprobes(tap, trace, program)
    check_kprobes(tap, trace, program)
    check_same_name(tap, trace, program)
    check_define_remove(tap, trace, program)
    for name in ('uprobe_events', 'kprobe_events'):
        command(trace / name, '', append=False)
    after = percpu_allocations()
    if percpu is None or after is None:
        tap.skip('per-CPU allocations back where they were',
                 'no /sys/kernel/debug/percpu_stats (CONFIG_PERCPU_STATS)')
    else:
        tap.check(after == percpu, 'per-CPU allocations back where they were',
                  f'{percpu} live before, {after} after')
    scanned = 'kmemleak scanned once all was removed (a leak fails the run)'
    if kmemleak_scan():
        tap.check(True, scanned)
    else:
        tap.skip(scanned, 'kmemleak is off in this boot (tools/vm test --kmemleak probestress)')
    return tap


def main(argv: Sequence[str] = ()) -> int:
    folder = Path(argv[0]) if argv else Path('/tmp/kfork-probestress')
    try:
        tap = run(folder)
    except (OSError, ValueError, RuntimeError, subprocess.SubprocessError) as err:
        tap = Tap('probestress')
        tap.check(False, 'probestress test setup', repr(err))
    print('\n'.join(tap.lines()))
    return 0 if tap.ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
