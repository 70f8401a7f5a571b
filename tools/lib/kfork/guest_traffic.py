"""The guest's qdisc traffic test: pie and hhf under real traffic.

Runs inside a tools/vm guest (python3 -m kfork.guest_traffic). Two
network namespaces joined by a veth pair; the sender's egress is an HTB
class at a fixed rate, so a queue builds in the qdisc under test, its
leaf. One process drives everything, each thread in its namespace
(setns): a paced UDP bulk sender offering twice the link rate, a sparse
request/response flow, an echo server, and a sampler dumping the leaf's
statistics over rtnetlink every SAMPLE_EVERY. What each algorithm
promises is checked from its own statistics, and every packet is
accounted for, by `tc -s -j` at the end, in the leaf and in HTB's root
above it. Last, each leaf's queue is cut by a lowered limit on a
stalled link, which the root must follow. Prints TAP.

The guest has one TCG CPU and a debug kernel, so the link is slow (2
Mbit/s, 173 packets/s) and every target is set against that rate.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Sequence, Tuple

from .rtnl import Qdiscs
from .tap import Tap

SND, RCV = 'kf-snd', 'kf-rcv'
SND_IP, RCV_IP, SINK_IP = '10.9.0.1', '10.9.0.2', '10.9.0.3'
SND_MAC, RCV_MAC = '02:00:00:00:00:01', '02:00:00:00:00:02'
ECHO_PORT, SINK_PORT = 7000, 9000

LINK_BITS = 2_000_000
PAYLOAD = 1400
WIRE = PAYLOAD + 8 + 20 + 14          # UDP, IPv4, Ethernet headers
LINK_PPS = LINK_BITS / 8 / WIRE       # 173.4 packets/s
OFFERED_PPS = 2 * LINK_PPS            # the bulk flow's schedule
SPARSE_EVERY = 0.05                   # seconds between requests
SPARSE_SIZE = 64

PIE_TARGET = 0.050                    # 8.7 packet times at LINK_PPS
# The ECN phase's offered load, in link rates: its drops are needed only
# a little under the 10% at which PIE starts dropping (check_pie_ecn).
ECN_LOAD = 1.06
# PIE's phase: the late half is judged, long after the controller's
# start (it reaches p = 0.5 within about a second). A delay sample is
# one packet's sojourn, so the judgement is a median of many.
PIE_SECONDS = 14
# dq_rate_estimator measures only while 16 KB is queued: 200 ms holds
# 50 KB at the link's rate.
RATE_TARGET = 0.200
PIE_LATE_SAMPLES = 50
SAMPLE_EVERY = 0.05
# check_pie's utilization: PIE drops nothing while under 2 MTU are queued
# (RFC 8033 5.1), so under overload the leaf never empties and the link
# sends at its rate. Measured between samples taken on time (the guest
# was not stalled, which stops the link too); HTB's tokens come in
# whole packets, so a tenth is left for the edges.
BUSY_LEAST = 0.9
ON_TIME = 1.5 * SAMPLE_EVERY
# A guest stall longer than this is not made up for by a burst: the
# test offers a steady overload, and a catch-up burst would be a queue
# the controller never caused. The link stalls with the guest (HTB's
# tokens stop at its burst), so the offered rate leaves such gaps out.
BULK_MAX_LAG = 0.1
DRAIN_BITS = 10_000_000_000
# check_trim's link, at which nothing but a first burst leaves, and how
# many packets it queues before trimming to one.
STALL_BITS = 8
TRIM_FILL = 20
SO_TIMESTAMPNS = 35                   # = SCM_TIMESTAMPNS, asm-generic/socket.h
TIMESPEC = struct.Struct('=qq')       # struct timespec on x86-64
HHF_ADMIT = 20000                     # bytes per 40 ms reset period
HHF_RESET = 0.040


def arrival_stamp(ancillary: List[Tuple[int, int, bytes]]) -> float:
    """The CLOCK_REALTIME second at which the kernel took a datagram in,
    from recvmsg's control messages (SO_TIMESTAMPNS on)."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            sec, nsec = TIMESPEC.unpack(data[:TIMESPEC.size])
            stamp: float = sec + nsec / 1e9
            return stamp
    raise RuntimeError('a datagram came without its arrival stamp')


