#!/usr/bin/env python3
"""Derive the expected drop probabilities of the pie_math KUnit suite.

The numbers come from RFC 8033 (section 4.2 and the pseudocode of its
appendix), computed with exact fractions, not from any kernel:

  p = alpha * (qdelay - target) + beta * (qdelay - qdelay_old)

with alpha = 0.125/s and beta = 1.25/s (tc's 2 and 20 in 1/16 units),
target 15 ms, delays in seconds. Auto-tuning divides p by 2048, 512,
128, 32, 8 or 2 while the current probability is below 1e-6, 1e-5,
1e-4, 1e-3, 1e-2 or 0.1, and above 0.1 a step is capped at 2%. Linux
adds what the RFC does not have, and the seed commit describes: 2% more
when the delay exceeds 250 ms, and a decay by 1/64 (the RFC's 0.98 in a
shift) when both delays are zero, skipped while packets are queued.
The result is bounded below by 0.

Probabilities are stored in the kernel as fractions of MAX_PROB
(2^56 - 1), and delays in psched ticks of 64 ns, so every delay used
here is a whole number of ticks. A probability threshold t is the
fixed-point MAX_PROB * t rounded down, as Linux's pie has always kept
them (MAX_PROB / 10): a probability at exactly that value is at the
threshold, not below it.

Run with no argument to print the C tables; --check FILE verifies that
FILE holds exactly what this script prints between its markers.
"""

from __future__ import annotations

import sys
from fractions import Fraction as F
from typing import Iterator, List, NamedTuple, Optional

MAX_PROB = (1 << 56) - 1
ALPHA = F(2, 16)
BETA = F(20, 16)
TARGET = F(15, 1000)
BANDS = [(F(1, 10**6), 2048), (F(1, 10**5), 512), (F(1, 10**4), 128),
         (F(1, 10**3), 32), (F(1, 10**2), 8), (F(1, 10), 2)]
BEGIN = '/* BEGIN derived by kunit/derive/pie_math.py */'
END = '/* END derived */'


def below(prob: F, threshold: F) -> bool:
    """prob < threshold, the threshold in fixed point (rounded down)."""
    return prob * MAX_PROB < MAX_PROB * threshold.numerator // threshold.denominator


def update(prob: F, qdelay: F, qdelay_old: F, backlog: int) -> F:
    """One probability update, RFC 8033 plus Linux's two additions."""
    p = ALPHA * (qdelay - TARGET) + BETA * (qdelay - qdelay_old)
    for edge, divisor in BANDS:
        if below(prob, edge):
            p /= divisor
            break
    if not below(prob, F(1, 10)) and p > F(2, 100):
        p = F(2, 100)
    if qdelay > F(250, 1000):
        p += F(2, 100)
    new = max(prob + p, F(0))
    if qdelay == 0 and qdelay_old == 0 and backlog == 0:
        new -= new / 64
    return new


def fixed(prob: F) -> int:
    return round(prob * MAX_PROB)


class Case(NamedTuple):
    name: str
    prob: int           # fixed point, fraction of MAX_PROB
    qdelay_ms: int
    qdelay_old_ms: int
    backlog: int


def near(prob: F, offset: int) -> int:
    """A probability just off a band edge, clear of rounding either way."""
    return MAX_PROB * prob.numerator // prob.denominator + offset


