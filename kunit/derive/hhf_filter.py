#!/usr/bin/env python3
"""Derive the limits of the hhf_classify KUnit suite's statistical tests.

Two numbers come from the analysis of Estan and Varghese, "New
Directions in Traffic Measurement and Accounting" (SIGCOMM 2002), for a
multi-stage filter of D stages of B counters, threshold T:

- false positives: a stage holds at most C / (T - s) counters of T - s
  bytes or more when C bytes were counted in the period, so a flow of s
  bytes passes with probability at most (C / ((T - s) B))^D.  The test
  sends 100 elephants (each counted for at most T bytes) and 10000 mice
  of 64 bytes, 5 times; the limit on the mice that pass is
  the smallest count a filter meeting the bound exceeds with probability
  below 1e-6 (Chernoff's bound for a sum of Bernoulli trials).
- the fork's five stages of 1024 counters: the same bound with D = 5
  over 80 trials gives the fork's limit; upstream's four stages
  of 1024 let about (1 - e^(-100/1024))^4 of the mice through, and the
  probability that they stay within that limit is printed beside it.
- conservative update: no closed form, so a simulation of four stages
  of 1024 (upstream) and five (the fork) with uniform
  independent indexes, 4096 mice of 8 packets of 1000 bytes round robin
  and T = 20000, once with every packet added to all of a flow's
  counters and once with conservative update (both shielded).

The hhf_filter suite (sch_hhf_filter_kunit.c, the fork's filter called
directly) runs the false-positive workload FILTER_TRIALS times on the
fork's stages; its limit is the Chernoff one again.  It fixes the
stages' multipliers, so that which flows meet is known: for the flow
FILTER_BASE, FILTER_PARTNERS[s] is the smallest hash above the
previous partners' that shares its stage-s counter and no other (slot:
the top HHF_STAGE_BITS of hash * multiplier in 32 bits), and shares no
counter with another partner.

Run with no argument to print the hhf_classify suite's C block, with
--suite hhf_filter the other one; --check FILE verifies that FILE holds
exactly what this script prints between its markers.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from typing import Callable, Dict, List, Optional

D, B = 4, 1024             # upstream: stages, counters per stage
FORK_D, FORK_B = 5, 1024   # the fork's
BEGIN = '/* BEGIN derived by kunit/derive/hhf_filter.py */'
END = '/* END derived */'

# The false-positive workload.
T_DEFAULT = 131072
ELEPHANTS = 100
MICE, MOUSE_LEN, TRIALS = 10000, 64, 5
# The conservative-update workload.
CU_FLOWS, CU_PKTS, CU_LEN, CU_ADMIT, CU_SEEDS = 4096, 8, 1000, 20000, 20

FORK_TRIALS = 80
FILTER_TRIALS = 100
# The hhf_filter suite's fixed odd multipliers, one a stage, and its flow.
FILTER_MULS = (0x9e3779b1, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f, 0x165667b1)
FILTER_BASE = 0x10000
STAGE_BITS = 10            # log2(FORK_B)


def fp_bound(stages: int = D, counters: int = B) -> float:
    """Probability that one mouse passes, at most."""
    counted = ELEPHANTS * T_DEFAULT + MICE * MOUSE_LEN
    return float((counted / ((T_DEFAULT - MOUSE_LEN) * counters)) ** stages)


def poisson_at_most(mean: float, n: int) -> float:
    return sum(math.exp(-mean) * mean ** k / math.factorial(k) for k in range(n + 1))


def chernoff_limit(mean: float, risk: float = 1e-6) -> int:
    """The largest count n with P(X > n) < risk for X of that mean."""
    n = math.ceil(mean)
    while True:
        delta = (n + 1) / mean - 1
        tail = math.exp(mean * (delta - (1 + delta) * math.log1p(delta)))
        if tail < risk:
            return n
        n += 1


def simulate(conservative: bool, seed: int, stages: int, counters_per_stage: int) -> int:
    """Flows that pass in the conservative-update workload."""
    rnd = random.Random(seed)
    slots = [[rnd.randrange(counters_per_stage) for _ in range(stages)]
             for _ in range(CU_FLOWS)]
    counters = [[0] * counters_per_stage for _ in range(stages)]
    heavy = [False] * CU_FLOWS
    for _ in range(CU_PKTS):
        for flow in range(CU_FLOWS):
            if heavy[flow]:
                continue
            mine = slots[flow]
            estimate = min(counters[s][mine[s]] for s in range(stages)) + CU_LEN
            if estimate > CU_ADMIT:
                heavy[flow] = True
                continue
            for s in range(stages):
                if conservative:
                    counters[s][mine[s]] = max(counters[s][mine[s]], estimate)
                else:
                    counters[s][mine[s]] += CU_LEN
    return sum(heavy)


def block() -> List[str]:
    p = fp_bound()
    mean = p * MICE * TRIALS
    fork_mean = fp_bound(FORK_D, FORK_B) * MICE * FORK_TRIALS
    fork_limit = chernoff_limit(fork_mean)
    upstream_mean = (1 - math.exp(-ELEPHANTS / B)) ** D * MICE * FORK_TRIALS
    runs = [(seed, d, b) for seed in range(CU_SEEDS) for d, b in ((D, B), (FORK_D, FORK_B))]
    plain = [simulate(False, seed, d, b) for seed, d, b in runs]
    conservative = [simulate(True, seed, d, b) for seed, d, b in runs]
    return [
        BEGIN,
        f'#define FP_TRIALS\t\t{TRIALS}',
        f'#define FP_BOUND_PPM\t\t{math.ceil(p * 1e6)}\t/* {p:.4g} per mouse */',
        f'#define FP_MAX_PASSED\t\t{chernoff_limit(mean)}\t/* mean at most {mean:.1f} */',
        f'#define FP_FORK_TRIALS\t\t{FORK_TRIALS}',
        f'#define FP_FORK_MAX_PASSED\t{fork_limit}\t/* mean at most {fork_mean:.1f}; '
        f'upstream: about {upstream_mean:.0f}, P(<= {fork_limit}) = '
        f'{poisson_at_most(upstream_mean, fork_limit):.0e} */',
        f'#define CU_PLAIN_FEWEST\t\t{min(plain)}\t/* {CU_SEEDS} seeds, {D} x {B} and '
        f'{FORK_D} x {FORK_B} counters */',
        f'#define CU_PLAIN_MOST\t\t{max(plain)}',
        f'#define CU_CONSERVATIVE_MOST\t{max(conservative)}',
        END,
    ]


def filter_slot(flow: int, stage: int) -> int:
    """The counter FLOW counts in at STAGE in the hhf_filter suite."""
    return ((flow * FILTER_MULS[stage]) & 0xffffffff) >> (32 - STAGE_BITS)


def filter_partners() -> List[int]:
    """For each stage, a flow that meets FILTER_BASE there only and
    meets no earlier partner anywhere."""
    partners: List[int] = []
    for stage in range(FORK_D):
        flow = max([FILTER_BASE, *partners]) + 1
        while not (all((filter_slot(flow, t) == filter_slot(FILTER_BASE, t)) == (t == stage)
                       for t in range(FORK_D))
                   and all(filter_slot(flow, t) != filter_slot(p, t)
                           for p in partners for t in range(FORK_D))):
            flow += 1
        partners.append(flow)
    return partners


def filter_block() -> List[str]:
    mean = fp_bound(FORK_D, FORK_B) * MICE * FILTER_TRIALS
    return [
        BEGIN,
        f'#define FILTER_FP_TRIALS\t{FILTER_TRIALS}',
        f'#define FILTER_FP_MAX_PASSED\t{chernoff_limit(mean)}\t/* mean at most {mean:.1f} */',
        f'#define FILTER_BASE\t\t{FILTER_BASE:#x}',
        'static const u32 filter_muls[HHF_STAGES] = {',
        '\t' + ' '.join(f'{m:#x},' for m in FILTER_MULS),
        '};',
        '',
        'static const u32 filter_partners[HHF_STAGES] = {',
        '\t' + ' '.join(f'{p:#x},' for p in filter_partners()),
        '};',
        '',
        END,
    ]


BLOCKS: Dict[str, Callable[[], List[str]]] = {'hhf_classify': block, 'hhf_filter': filter_block}


def check(path: str, suite: str) -> Optional[str]:
    text = open(path, encoding='utf-8').read().splitlines()
    try:
        start, end = text.index(BEGIN), text.index(END)
    except ValueError:
        return f'{path}: no {BEGIN} ... {END} block'
    if text[start:end + 1] != BLOCKS[suite]():
        return f'{path}: the derived block differs from kunit/derive/hhf_filter.py\'s output'
    return None


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog='hhf_filter.py', description=__doc__.split('\n')[0])
    parser.add_argument('--suite', choices=sorted(BLOCKS), default='hhf_classify',
                        help='whose block (default: hhf_classify)')
    parser.add_argument('--check', metavar='FILE',
                        help='verify that FILE holds the block instead of printing it')
    args = parser.parse_args(argv)
    if args.check:
        problem = check(args.check, args.suite)
        if problem:
            print(problem, file=sys.stderr)
            return 1
        return 0
    print('\n'.join(BLOCKS[args.suite]()))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
