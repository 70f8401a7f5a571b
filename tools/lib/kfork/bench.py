"""Benchmarks on both builds: boots in turn, each figure's median and
range over the boots, the ratio with its spread, and a verdict.

tools/kunit bench (the KUnit *_bench suites) and tools/vm bench (guest
programs) differ only in how one boot measures; both print figures as
'kfork-bench: KEY VALUE' lines and hand them here.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

from .common import COLUMNS, FORK, UPSTREAM_IMPL, ToolError, say

TAG = 'kfork-bench'

# figure -> variant -> its value at each boot, in boot order
Figures = Dict[str, Dict[str, List[float]]]

# The benchmarks time with the kernel's clock (ktime in the KUnit
# suites, clock_gettime's vDSO in the guest). Under TCG the kernel can
# fail to calibrate the TSC (kunit.py's machine has no HPET to measure
# it against) or its watchdog can find the TSC unstable; either way it
# falls back to jiffies, whose 4 ms steps turn a figure into noise, or
# 0. The benchmark kernels boot with the TSC declared reliable (no
# watchdog), and a boot whose log says the clock fell back all the same
# gives no figures: it is booted again, up to CLOCK_TRIES times.
KERNEL_ARGS = ('tsc=reliable',)
CLOCK_TRIES = 3
_CLOCK_TROUBLE = re.compile(r'(tsc: Marking TSC unstable.*'
                            r'|clocksource: Marking clocksource .* as unstable'
                            r'|clocksource: Switched to clocksource (refined-)?jiffies)')


class ClockTrouble(ToolError):
    """A boot whose clock could not time the benchmarks."""


def clock_trouble(log: str) -> Optional[str]:
    """The kernel log's line saying the clock lost its resolution, if any."""
    match = _CLOCK_TROUBLE.search(log)
    return match.group(0) if match else None


def check_clock(log: str, variant: str, boot: int) -> None:
    trouble = clock_trouble(log)
    if trouble:
        raise ClockTrouble(f'{variant}: boot {boot}: "{trouble}": the clock cannot time '
                           'the benchmarks')


def _measure_with_clock(boot: int, variant: str,
                        measure: Callable[[int, str], Dict[str, str]]) -> Dict[str, str]:
    for _ in range(CLOCK_TRIES - 1):
        try:
            return measure(boot, variant)
        except ClockTrouble as trouble:
            say(f'bench: {trouble}; booting again')
    try:
        return measure(boot, variant)
    except ClockTrouble as trouble:
        raise ToolError(f'{trouble} ({CLOCK_TRIES} boots in a row)') from trouble


def boots_in_turn(boots: int, variants: Sequence[str],
                  measure: Callable[[int, str], Dict[str, str]]) -> Figures:
    """Boot the variants in turn, BOOTS times each, so that a slow spell
    of the host hits both; measure(boot, variant) gives one boot's
    figures."""
    figures: Figures = {}
    for boot in range(1, boots + 1):
        for variant in variants:
            say(f'bench: boot {boot} of {boots}, {variant}')
            values = _measure_with_clock(boot, variant, measure)
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
