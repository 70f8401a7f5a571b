"""The guest's qdisc stress test: pie, fq_pie and hhf fed from every vCPU
at once while other processes dump, change and replace them. Runs inside
a tools/vm guest (python3 -m kfork.guest_qdiscstress) and prints TAP.

tc dumps a qdisc's state without its lock while packets change it, and
a change or a replace runs beside enqueues on other CPUs. The setup: a
namespace of its own with a dummy device (no ARP, no IPv6: nothing is
sent but the senders' datagrams), HTB at the root with one class of
RATE_BITS, and the qdisc under test as its leaf, so that a queue builds
there. One sender per vCPU, pinned to it, sends datagrams of four flows
(one heavy, three light) to the discard port.

Each qdisc is tested in two phases:
- churn: the senders run for CHURN_SECONDS while one process dumps the
  qdiscs with `tc -s` in a loop and another changes each of the leaf's
  parameters in turn and now and then replaces the leaf with a new one
  (another handle). Every command must succeed.
- exact: a new leaf, each sender sends EXACT_PACKETS while the dumps go
  on; once the queue has drained, the leaf has sent or dropped every
  packet, and the xstats agree (pie and fq_pie count what they took in;
  fq_pie's memory in use is back to 0, which it is only if every
  flow's share was given back).
Across both, the root's counters account for every datagram sent: HTB
counts a drop for each packet its leaf refused or threw away (a drop, a
lower limit, a replaced leaf's queue), so sent + dropped + queued at the
root equals what the senders sent. No figure comes from a run.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple

from .churn import OK, Churn, Job, check_churns, program, run_jobs
from .guest_traffic import ns_enter, sh
from .tap import Tap

NS = 'kf-stress'
DEV = 'kfs0'
HERE, THERE = '10.77.0.1', '10.77.0.2'
DISCARD = 9
# 1 Mbit/s of 200-byte payloads (242 bytes on the wire): about 516
# packets a second, far fewer than the senders offer (2,000 to 3,000 a
# second from two vCPUs under TCG), so a queue builds and the qdiscs
# drop; a full queue of 1,000 drains in two seconds.
RATE_BITS = 1_000_000
PAYLOAD = 200
CHURN_SECONDS = 3.0
EXACT_PACKETS = 3000
# SO_SNDBUFFORCE (asm-generic/socket.h), which root may set past
# wmem_max: 4 MiB holds 4,000 of these datagrams (a truesize under 1 KiB).
SO_SNDBUFFORCE = 32
SEND_BUFFER = 4 << 20
# A round of a sender: the heavy flow's datagrams, then each light one's.
HEAVY_PER_ROUND, LIGHT_FLOWS = 8, 3


@dataclass(frozen=True)
class Qdisc:
    """A qdisc under test: its kind, the changes the churn cycles
    through (each a valid setting of one parameter, as tc-pie(8),
    tc-fq_pie(8) and tc-hhf(8) give them), and the xstats that count
    what it took in and what it dropped, if it has them."""

    kind: str
    changes: Tuple[str, ...]
    counts_in: bool = False


QDISCS = (
    Qdisc('pie', ('limit 500', 'limit 1000', 'target 5ms', 'target 15ms', 'tupdate 30ms',
                  'tupdate 15ms', 'alpha 4 beta 10', 'alpha 2 beta 20', 'ecn', 'noecn',
                  'bytemode', 'nobytemode', 'dq_rate_estimator', 'no_dq_rate_estimator'),
          counts_in=True),
    Qdisc('fq_pie', ('limit 500', 'limit 10240', 'target 5ms', 'target 15ms', 'tupdate 30ms',
                     'tupdate 15ms', 'alpha 4 beta 10', 'alpha 2 beta 20', 'quantum 3000',
                     'quantum 1514', 'memory_limit 1Mb', 'memory_limit 32Mb', 'ecn_prob 20',
                     'ecn_prob 10', 'ecn', 'noecn', 'bytemode', 'nobytemode',
                     'dq_rate_estimator', 'no_dq_rate_estimator'),
          counts_in=True),
    Qdisc('hhf', ('limit 500', 'limit 1000', 'quantum 3000', 'quantum 1514',
                  'hh_limit 100', 'hh_limit 2048', 'reset_timeout 10ms', 'reset_timeout 40ms',
                  'admit_bytes 32768', 'admit_bytes 131072', 'evict_timeout 500ms',
                  'evict_timeout 1s', 'non_hh_weight 4', 'non_hh_weight 2')),
)


def setup() -> None:
    sh('ip', 'netns', 'add', NS)
    ns_enter(NS)
    for scope in ('all', 'default'):
        sh('sysctl', '-qw', f'net.ipv6.conf.{scope}.disable_ipv6=1')
    sh('ip', 'link', 'add', DEV, 'type', 'dummy')
    sh('ip', 'addr', 'add', f'{HERE}/24', 'dev', DEV)
    sh('ip', 'link', 'set', DEV, 'up')
    sh('tc', 'qdisc', 'add', 'dev', DEV, 'root', 'handle', '1:', 'htb', 'default', '1')
    sh('tc', 'class', 'add', 'dev', DEV, 'parent', '1:', 'classid', '1:1', 'htb',
       'rate', f'{RATE_BITS}bit')


def stats() -> List[Dict[str, Any]]:
    return list(json.loads(sh('tc', '-s', '-j', 'qdisc', 'show', 'dev', DEV)))


def root() -> Dict[str, Any]:
    return next(q for q in stats() if q.get('root'))


def leaf() -> Dict[str, Any]:
    return next(q for q in stats() if q.get('parent') == '1:1')


def set_leaf(kind: str, handle: int) -> str:
    return program(['tc', 'qdisc', 'replace', 'dev', DEV, 'parent', '1:1',
                    'handle', f'{handle}:', kind])


# --- senders ------------------------------------------------------------------

def _send(cpu: int, packets: int, deadline: float,
          queue: 'multiprocessing.Queue[int]') -> None:
    """Pinned to CPU: send PACKETS datagrams, or until DEADLINE with
    PACKETS 0; put how many were sent."""
    os.sched_setaffinity(0, {cpu})
    flows = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(1 + LIGHT_FLOWS)]
    for sock in flows:
        # room for more datagrams in the qdisc than its limit: a socket
        # whose buffer is full would block, and the queue stop growing
        sock.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, SEND_BUFFER)
    schedule = [flows[0]] * HEAVY_PER_ROUND + flows[1:]
    data = bytes(PAYLOAD)
    sent = 0
    while (sent < packets) if packets else (time.monotonic() < deadline):
        sock = schedule[sent % len(schedule)]
        sock.sendto(data, (THERE, DISCARD))
        sent += 1
    queue.put(sent)


class Senders:
    """One sender process per vCPU."""

    def __init__(self, packets: int = 0, seconds: float = 0.0) -> None:
        self.queue: 'multiprocessing.Queue[int]' = multiprocessing.Queue()
        deadline = time.monotonic() + seconds
        self.processes = [multiprocessing.Process(target=_send,
                                                  args=(cpu, packets, deadline, self.queue))
                          for cpu in sorted(os.sched_getaffinity(0))]
        for process in self.processes:
            process.start()

    def wait(self) -> int:
        sent = sum(self.queue.get(timeout=600) for _ in self.processes)
        for process in self.processes:
            process.join()
        if any(p.exitcode for p in self.processes):
            raise RuntimeError(f'a sender failed: {[p.exitcode for p in self.processes]}')
        return sent


# --- what runs beside them ------------------------------------------------------

def dumper() -> Job:
    def job(deadline: float) -> Churn:
        churn = Churn('tc -s qdisc show in a loop', {f'dump: {OK}'})
        while time.monotonic() < deadline:
            done = subprocess.run(['tc', '-s', '-j', 'qdisc', 'show', 'dev', DEV],
                                  capture_output=True, text=True)
            try:
                shown = json.loads(done.stdout) if done.returncode == 0 else None
            except ValueError:
                shown = None
            churn.add('dump', OK if isinstance(shown, list) and len(shown) == 2
                      else f'status {done.returncode}: {done.stderr.strip()[:80]}')
        return churn
    return job


def changer(qdisc: Qdisc, handles: Tuple[int, int]) -> Job:
    """Each change in turn; after every round of them a replace with a
    new leaf under the other handle."""
    def job(deadline: float) -> Churn:
        churn = Churn(f'tc qdisc change of each {qdisc.kind} parameter, and replace',
                      {f'change: {OK}', f'replace: {OK}'})
        current = handles[0]
        while time.monotonic() < deadline:
            for change in qdisc.changes:
                churn.add('change', program(['tc', 'qdisc', 'change', 'dev', DEV,
                                             'parent', '1:1', 'handle', f'{current}:',
                                             qdisc.kind, *change.split()]))
            current = handles[1] if current == handles[0] else handles[0]
            churn.add('replace', set_leaf(qdisc.kind, current))
        return churn
    return job


def drained(seconds: float = 60.0) -> Dict[str, Any]:
    """The leaf once its queue is empty (RATE_BITS empties a full one in
    under a second)."""
    end = time.monotonic() + seconds
    while True:
        now = leaf()
        if now.get('qlen') == 0 or time.monotonic() > end:
            return now
        time.sleep(0.2)


def root_accounts(tap: Tap, kind: str, before: Dict[str, Any], sent: int) -> None:
    after = root()
    got = {key: after[key] - before[key] for key in ('packets', 'drops', 'qlen')}
    tap.check(got['packets'] + got['drops'] + got['qlen'] == sent,
              f'{kind}: the root accounts for every datagram: sent + dropped + queued',
              f'{got} for {sent} datagrams')


def check_qdisc(tap: Tap, qdisc: Qdisc) -> None:
    kind = qdisc.kind
    err = set_leaf(kind, 10)
    if not tap.check(err == OK, f'{kind}: leaf of the rate-limited class', err):
        return
    start = root()
    senders = Senders(seconds=CHURN_SECONDS)
    churns = run_jobs({'dump': dumper(), 'change': changer(qdisc, (10, 20))}, CHURN_SECONDS)
    sent = senders.wait()
    check_churns(tap, f'{kind} churn', churns)

    # a new leaf, and exactly EXACT_PACKETS from each sender
    err = set_leaf(kind, 30)
    tap.check(err == OK, f'{kind}: replaced for the exact phase', err)
    before = leaf()
    senders = Senders(packets=EXACT_PACKETS)
    churns = run_jobs({'dump': dumper()}, 1.0)
    exact = senders.wait()
    check_churns(tap, f'{kind} exact', churns)
    after = drained()
    sent += exact
    got = {key: after[key] - before.get(key, 0) for key in ('packets', 'drops')}
    tap.check(after['qlen'] == 0 and got['packets'] + got['drops'] == exact and got['drops'] > 0,
              f'{kind}: the leaf sent or dropped every one of {exact} datagrams, some dropped',
              f'{got}, queue {after["qlen"]}')
    # tc -j shows the xstats among the qdisc's own keys
    if qdisc.counts_in:
        took = after.get('pkts_in', -1) - before.get('pkts_in', 0) \
            + after.get('dropped', -1) - before.get('dropped', 0)
        tap.check(took == exact, f'{kind}: xstats pkts_in + dropped = datagrams', f'{after}')
    if kind == 'fq_pie':
        tap.check(after.get('memory_used') == 0,
                  'fq_pie: drained, every flow\'s memory is given back', f'{after}')
    root_accounts(tap, kind, start, sent)


def run() -> Tap:
    tap = Tap('qdiscstress')
    cpus = len(os.sched_getaffinity(0))
    tap.check(cpus >= 2, f'the guest runs on {cpus} CPUs, at least 2')
    setup()
    for qdisc in QDISCS:
        check_qdisc(tap, qdisc)
    return tap


def main(argv: Sequence[str] = ()) -> int:
    try:
        tap = run()
    except (OSError, ValueError, RuntimeError, KeyError, subprocess.SubprocessError) as err:
        tap = Tap('qdiscstress')
        tap.check(False, 'qdiscstress test setup', repr(err))
    print('\n'.join(tap.lines()))
    return 0 if tap.ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