def ns_enter(name: str) -> None:
    """Move the calling thread into network namespace NAME."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f'/run/netns/{name}', os.O_RDONLY)
    try:
        if libc.setns(fd, 0x40000000) != 0:     # CLONE_NEWNET
            err = ctypes.get_errno()
            raise OSError(err, f'setns {name}: {os.strerror(err)}')
    finally:
        os.close(fd)


def sh(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f'{" ".join(argv)}: {done.stderr.strip()}')
    return done.stdout


def setup_network() -> None:
    """Two namespaces, a veth pair, nothing on the wire but our flows:
    no IPv6 (no ND, MLD or router solicitations), static neighbours (no
    ARP). Bulk packets go to SINK_IP, which the receiver blackholes, so
    they cost no socket and raise no ICMP."""
    for ns in (SND, RCV):
        sh('ip', 'netns', 'add', ns)
        for scope in ('all', 'default'):
            sh('ip', 'netns', 'exec', ns, 'sysctl', '-qw',
               f'net.ipv6.conf.{scope}.disable_ipv6=1')
    sh('ip', 'link', 'add', 'v-snd', 'address', SND_MAC, 'netns', SND, 'type', 'veth',
       'peer', 'name', 'v-rcv', 'address', RCV_MAC, 'netns', RCV)
    for ns, dev, ip in ((SND, 'v-snd', SND_IP), (RCV, 'v-rcv', RCV_IP)):
        sh('ip', '-n', ns, 'addr', 'add', f'{ip}/24', 'dev', dev)
        sh('ip', '-n', ns, 'link', 'set', dev, 'up')
    for ip in (RCV_IP, SINK_IP):
        sh('ip', '-n', SND, 'neigh', 'replace', ip, 'lladdr', RCV_MAC, 'dev', 'v-snd',
           'nud', 'permanent')
    sh('ip', '-n', RCV, 'neigh', 'replace', SND_IP, 'lladdr', SND_MAC, 'dev', 'v-rcv',
       'nud', 'permanent')
    sh('ip', '-n', RCV, 'route', 'add', 'blackhole', f'{SINK_IP}/32')
    sh('tc', '-n', SND, 'qdisc', 'add', 'dev', 'v-snd', 'root', 'handle', '1:', 'htb',
       'default', '1')
    sh('tc', '-n', SND, 'class', 'add', 'dev', 'v-snd', 'parent', '1:', 'classid', '1:1',
       'htb', 'rate', f'{LINK_BITS}bit')


def set_rate(bits: int) -> None:
    sh('tc', '-n', SND, 'class', 'change', 'dev', 'v-snd', 'parent', '1:', 'classid', '1:1',
       'htb', 'rate', f'{bits}bit')


def set_leaf(*qdisc: str) -> None:
    """The qdisc under test as the HTB class's leaf, with fresh counters."""
    subprocess.run(['tc', '-n', SND, 'qdisc', 'del', 'dev', 'v-snd', 'parent', '1:1'],
                   capture_output=True)
    set_rate(LINK_BITS)
    sh('tc', '-n', SND, 'qdisc', 'add', 'dev', 'v-snd', 'parent', '1:1', 'handle', '10:',
       *qdisc)


def qdisc_stats(where: str, value: Any) -> Dict[str, Any]:
    """tc -s -j's entry for the qdisc whose WHERE key is VALUE."""
    for q in json.loads(sh('tc', '-n', SND, '-s', '-j', 'qdisc', 'show', 'dev', 'v-snd')):
        if q.get(where) == value:
            return dict(q)
    raise RuntimeError(f'no qdisc with {where} {value}')


def leaf_stats() -> Dict[str, Any]:
    return qdisc_stats('parent', '1:1')


def root_stats() -> Dict[str, Any]:
    return qdisc_stats('root', True)


def drained_stats() -> Dict[str, Any]:
    """The leaf's counters once it is empty. A dump takes qlen before the
    sent counters, so while the leaf still dequeues a packet can count
    as both queued and sent: open the link and wait for the queue to
    empty first."""
    set_rate(DRAIN_BITS)
    deadline = time.monotonic() + 10
    while True:
        q = leaf_stats()
        if q['qlen'] == 0 or time.monotonic() > deadline:
            return q
        time.sleep(0.1)


