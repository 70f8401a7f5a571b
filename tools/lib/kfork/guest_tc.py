"""The guest's tc parity suite: pie, fq_pie and hhf through the machine's tc.

Runs inside a tools/vm guest (python3 -m kfork.guest_tc). Each qdisc is
put on a dummy device in a namespace of its own and walked through its
options with `tc qdisc add`, `change` and `replace`, one option at a
time; after each step `tc qdisc show` must list exactly the options
worked out from the commands so far (the values tc was given, in tc's
own units, times kept in jiffies rounded up to the guest's tick), and
after a few datagrams `tc -s qdisc show` must count them to the byte.

Both builds must also print the same bytes: each step's output is
hashed into a note 'kfork-diff: tc.QDISC.STEP HASH', and `tools/vm
compare` fails on any hash that differs between the builds. The
qdisc handle is left out of the hash (it counts qdiscs created since
boot), and so is pie's measured queueing delay (a timing).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import socket
import subprocess
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

from .guest_traffic import ns_enter, sh
from .tap import Tap

NS, DEV = 'kf-tc', 'kf-d0'
SRC_IP, DST_IP = '10.8.0.1', '10.8.0.2'
FLAGS = ('ecn', 'bytemode', 'dq_rate_estimator')

# Three datagrams of 100 bytes: 100 + 8 (UDP) + 20 (IPv4) + 14 (Ethernet)
# = 142 bytes each on the dummy device, 426 in all.
DATAGRAMS, PAYLOAD = 3, 100
WIRE_BYTES = DATAGRAMS * (PAYLOAD + 8 + 20 + 14)

# A dummy device's MTU is 1500; a quantum taken from the device is the
# MTU plus its 14-byte Ethernet header.
DEV_QUANTUM = '1514b'

Options = Dict[str, Union[str, bool]]


def tc_time(usecs: int) -> str:
    """A time as tc prints it (iproute2's print_time): seconds or
    milliseconds to three significant digits (%.3g: 1500 us is '1.5ms'),
    else whole microseconds."""
    if usecs >= 1_000_000:
        return f'{usecs / 1_000_000:.3g}s'
    if usecs >= 1000:
        return f'{usecs / 1000:.3g}ms'
    return f'{usecs}us'


def in_jiffies(usecs: int, hz: int) -> str:
    """A time the kernel keeps in jiffies (usecs_to_jiffies rounds up)
    and reports back in microseconds: a whole number of ticks."""
    tick = 1_000_000 // hz
    return tc_time(math.ceil(usecs / tick) * tick)


@dataclass(frozen=True)
class Step:
    """One tc command and the options `tc qdisc show` lists after it."""
    name: str
    command: str
    options: Options
    fails_with: str = ''
    # kunit/project-behaviour's guest.tc.MARKED, where what shows is the
    # fork's by design: no digest for tools/vm compare
    marked: str = ''


Change = Tuple[str, str, Options]


def walk(qdisc: str, defaults: Options, changes: Sequence[Change]) -> List[Step]:
    """Add QDISC with its defaults, then each change in turn: tc's
    'change' touches only the options it names (False: the flag goes)."""
    opts = dict(defaults)
    steps = [Step('add with the defaults', f'add root {qdisc}', dict(opts))]
    for name, command, changed in changes:
        for key, value in changed.items():
            if value is False:
                opts.pop(key, None)
            else:
                opts[key] = value
        steps.append(Step(name, f'change root {qdisc} {command}', dict(opts)))
    return steps


def pie_steps(hz: int) -> List[Step]:
    """The distro's defaults (include/net/pie.h, pie_params_init): limit
    1000 packets, target 15 ms, tupdate 15 ms in jiffies, alpha 2, beta
    20, the three flags off. alpha and beta go up to 32, what tc allows.
    A target past 4.29 s shows as given (project behaviour: upstream
    dumps its nanoseconds cut to 32 bits)."""
    steps = walk('pie', {'limit': '1000p', 'target': '15ms', 'tupdate': in_jiffies(15000, hz),
                         'alpha': '2', 'beta': '20'}, [
        ('limit', 'limit 500', {'limit': '500p'}),
        ('target in ms', 'target 5ms', {'target': '5ms'}),
        ('target in us', 'target 1500us', {'target': '1.5ms'}),
        ('tupdate, a whole number of ticks', 'tupdate 40ms',
         {'tupdate': in_jiffies(40000, hz)}),
        ('tupdate rounded up to a tick', 'tupdate 1ms', {'tupdate': in_jiffies(1000, hz)}),
        ('alpha', 'alpha 4', {'alpha': '4'}),
        ('beta', 'beta 10', {'beta': '10'}),
        ('alpha and beta at their maximum', 'alpha 32 beta 32', {'alpha': '32', 'beta': '32'}),
        ('ecn', 'ecn', {'ecn': True}),
        ('bytemode', 'bytemode', {'bytemode': True}),
        ('dq_rate_estimator', 'dq_rate_estimator', {'dq_rate_estimator': True}),
        ('noecn', 'noecn', {'ecn': False}),
        ('nobytemode no_dq_rate_estimator', 'nobytemode no_dq_rate_estimator',
         {'bytemode': False, 'dq_rate_estimator': False}),
    ])
    target = tc_time(20_000_000)
    steps.append(Step(f'target {target}, past 2^32 ns', f'change root pie target {target}',
                      {**steps[-1].options, 'target': target},
                      marked='pie_target_past_u32_ns'))
    # replace starts a new qdisc: what the command leaves out is default.
    steps.append(Step('replace with every option',
                      'replace root pie limit 2000 target 20ms tupdate 30ms alpha 1 beta 3 '
                      'ecn bytemode',
                      {'limit': '2000p', 'target': '20ms', 'tupdate': in_jiffies(30000, hz),
                       'alpha': '1', 'beta': '3', 'ecn': True, 'bytemode': True}))
    return steps


def fq_pie_steps(hz: int) -> List[Step]:
    """fq_pie's defaults (sch_fq_pie.c, fq_pie_init): limit 10240
    packets, 1024 flows, the pie defaults, quantum from the device,
    memory_limit 32 MB, ecn_prob 10%, the flags off. The number of flows
    is fixed once the qdisc exists."""
    steps = walk('fq_pie', {'limit': '10240p', 'flows': '1024', 'target': '15ms',
                            'tupdate': in_jiffies(15000, hz), 'alpha': '2', 'beta': '20',
                            'quantum': DEV_QUANTUM, 'memory_limit': '32Mb',
                            'ecn_prob': '10'}, [
        ('limit', 'limit 5000', {'limit': '5000p'}),
        ('target', 'target 5ms', {'target': '5ms'}),
        ('tupdate', 'tupdate 40ms', {'tupdate': in_jiffies(40000, hz)}),
        ('alpha and beta', 'alpha 4 beta 10', {'alpha': '4', 'beta': '10'}),
        ('quantum', 'quantum 3000', {'quantum': '3000b'}),
        ('memory_limit', 'memory_limit 16Mb', {'memory_limit': '16Mb'}),
        ('ecn_prob', 'ecn_prob 20', {'ecn_prob': '20'}),
        ('ecn', 'ecn', {'ecn': True}),
        ('bytemode', 'bytemode', {'bytemode': True}),
        ('dq_rate_estimator', 'dq_rate_estimator', {'dq_rate_estimator': True}),
        ('noecn', 'noecn', {'ecn': False}),
    ])
    steps.append(Step('flows cannot change', 'change root fq_pie flows 512',
                      steps[-1].options, fails_with='Number of flows cannot be changed'))
    return steps


def hhf_steps(hz: int) -> List[Step]:
    """hhf's defaults (sch_hhf.c, hhf_init): limit 1000 packets, quantum
    from the device, hh_limit 2048, reset_timeout 40 ms and evict_timeout
    1 s (both in jiffies), admit_bytes 128 KB, non_hh_weight 2."""
    return walk('hhf', {'limit': '1000p', 'quantum': DEV_QUANTUM, 'hh_limit': '2048',
                        'reset_timeout': in_jiffies(40000, hz), 'admit_bytes': '128Kb',
                        'evict_timeout': in_jiffies(1_000_000, hz), 'non_hh_weight': '2'}, [
        ('limit', 'limit 500', {'limit': '500p'}),
        ('quantum', 'quantum 3000', {'quantum': '3000b'}),
        ('hh_limit', 'hh_limit 100', {'hh_limit': '100'}),
        ('reset_timeout', 'reset_timeout 20ms', {'reset_timeout': in_jiffies(20000, hz)}),
        ('admit_bytes, in bytes', 'admit_bytes 65536', {'admit_bytes': '64Kb'}),
        ('evict_timeout', 'evict_timeout 500ms', {'evict_timeout': in_jiffies(500000, hz)}),
        ('non_hh_weight', 'non_hh_weight 3', {'non_hh_weight': '3'}),
    ])


def shown_options(show: str, qdisc: str) -> Optional[Options]:
    """The options of `tc qdisc show`'s line for QDISC: 'KEY VALUE'
    pairs after 'refcnt N', and the flags on their own."""
    for line in show.splitlines():
        words = line.split()
        if words[:2] != ['qdisc', qdisc] or 'refcnt' not in words:
            continue
        rest = words[words.index('refcnt') + 2:]
        options: Options = {}
        while rest:
            word = rest.pop(0)
            options[word] = True if word in FLAGS or not rest else rest.pop(0)
        return options
    return None


def normalized(text: str) -> str:
    """Output with what may differ between two correct runs left out."""
    text = re.sub(r'^(qdisc \S+) [0-9a-f]+:', r'\1 H:', text, flags=re.M)
    return re.sub(r'\bdelay \d+us', 'delay Nus', text)


def digest(text: str) -> str:
    return hashlib.sha256(normalized(text).encode()).hexdigest()[:16]


def tc(*args: str) -> 'subprocess.CompletedProcess[str]':
    return subprocess.run(['ip', 'netns', 'exec', NS, 'tc', *args],
                          capture_output=True, text=True)


def send_datagrams() -> None:
    """DATAGRAMS datagrams out of the dummy device (which drops them)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _ in range(DATAGRAMS):
            sock.sendto(b'x' * PAYLOAD, (DST_IP, 9))


def setup() -> None:
    """A namespace with only our datagrams on its dummy device: no IPv6
    (no MLD or router solicitations to count)."""
    sh('ip', 'netns', 'add', NS)
    for scope in ('all', 'default'):
        sh('ip', 'netns', 'exec', NS, 'sysctl', '-qw', f'net.ipv6.conf.{scope}.disable_ipv6=1')
    sh('ip', '-n', NS, 'link', 'add', DEV, 'type', 'dummy')
    sh('ip', '-n', NS, 'addr', 'add', f'{SRC_IP}/24', 'dev', DEV)
    sh('ip', '-n', NS, 'link', 'set', DEV, 'up')
    ns_enter(NS)


def run_step(tap: Tap, qdisc: str, number: int, step: Step) -> None:
    name = f'{qdisc}: {step.name}'
    verb, *rest = step.command.split()
    done = tc('qdisc', verb, 'dev', DEV, *rest)
    if step.fails_with:
        tap.check(done.returncode != 0 and step.fails_with in done.stderr,
                  f'{name}: refused with "{step.fails_with}"',
                  f'tc {step.command}: status {done.returncode}, {done.stderr.strip()!r}')
    elif not tap.check(done.returncode == 0, f'{name}: tc accepts it',
                       f'tc {step.command}: {done.stderr.strip()}'):
        return
    show = tc('qdisc', 'show', 'dev', DEV).stdout
    got = shown_options(show, qdisc)
    what = f'{name}: show lists the options'
    detail = f'tc {step.command}\nexpected {step.options}\nshown    {got}\n{show}'
    if step.marked:
        tap.marked(step.marked, got == step.options, what, detail)
        return
    tap.check(got == step.options, what, detail)
    tap.note(f'kfork-diff: tc.{qdisc}.{number:02d} {digest(show)}')


def check_counters(tap: Tap, qdisc: str, xstats: Dict[str, int]) -> None:
    """A few datagrams through QDISC: every byte counted, nothing lost,
    nothing left queued, and the qdisc's own counters agree."""
    send_datagrams()
    stats = tc('-s', 'qdisc', 'show', 'dev', DEV).stdout
    sent = f'Sent {WIRE_BYTES} bytes {DATAGRAMS} pkt (dropped 0, overlimits 0 requeues 0)'
    tap.check(sent in stats, f'{qdisc}: tc -s counts {DATAGRAMS} datagrams, {WIRE_BYTES} bytes',
              stats)
    tap.check('backlog 0b 0p' in stats, f'{qdisc}: tc -s shows an empty queue', stats)
    for key, value in xstats.items():
        tap.check(re.search(rf'\b{key} {value}\b', stats) is not None,
                  f'{qdisc}: tc -s xstats {key} {value}', stats)
    tap.note(f'kfork-diff: tc.{qdisc}.stats {digest(stats)}')


# What `tc -s` must show after the datagrams, from each qdisc's xstats:
# every datagram entered, none was dropped, none is a heavy hitter (426
# bytes are far below admit_bytes), pie's probability stayed 0 (the
# queue never held a packet, so its delay never passed the target).
XSTATS = {
    'pie': {'pkts_in': DATAGRAMS, 'dropped': 0, 'overlimit': 0, 'prob': 0, 'ecn_mark': 0},
    'fq_pie': {'pkts_in': DATAGRAMS, 'dropped': 0, 'overlimit': 0, 'ecn_mark': 0},
    'hhf': {'drop_overlimit': 0, 'hh_overlimit': 0, 'tot_hh': 0, 'cur_hh': 0},
}


def run(hz: int) -> Tap:
    tap = Tap('tc')
    setup()
    for qdisc, steps in (('pie', pie_steps(hz)), ('fq_pie', fq_pie_steps(hz)),
                         ('hhf', hhf_steps(hz))):
        for number, step in enumerate(steps, 1):
            run_step(tap, qdisc, number, step)
        check_counters(tap, qdisc, XSTATS[qdisc])
        done = tc('qdisc', 'del', 'dev', DEV, 'root')
        tap.check(done.returncode == 0, f'{qdisc}: tc qdisc del', done.stderr)
    return tap


def main(argv: Sequence[str] = ()) -> int:
    hz = os.environ.get('KFORK_HZ', '')
    try:
        if not hz.isdigit():
            raise ValueError('KFORK_HZ (the guest kernel\'s CONFIG_HZ) is not set')
        tap = run(int(hz))
    except (OSError, RuntimeError, ValueError) as err:
        tap = Tap('tc')
        tap.check(False, 'tc suite setup', repr(err))
    print('\n'.join(tap.lines()))
    return 0 if tap.ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
