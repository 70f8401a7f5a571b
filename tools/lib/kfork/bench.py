"""Benchmarks on both builds: boots in turn, the best of each figure,
and the ratio with its spread over the boots.

tools/kunit bench (the KUnit *_bench suites) and tools/vm bench (guest
programs) differ only in how one boot measures; both print figures as
'kfork-bench: KEY VALUE' lines and hand them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence

from .common import COLUMNS, FORK, UPSTREAM_IMPL, ToolError, say

TAG = 'kfork-bench'

# figure -> variant -> its value at each boot, in boot order
Figures = Dict[str, Dict[str, List[float]]]


def best_of_boots(boots: int, variants: Sequence[str],
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
class Row:
    """One figure of both builds: each the best of its boots, their
    ratio and the lowest and highest ratio of one boot's pair."""

    key: str
    upstream: float
    fork: float
    ratio: str
    spread: str


def rows(figures: Figures) -> List[Row]:
    """The figures, by key; what table() prints and tools/measure records."""
    out = []
    for key in sorted(figures):
        up = figures[key].get(UPSTREAM_IMPL, [])
        fork = figures[key].get(FORK, [])
        best_up = min(up, default=float('nan'))
        best_fork = min(fork, default=float('nan'))
        pairs = sorted(f / u for f, u in zip(fork, up) if u)
        spread = f'{pairs[0]:.2f}-{pairs[-1]:.2f}' if pairs else '-'
        out.append(Row(key, best_up, best_fork, _ratio(best_fork, best_up), spread))
    return out


RATIO_NOTE = (f'ratio is {FORK} / {UPSTREAM_IMPL}; under 1.00 the fork is faster '
              'or smaller; per boot: the range of the ratios of the same boot\'s pair')


def table(figures: Figures) -> List[str]:
    """figure | upstream-impl | fork (each the best of its boots) | their
    ratio | the lowest and highest ratio of one boot's pair."""
    lines = [f'{"figure (best of the boots)":<32} '
             + ''.join(f'{v:>14} ' for v in COLUMNS) + f'{"ratio":>7} {"per boot":>11}']
    for row in rows(figures):
        lines.append(f'{row.key:<32} {row.upstream:>14g} {row.fork:>14g} '
                     f'{row.ratio:>7} {row.spread:>11}')
    lines.append(f'bench: {RATIO_NOTE}')
    return lines