@dataclass
class Flows:
    """What one run offers the leaf besides the sparse flow: `bulk` paced
    UDP flows sharing `offered_pps`, ECN-capable if `tos` says so, to the
    blackholed sink or, if `measured`, to a receiver that takes each
    packet's one-way delay from the send time it carries."""

    sparse: bool = True
    bulk: int = 1
    offered_pps: float = OFFERED_PPS
    tos: int = 0
    measured: bool = False


@dataclass
class Phase:
    """What one run of the flows saw."""

    seconds: float
    bulk_sent: int = 0
    bulk_elapsed: float = 0.0
    # the longest any bulk flow went without running for BULK_MAX_LAG
    bulk_stalled: float = 0.0
    sparse_sent: int = 0
    rtts: List[float] = field(default_factory=list)
    lost: int = 0
    samples: List[Dict[str, Any]] = field(default_factory=list)   # with 't'
    # measured flows: per flow, (arrival since start, one-way delay)
    delays: Dict[int, List[Tuple[float, float]]] = field(default_factory=dict)
    final: Dict[str, Any] = field(default_factory=dict)
    # The HTB root's counters before the flows and once the leaf drained.
    root_start: Dict[str, Any] = field(default_factory=dict)
    root_final: Dict[str, Any] = field(default_factory=dict)
    errors: List[str] = field(default_factory=list)
    # Open until the final counters are read: a late echo reply to a
    # closed socket would make the sender answer with an ICMP port
    # unreachable, one packet through the leaf that no flow sent.
    sockets: List[socket.socket] = field(default_factory=list)

    def udp(self) -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sockets.append(s)
        return s

    @property
    def offered_pps(self) -> float:
        """Bulk packets per second while the guest ran: a sender merely
        late still counts against it, one that did not run at all (the
        link did not either) does not."""
        running = self.bulk_elapsed - self.bulk_stalled
        return self.bulk_sent / running if running > 0 else 0.0

    def late(self) -> List[Dict[str, Any]]:
        """Samples from the second half, after the controller's start."""
        return [s for s in self.samples if s['t'] >= self.seconds / 2]


def _thread(phase: Phase, ns: str, body: Callable[[], None]) -> threading.Thread:
    def run() -> None:
        try:
            ns_enter(ns)
            body()
        except Exception as err:   # reported as a failed case, not a traceback
            phase.errors.append(f'{body.__name__}: {err!r}')
    return threading.Thread(target=run, name=body.__name__)


