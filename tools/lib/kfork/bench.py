"""Benchmarks on both builds: boots in turn, each figure's median and
range over the boots, the ratio with its spread, and a verdict.

tools/kunit bench (the KUnit *_bench suites) and tools/vm bench (guest
programs) differ only in how one boot measures; both print figures as
'kfork-bench: KEY VALUE' lines and hand them here.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence

from .common import COLUMNS, FORK, UPSTREAM_IMPL, ToolError, say

TAG = 'kfork-bench'

# figure -> variant -> its value at each boot, in boot order
Figures = Dict[str, Dict[str, List[float]]]


def boots_in_turn(boots: int, variants: Sequence[str],
                  measure: Callable[[int, str], Dict[str, str]]) -> Figures:
    """Boot the variants in turn, BOOTS times each, so that a slow spell
    of the host hits both; measure(boot, variant) gives one boot's
    figures."""
    figures: Figures = {}
    for boot in range(1, boots + 1):
        for variant in variants:
            say(f'bench: boot {boot} of {boots}, {variant}')
            values = measure(boot, variant)
            say(f'bench: boot {boot}, {variant}: '
                + ', '.join(f'{key} {value}' for key, value in sorted(values.items())))
            for key, value in values.items():
                figures.setdefault(key, {}).setdefault(variant, []).append(float(value))
    if not figures:
        raise ToolError('no benchmark printed a figure')
    return figures


def _ratio(fork: float, upstream: float) -> str:
    return f'{fork / upstream:.2f}' if upstream else '-'


@dataclass(frozen=True)
class Spread:
    """One build's values of a figure over the boots."""

    low: float
    median: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> 'Spread':
        if not values:
            nan = float('nan')
            return cls(nan, nan, nan)
        return cls(min(values), statistics.median(values), max(values))

    def cell(self) -> str:
        """'median (low-high)', or the one value when all boots agree."""
        if self.low == self.high:
            return f'{self.median:g}'
        return f'{self.median:g} ({self.low:g}-{self.high:g})'


def verdict(key: str, upstream: Spread, fork: Spread) -> str:
    """Which build does better, judged only where the boots' ranges do
    not overlap: a time figure (_ns) is faster or slower, any other
    figure (bytes, counts) lower or higher; lower is better for all."""
    better, worse = ('faster', 'slower') if key.endswith('_ns') else ('lower', 'higher')
    if fork.high < upstream.low:
        return better
    if fork.low > upstream.high:
        return worse
    return 'equal within the spread'


@dataclass(frozen=True)
class Row:
    """One figure of both builds over the boots: their medians' ratio,
    the lowest and highest ratio of one boot's pair, and the verdict."""

    key: str
    upstream: Spread
    fork: Spread
    ratio: str
    spread: str
    verdict: str


def rows(figures: Figures) -> List[Row]:
    """The figures, by key; what table() prints and tools/measure records."""
    out = []
    for key in sorted(figures):
        up = figures[key].get(UPSTREAM_IMPL, [])
        fork = figures[key].get(FORK, [])
        up_spread, fork_spread = Spread.of(up), Spread.of(fork)
        pairs = sorted(f / u for f, u in zip(fork, up) if u)
        spread = f'{pairs[0]:.2f}-{pairs[-1]:.2f}' if pairs else '-'
        out.append(Row(key, up_spread, fork_spread,
                       _ratio(fork_spread.median, up_spread.median), spread,
                       verdict(key, up_spread, fork_spread)))
    return out


RATIO_NOTE = (f'each build\'s figure is the median of its boots, with the lowest and '
              f'highest in brackets; ratio is {FORK} / {UPSTREAM_IMPL} of the medians, '
              'under 1.00 the fork is faster or smaller; per boot: the range of the '
              'ratios of the same boot\'s pair; the verdict counts only where the two '
              'builds\' ranges do not overlap')


def table(figures: Figures) -> List[str]:
    """figure | upstream-impl | fork (each median (low-high)) | ratio of
    the medians | the range of one boot's ratio | verdict."""
    body = [(row.key, row.upstream.cell(), row.fork.cell(), row.ratio, row.spread, row.verdict)
            for row in rows(figures)]
    head = ('figure', *COLUMNS, 'ratio', 'per boot', 'verdict')
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
    return [' '.join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
            for line in [head, *body]] + [f'bench: {RATIO_NOTE}']
