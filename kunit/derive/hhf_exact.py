#!/usr/bin/env python3
"""Derive the rows of hhf_classify_exact_counting: the packet with which a
flow alone in HHF's filter becomes a heavy hitter, as upstream counts.

Upstream's rule (net/sched/sch_hhf.c of Linux 3.14 to 6.12, and the
seed commit): each of a flow's counters plus the packet's length,
added in 32 bits; the packet is a heavy hitter's when the smallest sum
is above admit_bytes; otherwise each counter below that sum is raised
to it.  A flow alone in the filter has all its counters equal, so one
number models them.  The model below runs that rule packet by packet;
the closed form beside it (packet floor(A / L) + 1 of a flow of L-byte
packets, unless that packet's sum is past U32_MAX and wraps) must
agree with it for every row, or the script stops.

The cross is the issue's: lengths 1, 43, 1001, 1500, 9000 and 65535
bytes against admit_bytes 1, 3000, 131072, 10^7 and U32_MAX, and one
row where admit_bytes is within a packet of U32_MAX.  Where the flow
would need more than RUN_MOST packets of its length, it first sends all
but the last 1000 packets' worth of bytes (START) in packets of 65535
bytes and one of the remainder, each of which leaves it at or below
admit_bytes; then the run of its own length.  1000 packets of L bytes
make exactly 1000 * L, so a filter that passed at admit_bytes itself
(>= for >) is off by one, and one that rounded lengths up to units of
two bytes or more is off by more.

Run with no argument to print the C rows, --check FILE to verify that
FILE holds exactly them between the markers.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Iterator, List, Optional

U32_MAX = 2 ** 32 - 1
LENGTHS = (1, 43, 1001, 1500, 9000, 65535)
ADMITS = (1, 3000, 131072, 10 ** 7, U32_MAX)
EXTRA = ((1500, U32_MAX - 100),)
RUN_MOST = 4000       # packets of the row's own length, at most
TAIL_PACKETS = 1000   # of them after a START
BIG = 65535           # the length START's packets have
NEVER_EXTRA = 10      # packets sent past the wrap where none passes

BEGIN = '/* BEGIN derived by kunit/derive/hhf_exact.py */'
END = '/* END derived */'


@dataclass(frozen=True)
class Row:
    length: int
    admit: int
    start: int      # bytes sent first, in packets of BIG and the rest
    run: int        # packets of length sent then
    heavy_at: int   # which of them is a heavy hitter's (1-based), 0: none


def start_packets(start: int) -> Iterator[int]:
    """The lengths of the packets that send start bytes first."""
    whole, rest = divmod(start, BIG)
    yield from [BIG] * whole
    if rest:
        yield rest


def upstream(admit: int, lengths: Iterator[int]) -> int:
    """1-based index of the first packet classified heavy, 0 if none."""
    counter = 0
    for i, length in enumerate(lengths, 1):
        total = (counter + length) & U32_MAX
        if total > admit:
            return i
        counter = max(counter, total)
    return 0


def closed_form(length: int, admit: int, start: int) -> int:
    """The same, counted in the run after start bytes (0: never)."""
    j = (admit - start) // length + 1
    return j if start + j * length <= U32_MAX else 0


def row(length: int, admit: int) -> Row:
    start = 0
    if closed_form(length, admit, 0) == 0 or admit // length + 1 > RUN_MOST:
        start = max(0, admit - TAIL_PACKETS * length)
    heavy_at = closed_form(length, admit, start)
    run = heavy_at or (admit - start) // length + NEVER_EXTRA
    before = sum(1 for _ in start_packets(start))
    seen = upstream(admit, iter(list(start_packets(start)) + [length] * run))
    if seen != (before + heavy_at if heavy_at else 0):
        raise SystemExit(f'model and closed form disagree at {length} bytes, admit {admit}')
    return Row(length, admit, start, run, heavy_at)


def rows() -> List[Row]:
    cross = [(length, admit) for admit in ADMITS for length in LENGTHS]
    return [row(length, admit) for length, admit in cross + list(EXTRA)]


def block() -> List[str]:
    return [BEGIN] + [f'\t{{ {r.length}, {r.admit}U, {r.start}U, {r.run}, {r.heavy_at} }},'
                      for r in rows()] + [END]


def check(path: str) -> Optional[str]:
    text = [line.rstrip() for line in open(path, encoding='utf-8').read().splitlines()]
    try:
        start, end = text.index(BEGIN), text.index(END, text.index(BEGIN))
    except ValueError:
        return f'{path}: no {BEGIN} ... {END} block'
    if text[start:end + 1] != block():
        return f'{path}: the rows differ from kunit/derive/hhf_exact.py\'s output'
    return None


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog='hhf_exact.py', description=__doc__.split('\n')[0])
    parser.add_argument('--check', metavar='FILE',
                        help='verify that FILE holds the rows instead of printing them')
    args = parser.parse_args(argv)
    if args.check:
        problem = check(args.check)
        if problem:
            print(problem, file=sys.stderr)
            return 1
        return 0
    print('\n'.join(block()))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