def run_phase(seconds: float, flows: Flows) -> Phase:
    phase = Phase(seconds, root_start=root_stats())
    stop = threading.Event()
    ready = threading.Event()
    receiving = threading.Event()

    def bulk_flow(flow: int) -> Callable[[], None]:
        def bulk() -> None:
            s = phase.udp()
            # Room for the whole queue: the qdisc, not the socket, drops.
            s.setsockopt(socket.SOL_SOCKET, 32, 8 << 20)     # SO_SNDBUFFORCE
            if flows.tos:
                s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, flows.tos)
            dest = (RCV_IP if flows.measured else SINK_IP, SINK_PORT + flow)
            if flows.measured:
                receiving.wait(5)
            pad = bytes(PAYLOAD - 8)
            every = flows.bulk / flows.offered_pps
            start = time.monotonic()
            due = last = start
            stalled = 0.0
            while not stop.is_set():
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                sent = time.monotonic()
                s.sendto(struct.pack('=d', time.time()) + pad, dest)
                phase.bulk_sent += 1
                if sent - last > BULK_MAX_LAG:
                    stalled += sent - last - every
                last = sent
                due = max(due, now - BULK_MAX_LAG) + every
            phase.bulk_elapsed = max(phase.bulk_elapsed, time.monotonic() - start)
            phase.bulk_stalled = max(phase.bulk_stalled, stalled)
        return bulk

    def receiver() -> None:
        """One socket per measured flow. A packet's delay is the
        kernel's arrival stamp less the send time it carries, both
        CLOCK_REALTIME, one clock in both namespaces: how late this
        thread reads it is left out."""
        socks = []
        for flow in range(flows.bulk):
            s = phase.udp()
            s.bind((RCV_IP, SINK_PORT + flow))
            s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            s.setblocking(False)
            socks.append(s)
            phase.delays[flow] = []
        receiving.set()
        while not stop.is_set():
            for r in select.select(socks, [], [], 0.2)[0]:
                data, ancillary, _, _ = r.recvmsg(2048, socket.CMSG_SPACE(TIMESPEC.size))
                arrived = arrival_stamp(ancillary)
                flow = r.getsockname()[1] - SINK_PORT
                phase.delays[flow].append((time.monotonic() - start,
                                           arrived - struct.unpack_from('=d', data)[0]))

    def echo() -> None:
        s = phase.udp()
        s.bind((RCV_IP, ECHO_PORT))
        s.settimeout(0.2)
        ready.set()
        while not stop.is_set():
            try:
                data, peer = s.recvfrom(2048)
            except socket.timeout:
                continue
            s.sendto(data, peer)

    def requests() -> None:
        s = phase.udp()
        s.settimeout(2.0)
        ready.wait(5)
        seq = 0
        while not stop.is_set():
            seq += 1
            sent = time.monotonic()
            s.sendto(seq.to_bytes(8, 'big') + bytes(SPARSE_SIZE - 8), (RCV_IP, ECHO_PORT))
            phase.sparse_sent += 1
            try:
                while int.from_bytes(s.recv(2048)[:8], 'big') != seq:
                    pass
                phase.rtts.append(time.monotonic() - sent)
            except socket.timeout:
                phase.lost += 1
            time.sleep(SPARSE_EVERY)

    def sampler() -> None:
        qdiscs = Qdiscs()
        leaf = socket.if_nametoindex('v-snd'), 0x10001     # 1:1
        try:
            while not stop.wait(SAMPLE_EVERY):
                sample = qdiscs.find(*leaf)
                sample['t'] = time.monotonic() - start
                phase.samples.append(sample)
        finally:
            qdiscs.close()

    threads = [_thread(phase, SND, bulk_flow(f)) for f in range(flows.bulk)]
    threads.append(_thread(phase, SND, sampler))
    if flows.measured:
        threads.append(_thread(phase, RCV, receiver))
    if flows.sparse:
        threads += [_thread(phase, RCV, echo), _thread(phase, SND, requests)]
    start = time.monotonic()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    phase.final = drained_stats()
    phase.root_final = root_stats()
    for s in phase.sockets:
        s.close()
    return phase


def counters_add_up(tap: Tap, name: str, phase: Phase) -> None:
    """Every packet the senders handed to the stack reached the leaf (the
    only traffic on the wire) and was sent, dropped or is still queued."""
    arrived = phase.bulk_sent + phase.sparse_sent
    q = phase.final
    accounted = q['packets'] + q['drops'] + q['qlen']
    tap.check(arrived == accounted, f'{name}: packets in = sent + dropped + queued',
              f'in {arrived} (bulk {phase.bulk_sent}, sparse {phase.sparse_sent}); '
              f'sent {q["packets"]} dropped {q["drops"]} queued {q["qlen"]}')
    root_agrees(tap, name, phase)


def root_agrees(tap: Tap, name: str, phase: Phase) -> None:
    """A leaf that drops a packet other than the one it was handed, and
    says it took that one, must take the drop off its parents' counts
    (qdisc_tree_reduce_backlog()): else HTB's root keeps a packet the
    leaf no longer has. The root's counts are taken as they changed in
    the phase, so that one phase's error does not fail the next."""
    q, root, start = phase.final, phase.root_final, phase.root_start
    queued, dropped = root['qlen'] - start['qlen'], root['drops'] - start['drops']
    tap.check(queued == q['qlen'] and dropped == q['drops'],
              f'{name}: the HTB root counts what its leaf queued and dropped',
              f'root queued {queued}, dropped {dropped}; '
              f'leaf queued {q["qlen"]}, dropped {q["drops"]}')


def overloaded(tap: Tap, name: str, phase: Phase, least: float = 1.3) -> bool:
    """The test means something only if the bulk flow outran the link
    (by `least` times its rate)."""
    return tap.check(phase.offered_pps > least * LINK_PPS,
                     f'{name}: bulk flow overloads the link',
                     f'offered {phase.offered_pps:.0f} packets/s, link {LINK_PPS:.0f} '
                     f'(guest stalled {phase.bulk_stalled:.2f} of '
                     f'{phase.bulk_elapsed:.2f} s): the guest is too slow to load it')


def quartiles(values: List[float]) -> str:
    """min, quartiles and max, to show a spread in one line."""
    if len(values) < 2:
        return str(values)
    q1, q2, q3 = statistics.quantiles(values, n=4)
    return '/'.join(f'{v:.3g}' for v in (min(values), q1, q2, q3, max(values)))


