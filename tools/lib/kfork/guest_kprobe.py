"""The guest's kprobe test: what only a booted kernel shows of kprobe
events. Runs inside a tools/vm guest (python3 -m kfork.guest_kprobe),
first of the suites, as the others may clear what the boot defined.
- kprobe_event=: the boot line (BOOT_EVENTS, which tools/vm adds when
  this suite runs) defines an event on do_sys_openat2 and one on a
  function that does not exist. The first must be listed, enabled in
  the top instance from boot and have recorded the opens of the boot
  (libc's open() is openat(AT_FDCWD, ...): dfd=-100); the second must
  be missing, with 6.1's warning naming it and -ENOENT.
- a BPF program on a kprobe event's perf event, as bpftrace puts one
  there: perf counts the hits it passes and no other, and the probed
  function still returns what it returns.
- kprobe_event_gen_test, the tree's test of the in-kernel command API
  (kprobe_event_gen_cmd_start() and friends): loading it must define
  its two events on do_sys_open exactly as its source writes them,
  enabled, each argument a field; unloading it must remove both. (The
  events never fire here: the open(2) system call has do_sys_open
  inlined, and nothing else calls it.)
Every expected value comes from the kernel's documentation and the
module's source. Prints TAP.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from . import perf_event
from .guest_uprobe import tracefs, write
from .tap import Tap

# The boot line's events: ',' stands for ' ' and ';' separates
# definitions (Documentation/admin-guide/kernel-parameters.txt).
BOOT_GROUP = 'kfork_boot'
BOOT_EVENTS = (f'kprobe_event=p:{BOOT_GROUP}/open,do_sys_openat2,dfd=%di:s32;'
               f'p:{BOOT_GROUP}/bad,kfork_no_such_function')
AT_FDCWD = -100
ENOENT = 2

# The BPF test's event: getppid(2)'s x86-64 entry point, which this
# process calls BPF_CALLS times and Python never calls on its own.
BPF_EVENT = 'kfork/kf_bpf'
BPF_FUNCTION = '__x64_sys_getppid'
BPF_CALLS = 10

GEN_MODULE = 'kprobe_event_gen_test'
# kernel/trace/kprobe_event_gen_test.c on x86: KPROBE_GEN_TEST_FUNC and
# its four arguments; the return probe's "$retval" is unnamed: arg1.
GEN_ENTRY = ('p:kprobes/gen_kprobe_test do_sys_open dfd=%ax filename=%dx flags=%cx '
             'mode=+4($stack)')
GEN_RETURN = 'kprobes/gen_kretprobe_test do_sys_open arg1=$retval'


def default_maxactive() -> int:
    """What the kprobes core gives a kretprobe defined without MAXACTIVE,
    which the listing shows: max(10, 2 * possible CPUs)."""
    possible = Path('/sys/devices/system/cpu/possible').read_text().strip()
    last = int(re.split('[-,]', possible)[-1])
    return max(10, 2 * (last + 1))


def dmesg() -> str:
    return subprocess.run(['dmesg'], capture_output=True, text=True, check=False).stdout


def check_boot_events(tap: Tap) -> None:
    names = ('kprobe_event=: the event is defined',
             'kprobe_event=: it is enabled in the top instance from boot',
             'kprobe_event=: it recorded the boot\'s opens',
             'kprobe_event=: a definition that fails is left out, with its warning')
    if BOOT_EVENTS not in Path('/proc/cmdline').read_text():
        for name in names:
            tap.skip(name, 'booted without the kprobe test\'s kprobe_event=')
        return
    trace = tracefs()
    listing = (trace / 'kprobe_events').read_text()
    tap.check(f'p:{BOOT_GROUP}/open do_sys_openat2 dfd=%di:s32\n' in listing,
              names[0], listing)
    enable = trace / 'events' / BOOT_GROUP / 'open' / 'enable'
    state = enable.read_text().strip() if enable.exists() else '(no such event)'
    tap.marked('boot_event_enabled', state == '1', names[1], state)
    records = (trace / 'trace').read_text(errors='replace')
    pattern = re.compile(rf' open: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) dfd={AT_FDCWD}$',
                         re.MULTILINE)
    tap.check(pattern.search(records) is not None, names[2], records[-2000:])
    warning = (f'Failed to add event(-{ENOENT}): p:{BOOT_GROUP}/bad '
               f'kfork_no_such_function')
    log = dmesg()
    tap.check(f'/bad ' not in listing and warning in log, names[3],
              listing + '\n'.join(line for line in log.splitlines() if 'trace_kprobe' in line))
    # the other suites start from no events
    write(enable, '0', append=False)
    write(trace / 'kprobe_events', f'-:{BOOT_GROUP}/open')


def parent_pid() -> int:
    """Our parent's pid as /proc says it (stat's fourth field), not
    through getppid(2)."""
    stat = Path('/proc/self/stat').read_text()
    return int(stat[stat.rindex(')') + 2:].split()[1])


def check_bpf_verdicts(tap: Tap) -> None:
    """A BPF program on the perf event of a kprobe event at a function's
    entry: the event counts the hits of this process the program passes
    (returns non-zero) and no other, so 0 under a program returning 0
    and BPF_CALLS under one returning 1; and the function runs as it
    would unprobed: the kprobe core steps over the probe unless the
    program moved the instruction pointer (bpf_override_return()),
    which these do not."""
    trace = tracefs()
    events = trace / 'kprobe_events'
    err = write(events, f'p:{BPF_EVENT} {BPF_FUNCTION}')
    if not tap.check(err is None, f'{BPF_EVENT}: defined on {BPF_FUNCTION}', err or ''):
        return
    event_id = int((trace / 'events' / BPF_EVENT / 'id').read_text())
    parent = parent_pid()
    for verdict, want in ((0, 0), (1, BPF_CALLS)):
        fd = perf_event.open_tracepoint(event_id, os.getpid())
        prog = perf_event.load_verdict_program(verdict)
        try:
            perf_event.set_bpf(fd, prog)
            returned = [os.getppid() for _ in range(BPF_CALLS)]
            got = perf_event.count(fd)
        finally:
            os.close(fd)
            os.close(prog)
        tap.check(got == want and returned == [parent] * BPF_CALLS,
                  f'{BPF_EVENT}: a program returning {verdict}: perf counts {want} of '
                  f'{BPF_CALLS} calls, each returning the parent\'s pid',
                  f'counted {got}, returned {returned}, parent {parent}')
    err = write(events, f'-:{BPF_EVENT}')
    tap.check(err is None, f'{BPF_EVENT}: removed', err or '')


def check_gen_test(tap: Tap) -> None:
    trace = tracefs()
    loaded = subprocess.run(['modprobe', GEN_MODULE], capture_output=True, text=True,
                            check=False)
    if not tap.check(loaded.returncode == 0, f'{GEN_MODULE} loads',
                     loaded.stdout + loaded.stderr):
        return
    listing = (trace / 'kprobe_events').read_text()
    wanted = (GEN_ENTRY, f'r{default_maxactive()}:{GEN_RETURN}')
    tap.check(all(f'{line}\n' in listing for line in wanted),
              f'{GEN_MODULE}: its two events as its source defines them', listing)
    states = [(trace / 'events/kprobes' / name / 'enable').read_text().strip()
              for name in ('gen_kprobe_test', 'gen_kretprobe_test')]
    tap.check(states == ['1', '1'], f'{GEN_MODULE}: both enabled', str(states))

    # x86-64 has no unnamed type: an argument without one is u64
    fields = {'gen_kprobe_test': ('dfd', 'filename', 'flags', 'mode'),
              'gen_kretprobe_test': ('arg1',)}
    formats = {name: (trace / 'events/kprobes' / name / 'format').read_text()
               for name in fields}
    tap.check(all(f'field:u64 {field};' in formats[name]
                  for name, names in fields.items() for field in names),
              f'{GEN_MODULE}: each argument a u64 field of its event',
              '\n'.join(formats.values()))

    unloaded = subprocess.run(['rmmod', GEN_MODULE], capture_output=True, text=True,
                              check=False)
    listing = (trace / 'kprobe_events').read_text()
    tap.check(unloaded.returncode == 0 and 'gen_k' not in listing,
              f'{GEN_MODULE} unloads and takes its events along',
              unloaded.stderr + listing)


def run_all() -> Tap:
    tap = Tap('kprobe')
    check_boot_events(tap)
    check_bpf_verdicts(tap)
    check_gen_test(tap)
    return tap


def main(argv: Sequence[str] = ()) -> int:
    try:
        tap = run_all()
    except (OSError, ValueError, subprocess.CalledProcessError) as err:
        tap = Tap('kprobe')
        tap.check(False, 'kprobe test setup', str(err))
    print('\n'.join(tap.lines()))
    return 0 if tap.ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
