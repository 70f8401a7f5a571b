"""Qdisc statistics over rtnetlink, without exec'ing tc.

The traffic test samples a qdisc's statistics many times a second; one
exec of tc costs about a second in a TCG guest, this a millisecond. The
socket belongs to the network namespace of the thread that opens it.
Only what the tests read is decoded, under the names `tc -s -j` prints.
"""

from __future__ import annotations

import os
import socket
import struct
from typing import Any, Dict, Iterator, List, Tuple

RTM_GETQDISC = 38
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG = struct.Struct('=IHHII')            # len, type, flags, seq, pid
TCMSG = struct.Struct('=BxxxiIII')         # family, ifindex, handle, parent, info
RTA = struct.Struct('=HH')                 # len, type
TCA_KIND, TCA_STATS2 = 1, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE, TCA_STATS_APP = 1, 3, 4

BASIC = struct.Struct('=QI')               # gnet_stats_basic: bytes, packets
QUEUE = struct.Struct('=5I')               # gnet_stats_queue
# include/uapi/linux/pkt_sched.h; tc prints pie's prob over U64_MAX.
XSTATS: Dict[str, Tuple[struct.Struct, Tuple[str, ...]]] = {
    'pie': (struct.Struct('=Q8I'), ('prob', 'delay', 'avg_dq_rate', 'dq_rate_estimating',
                                    'pkts_in', 'dropped', 'overlimit', 'maxq', 'ecn_mark')),
    'hhf': (struct.Struct('=4I'), ('drop_overlimit', 'hh_overlimit', 'tot_hh', 'cur_hh')),
    'fq_pie': (struct.Struct('=9I'), ('pkts_in', 'dropped', 'overlimit', 'overmemory',
                                      'ecn_mark', 'new_flow_count', 'new_flows_len',
                                      'old_flows_len', 'memory_usage')),
}


def _align(n: int) -> int:
    return (n + 3) & ~3


def attributes(buf: bytes) -> Iterator[Tuple[int, bytes]]:
    """(type, payload) of each netlink attribute in BUF."""
    off = 0
    while off + RTA.size <= len(buf):
        length, kind = RTA.unpack_from(buf, off)
        if length < RTA.size:
            raise ValueError(f'netlink attribute of length {length}')
        yield kind & 0x3fff, buf[off + RTA.size:off + length]   # without NLA_F_ flags
        off += _align(length)


def messages(buf: bytes) -> Iterator[Tuple[int, bytes]]:
    """(type, payload) of each netlink message in BUF."""
    off = 0
    while off + NLMSG.size <= len(buf):
        length, kind, _, _, _ = NLMSG.unpack_from(buf, off)
        if length < NLMSG.size:
            raise ValueError(f'netlink message of length {length}')
        yield kind, buf[off + NLMSG.size:off + length]
        off += _align(length)


def parse_qdisc(payload: bytes) -> Dict[str, Any]:
    """One RTM_NEWQDISC message: where it sits, its kind and statistics."""
    _, ifindex, handle, parent, _ = TCMSG.unpack_from(payload)
    q: Dict[str, Any] = {'ifindex': ifindex, 'handle': handle, 'parent': parent}
    for kind, data in attributes(payload[TCMSG.size:]):
        if kind == TCA_KIND:
            q['kind'] = data.rstrip(b'\0').decode()
        elif kind == TCA_STATS2:
            q.update(_stats(data))
    layout = XSTATS.get(q.get('kind', ''))
    if layout and 'xstats' in q:
        shape, names = layout
        q.update(zip(names, shape.unpack_from(q.pop('xstats'))))
        if q['kind'] == 'pie':
            q['prob'] /= 2.0 ** 64
    return q


def _stats(buf: bytes) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for kind, data in attributes(buf):
        if kind == TCA_STATS_BASIC:
            out['bytes'], out['packets'] = BASIC.unpack_from(data)
        elif kind == TCA_STATS_QUEUE:
            out.update(zip(('qlen', 'backlog', 'drops', 'requeues', 'overlimits'),
                           QUEUE.unpack_from(data)))
        elif kind == TCA_STATS_APP:
            out['xstats'] = data
    return out


class Qdiscs:
    """An rtnetlink socket in the calling thread's network namespace."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.seq = 0

    def close(self) -> None:
        self.sock.close()

    def dump(self) -> List[Dict[str, Any]]:
        """Every qdisc of the namespace, as RTM_GETQDISC dumps them."""
        self.seq += 1
        request = TCMSG.pack(socket.AF_UNSPEC, 0, 0, 0, 0)
        self.sock.send(NLMSG.pack(NLMSG.size + len(request), RTM_GETQDISC,
                                  NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0) + request)
        found: List[Dict[str, Any]] = []
        while True:
            for kind, payload in messages(self.sock.recv(1 << 16)):
                if kind == NLMSG_DONE:
                    return found
                if kind == NLMSG_ERROR:
                    err = -struct.unpack_from('=i', payload)[0]
                    if err:
                        raise OSError(err, f'RTM_GETQDISC: {os.strerror(err)}')
                    continue
                found.append(parse_qdisc(payload))

    def find(self, ifindex: int, parent: int) -> Dict[str, Any]:
        for q in self.dump():
            if q['ifindex'] == ifindex and q['parent'] == parent:
                return q
        raise RuntimeError(f'no qdisc under {parent >> 16:x}:{parent & 0xffff:x} '
                           f'on ifindex {ifindex}')