def late_utilization(late: List[Dict[str, Any]]) -> float:
    """Bytes the leaf sent between consecutive samples taken on time,
    over the link's bytes in the same time; 0 without such samples."""
    sent, spent = 0, 0.0
    for before, after in zip(late, late[1:]):
        if after['t'] - before['t'] <= ON_TIME:
            sent += after['bytes'] - before['bytes']
            spent += after['t'] - before['t']
    return sent * 8 / (LINK_BITS * spent) if spent else 0.0


def check_pie(tap: Tap, phase: Phase) -> None:
    """RFC 8033: while the queueing delay is above target the drop
    probability rises; it settles where the drops hold the delay near
    target. An unresponsive flow offered at twice the link needs half
    its packets dropped, so p cannot stay near zero."""
    tap.check(not phase.errors, 'pie: flows ran', '\n'.join(phase.errors))
    if not overloaded(tap, 'pie', phase):
        return
    late = phase.late()
    probs = [float(s['prob']) for s in late]
    delays = [s['delay'] / 1e6 for s in late]
    tap.check(bool(probs) and max(probs) > 0.1, 'pie: drop probability rises under overload',
              f'late prob {quartiles(probs)}')
    busy = late_utilization(late)
    tap.check(busy >= BUSY_LEAST, 'pie: the link stays busy (PIE never drops the last 2 MTU)',
              f'late departures at {busy:.2f} of the link rate, while the guest ran; '
              f'at least {BUSY_LEAST}')
    # The reported delay is one packet's sojourn: allow a factor of two
    # around target. An uncontrolled queue would grow by 173 packets
    # (1 s) every second, far outside this band.
    median = statistics.median(delays) if len(delays) >= PIE_LATE_SAMPLES else -1.0
    tap.note(f'pie: offered {phase.offered_pps:.0f} packets/s on a {LINK_PPS:.0f} packets/s '
             f'link; {len(late)} late samples; prob {quartiles(probs)}; '
             f'delay (ms) {quartiles([d * 1e3 for d in delays])}')
    tap.check(PIE_TARGET / 2 <= median <= 2 * PIE_TARGET,
              'pie: queueing delay settles near target',
              f'target {PIE_TARGET * 1e3:.0f} ms, late median {median * 1e3:.1f} ms '
              f'(-1: fewer than {PIE_LATE_SAMPLES} samples); '
              f'{len(delays)} samples (ms) {quartiles([d * 1e3 for d in delays])}')
    q = phase.final
    tap.check(q['pkts_in'] == q['packets'] + q['qlen'],
              'pie: pkts_in = sent + queued (every enqueued packet)',
              f'pkts_in {q["pkts_in"]} sent {q["packets"]} queued {q["qlen"]}')
    tap.check(q['dropped'] == q['drops'], 'pie: xstats dropped = qdisc drops',
              f'{q["dropped"]} vs {q["drops"]}')
    counters_add_up(tap, 'pie', phase)


def check_hhf(tap: Tap, phase: Phase) -> None:
    """The bulk flow sends about 2 * 173 * 1442 * 0.04 = 20 KB per reset
    period, above admit_bytes at its own rate and more so in bursts; the
    sparse flow sends 64 bytes every 50 ms, under 100 bytes per period.
    Only two flows cross the qdisc, so exactly one heavy hitter ever
    (tc -j calls hh_tot_count tot_hh, hh_cur_count cur_hh)."""
    tap.check(not phase.errors, 'hhf: flows ran', '\n'.join(phase.errors))
    if not overloaded(tap, 'hhf', phase):
        return
    last = phase.samples[-1] if phase.samples else {}
    tap.check(last.get('tot_hh') == 1, 'hhf: the bulk flow is the one heavy hitter',
              f'hh_tot_count {last.get("tot_hh")}')
    tap.check(last.get('cur_hh') == 1, 'hhf: and it is still one while it sends',
              f'hh_cur_count {last.get("cur_hh")}')
    tap.check(phase.final.get('tot_hh') == 1, 'hhf: the sparse flow is never one',
              f'hh_tot_count at the end {phase.final.get("tot_hh")}')
    # The heavy-hitter bucket holds the bulk backlog; it drains at the
    # link rate, so its queueing delay is backlog / link bytes per second.
    bulk_delay = statistics.mean(s['backlog'] / (LINK_BITS / 8) for s in phase.late())
    rtt = statistics.median(phase.rtts) if phase.rtts else float('inf')
    tap.note(f'hhf: sparse median RTT {rtt * 1e3:.1f} ms over {len(phase.rtts)} requests; '
             f'bulk queueing delay {bulk_delay * 1e3:.0f} ms')
    tap.check(rtt < bulk_delay / 10, 'hhf: sparse round trip far below the bulk delay',
              f'sparse median RTT {rtt * 1e3:.1f} ms, bulk queueing delay '
              f'{bulk_delay * 1e3:.0f} ms')
    tap.check(phase.lost == 0, 'hhf: no sparse request lost (overflow drops heavy hitters)',
              f'{phase.lost} of {phase.sparse_sent} lost')
    q = phase.final
    tap.check(q['drop_overlimit'] == q['drops'], 'hhf: drop_overlimit = qdisc drops',
              f'{q["drop_overlimit"]} vs {q["drops"]}')
    counters_add_up(tap, 'hhf', phase)