CASES: List[Case] = [
    Case('rise from 0, /2048', 0, 30, 15, 20000),
    Case('rise from 5e-6, /512', fixed(F(5, 10**6)), 30, 15, 20000),
    Case('rise from 5e-5, /128', fixed(F(5, 10**5)), 30, 15, 20000),
    Case('rise from 5e-4, /32', fixed(F(5, 10**4)), 30, 15, 20000),
    Case('rise from 5e-3, /8', fixed(F(5, 10**3)), 30, 15, 20000),
    Case('rise from 5%, /2', fixed(F(5, 100)), 30, 15, 20000),
    Case('rise from 30%, capped at 2%', fixed(F(3, 10)), 30, 15, 20000),
    Case('rise from 30%, under the cap', fixed(F(3, 10)), 20, 15, 20000),
    Case('rise from 5%, no cap below 10%', fixed(F(5, 100)), 100, 15, 20000),
    Case('rise from 90%, capped at 2%', fixed(F(9, 10)), 30, 15, 20000),
    Case('just below 1e-6, /2048', near(F(1, 10**6), -(1 << 10)), 30, 15, 20000),
    Case('just above 1e-6, /512', near(F(1, 10**6), 1 << 10), 30, 15, 20000),
    Case('just below 1%, /8', near(F(1, 100), -(1 << 24)), 30, 15, 20000),
    Case('just above 1%, /2', near(F(1, 100), 1 << 24), 30, 15, 20000),
    Case('just below 10%, /2', near(F(1, 10), -(1 << 24)), 30, 15, 20000),
    Case('just above 10%, capped', near(F(1, 10), 1 << 24), 30, 15, 20000),
    Case('exactly 10%, capped', MAX_PROB // 10, 30, 15, 20000),
    Case('fall from 30%', fixed(F(3, 10)), 5, 10, 20000),
    Case('fall from 2%, /2', fixed(F(2, 100)), 10, 15, 20000),
    Case('fall below 0 is bounded at 0', fixed(F(5, 10**6)), 5, 10, 20000),
    Case('over 250 ms adds 2% to the cap', fixed(F(3, 10)), 300, 300, 200000),
    Case('over 250 ms from 0', 0, 300, 0, 200000),
    Case('exactly 250 ms adds nothing', fixed(F(3, 10)), 250, 250, 200000),
    Case('idle queue decays by 1/64', fixed(F(3, 10)), 0, 0, 0),
    Case('idle and low, /8 then decay', fixed(F(5, 10**3)), 0, 0, 0),
    Case('zero delay with backlog: no decay', fixed(F(3, 10)), 0, 0, 1000),
]

TRAJECTORY_STEPS = 20
TRAJECTORY_MS = 300


def trajectory() -> List[int]:
    """Steady 300 ms of delay from probability 0, one value per update."""
    prob, out = F(0), []
    delay = F(TRAJECTORY_MS, 1000)
    for _ in range(TRAJECTORY_STEPS):
        prob = update(prob, delay, delay, 1)
        out.append(fixed(prob))
    return out


def table() -> Iterator[str]:
    yield BEGIN
    yield 'static const struct pie_prob_case pie_prob_cases[] = {'
    for c in CASES:
        old = F(c.prob, MAX_PROB)
        new = update(old, F(c.qdelay_ms, 1000), F(c.qdelay_old_ms, 1000), c.backlog)
        yield f'\t/* {float(old):.9g} -> {float(new):.9g} */'
        yield f'\t{{ "{c.name}", {c.qdelay_ms}, {c.qdelay_old_ms}, {c.backlog},'
        yield f'\t  {c.prob}ULL, {fixed(new)}ULL }},'
    yield '};'
    yield ''
    yield f'/* {TRAJECTORY_MS} ms of delay held from probability 0, update by update */'
    yield 'static const u64 pie_prob_trajectory[] = {'
    for value in trajectory():
        yield f'\t{value}ULL,\t/* {value / MAX_PROB:.9g} */'
    yield '};'
    yield ''
    yield END


def extract(text: str) -> Optional[str]:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < 0:
        return None
    return text[start:end + len(END)]


def main(argv: List[str]) -> int:
    want = '\n'.join(table())
    if len(argv) == 2 and argv[0] == '--check':
        with open(argv[1], encoding='utf-8') as f:
            have = extract(f.read())
        if have != want:
            print(f'{argv[1]}: the derived table differs from kunit/derive/pie_math.py; '
                  f'paste its output between the markers', file=sys.stderr)
            return 1
        return 0
    if argv:
        print('usage: pie_math.py [--check FILE]', file=sys.stderr)
        return 2
    print(want)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