def in_sender(body: Callable[[Phase], None]) -> None:
    """BODY, in a thread in the sender's namespace, given a phase to
    open its sockets with; they are closed after it, and what went wrong
    in it is raised here."""
    phase = Phase(0.0)
    t = _thread(phase, SND, lambda: body(phase))
    t.start()
    t.join()
    for s in phase.sockets:
        s.close()
    if phase.errors:
        raise RuntimeError('; '.join(phase.errors))


def fill_leaf(packets: int) -> None:
    """PACKETS bulk-sized datagrams from the sender, into the leaf."""
    def fill(phase: Phase) -> None:
        s = phase.udp()
        for _ in range(packets):
            s.sendto(bytes(PAYLOAD), (SINK_IP, SINK_PORT))

    in_sender(fill)


# check_hhf_exact's flow: datagrams of one byte are 1 + 8 + 20 + 14 = 43
# bytes at the qdisc, and at HHF's default admit_bytes of 131072 the
# 3048th leaves the flow at 131064 bytes, the 3049th takes it past.
EXACT_PAYLOAD = 1
EXACT_ADMIT = 131072
EXACT_HEAVY_AT = EXACT_ADMIT // (EXACT_PAYLOAD + 8 + 20 + 14) + 1


def check_hhf_exact(tap: Tap) -> None:
    """HHF counts a flow's bytes exactly, as upstream does: a flow of
    43-byte frames becomes a heavy hitter with its 3049th frame, not
    before and not after (a filter counting lengths rounded up to 4
    bytes took it with its 2979th). One flow, one socket, a long period,
    an open link; each frame is classified before its sendto returns."""
    set_leaf('hhf', 'admit_bytes', str(EXACT_ADMIT), 'reset_timeout', '60s',
             'evict_timeout', '60s')
    set_rate(DRAIN_BITS)
    heavy: List[Any] = []

    def flow(phase: Phase) -> None:
        s = phase.udp()
        for sent in (EXACT_HEAVY_AT - 1, 1):
            for _ in range(sent):
                s.sendto(bytes(EXACT_PAYLOAD), (SINK_IP, SINK_PORT))
            heavy.append(leaf_stats().get('tot_hh'))

    in_sender(flow)
    tap.check(heavy == [0, 1],
              f'hhf: 43-byte frames make a heavy hitter with the {EXACT_HEAVY_AT}th, exactly',
              f'hh_tot_count after {EXACT_HEAVY_AT - 1} frames and after one more: {heavy}')


def check_trim(tap: Tap, kind: str) -> None:
    """A lowered limit drops packets from a full queue at once, and the
    HTB root above, which counted them in, must lose them too
    (qdisc_tree_reduce_backlog(), by packets and by bytes). The link
    stalled, nothing leaves meanwhile: the root holds exactly what its
    leaf holds."""
    set_leaf(kind)
    set_rate(STALL_BITS)
    fill_leaf(TRIM_FILL)
    leaf0, root0 = leaf_stats(), root_stats()
    sh('tc', '-n', SND, 'qdisc', 'change', 'dev', 'v-snd', 'parent', '1:1', 'handle', '10:',
       kind, 'limit', '1')
    leaf, root = leaf_stats(), root_stats()
    trimmed = (leaf0['qlen'] - leaf['qlen'], leaf0['backlog'] - leaf['backlog'])
    followed = (root0['qlen'] - root['qlen'], root0['backlog'] - root['backlog'])
    tap.check(leaf0['qlen'] > 1 and leaf['qlen'] == 1 and followed == trimmed,
              f'{kind}: limit 1 trims the queue, and the HTB root by as much',
              f'leaf queued {leaf0["qlen"]} packets, then {leaf["qlen"]}: '
              f'{trimmed[0]} packets, {trimmed[1]} bytes trimmed; the root lost '
              f'{followed[0]} packets, {followed[1]} bytes')
    set_rate(DRAIN_BITS)


def median_near_target(tap: Tap, name: str, what: str, values: List[float],
                       target: float = PIE_TARGET) -> None:
    """A median of delays within a factor of two of the target."""
    median = statistics.median(values) if len(values) >= PIE_LATE_SAMPLES else -1.0
    tap.check(target / 2 <= median <= 2 * target, f'{name}: {what} settles near target',
              f'target {target * 1e3:.0f} ms, median {median * 1e3:.1f} ms '
              f'(-1: fewer than {PIE_LATE_SAMPLES} values); {len(values)} values (ms) '
              f'{quartiles([v * 1e3 for v in values])}')


def within(value: float, expected: float, factor: float) -> bool:
    return expected / factor <= value <= expected * factor


def check_pie_rate_estimator(tap: Tap, phase: Phase) -> None:
    """dq_rate_estimator: the delay is backlog / departure rate (Little's
    law), the rate an average of measurement cycles, each of 16 KB
    dequeued while 16 KB or more is queued (RATE_TARGET keeps 50 KB
    queued). The estimate must be the link's rate, the delay reported
    backlog / estimate and near target, and the burst allowance must be
    spent in this mode too, so that early drops happen.

    The estimate is kept in bytes per 64 ns tick << 8, whole units of
    61 KB/s, and its average (avg - avg / 8 + sample / 8, in integers)
    cannot move while both are under 8 units (3.9 Mbit/s): at the rates
    a TCG guest can load, it cannot follow a change of the link's rate
    on either build, so that is not tested here."""
    name = 'pie dq_rate_estimator'
    tap.check(not phase.errors, f'{name}: flows ran', '\n'.join(phase.errors))
    if not overloaded(tap, name, phase):
        return
    q = phase.final
    tap.check(q['dropped'] > 0 and q['overlimit'] == 0,
              f'{name}: the burst allowance is spent: early drops, none at the limit',
              f'dropped {q["dropped"]} overlimit {q["overlimit"]}')
    late = [s for s in phase.late() if s['dq_rate_estimating'] and s['avg_dq_rate']]
    rates = [float(s['avg_dq_rate']) for s in late]
    link = LINK_BITS / 8
    tap.check(bool(rates) and within(statistics.median(rates), link, 1.5),
              f'{name}: the estimated rate is the link\'s',
              f'link {link:.0f} B/s, late estimates (B/s) {quartiles(rates)}')
    ratios = [s['delay'] / 1e6 / (s['backlog'] / s['avg_dq_rate']) for s in late if s['backlog']]
    tap.check(len(ratios) >= PIE_LATE_SAMPLES and within(statistics.median(ratios), 1.0, 2.0),
              f'{name}: the delay reported is backlog / estimated rate',
              f'delay / (backlog / avg_dq_rate): {quartiles(ratios)}')
    median_near_target(tap, name, 'queueing delay', [s['delay'] / 1e6 for s in late],
                       RATE_TARGET)
    counters_add_up(tap, name, phase)


def check_pie_ecn(tap: Tap, phase: Phase) -> None:
    """ecn with ECN-capable traffic: while p is at most 10% packets are
    marked instead of dropped (RFC 8033 section 5.1). Marks do not slow
    an unresponsive flow, so one offered ECN_LOAD times the link keeps
    the queue growing until p passes 10%, where packets are dropped.
    The flow needs only 1 - 1/ECN_LOAD = 5.7% of its packets gone, so
    drops at p over 10% drain the queue, p falls back under 10%, and
    marking resumes: p swings across the threshold, and both happen
    again and again, not only while p first rises."""
    name = 'pie ecn'
    tap.check(not phase.errors, f'{name}: flows ran', '\n'.join(phase.errors))
    if not overloaded(tap, name, phase, least=1.03):
        return
    q = phase.final
    probs = [float(s['prob']) for s in phase.samples]
    tap.note(f'{name}: offered {phase.offered_pps:.0f} packets/s (stalled '
             f'{phase.bulk_stalled:.2f} s); {q["ecn_mark"]} marked, {q["dropped"]} dropped '
             f'of {q["pkts_in"]} taken in; prob {quartiles(probs)}')
    tap.check(q['ecn_mark'] > 0, f'{name}: ECN-capable packets are marked',
              f'ecn_mark {q["ecn_mark"]}')
    tap.check(bool(probs) and max(probs) > 0.1 and q['dropped'] > 0,
              f'{name}: and dropped once p is over 10%',
              f'dropped {q["dropped"]}, prob {quartiles(probs)}')
    tap.check(q['pkts_in'] == q['packets'] + q['qlen'],
              f'{name}: marked packets are sent (pkts_in = sent + queued)',
              f'pkts_in {q["pkts_in"]} sent {q["packets"]} queued {q["qlen"]}')
    counters_add_up(tap, name, phase)


def check_fq_pie(tap: Tap, phase: Phase) -> None:
    """fq_pie, one PIE controller per flow on the fork's controller: two
    bulk flows, each offered the link's rate and given half of it, each
    held near target by its own p; the sparse flow queues behind
    neither and loses nothing."""
    name = 'fq_pie'
    tap.check(not phase.errors, f'{name}: flows ran', '\n'.join(phase.errors))
    if not overloaded(tap, name, phase):
        return
    for flow, seen in sorted(phase.delays.items()):
        median_near_target(tap, name, f'bulk flow {flow}\'s one-way delay',
                           [d for t, d in seen if t >= phase.seconds / 2])
    rtt = statistics.median(phase.rtts) if phase.rtts else float('inf')
    medians = [statistics.median(d for _, d in seen) * 1e3 if seen else -1.0
               for _, seen in sorted(phase.delays.items())]
    tap.note(f'{name}: bulk flows\' median one-way delays (ms) '
             f'{", ".join(f"{m:.1f}" for m in medians)}; sparse median RTT {rtt * 1e3:.1f} ms')
    tap.check(rtt < PIE_TARGET / 2 and phase.lost == 0,
              f'{name}: the sparse flow is untouched',
              f'median RTT {rtt * 1e3:.1f} ms (target {PIE_TARGET * 1e3:.0f} ms) over '
              f'{len(phase.rtts)} requests, {phase.lost} lost')
    q = phase.final
    tap.check(q['dropped'] > 0, f'{name}: the bulk flows are dropped', f'dropped {q["dropped"]}')
    counters_add_up(tap, name, phase)


def run() -> Tap:
    tap = Tap('traffic')
    setup_network()
    target = f'{int(PIE_TARGET * 1000)}ms'
    set_leaf('pie', 'target', target)
    check_pie(tap, run_phase(PIE_SECONDS, Flows()))
    set_leaf('pie', 'target', f'{int(RATE_TARGET * 1000)}ms', 'dq_rate_estimator')
    check_pie_rate_estimator(tap, run_phase(PIE_SECONDS, Flows(sparse=False)))
    set_leaf('pie', 'target', target, 'ecn')
    check_pie_ecn(tap, run_phase(PIE_SECONDS, Flows(sparse=False,
                                                    offered_pps=ECN_LOAD * LINK_PPS,
                                                    tos=0x02)))     # ECT(0)
    set_leaf('fq_pie', 'target', target)
    check_fq_pie(tap, run_phase(PIE_SECONDS, Flows(bulk=2, measured=True)))
    set_leaf('hhf', 'admit_bytes', str(HHF_ADMIT))
    check_hhf(tap, run_phase(8, Flows()))
    check_hhf_exact(tap)
    for kind in ('pie', 'hhf'):
        check_trim(tap, kind)
    return tap


def main(argv: Sequence[str] = ()) -> int:
    sys.setswitchinterval(0.001)    # short GIL slices: RTTs measure the net
    try:
        tap = run()
    except (OSError, RuntimeError, ValueError, KeyError) as err:
        tap = Tap('traffic')
        tap.check(False, 'traffic test setup', repr(err))
    print('\n'.join(tap.lines()))
    return 0 if tap.ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
