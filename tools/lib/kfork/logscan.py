"""Find the reports of the kernel's checkers in a console log.

A test run passes only when the log is clean: a KASAN, UBSAN, lockdep,
kmemleak, atomic-sleep or WARN report means the kernel misbehaved even
if every assertion held. A KCSAN report (a data race) fails it only when
one of the functions it names is the project's (sort_races): races
elsewhere in the kernel are listed, not judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import AbstractSet, List, Sequence, Set, Tuple

_TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')

# First lines of the reports; each names the checker in the message.
_REPORT_START = re.compile(
    r'^(BUG: |WARNING: |UBSAN: |Kernel panic - not syncing|'
    r'general protection fault|Oops: |INFO: trying to register non-static key|'
    r'kmemleak: \d+ new suspected memory leak|'
    r'rcu: INFO: .*detected stall|watchdog: BUG: soft lockup)')

# A report ends at its closing rule, or after this many lines.
_REPORT_END = re.compile(r'^(=+|-+\[ end trace [0-9a-f]+ \]-+|---\[ end .*\]---)$')
_MAX_LINES = 60


# A stack frame, "func+0x1c/0x80" (with " [module]" after it, or
# "? " before an unreliable one), and KCSAN's title, "BUG: KCSAN:
# data-race in func_a / func_b" (a function alone, with its offset, when
# the other side is unknown).
_FRAME = re.compile(r'^\s*(?:\? )?([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+')
_RACE_TITLE = re.compile(r'^BUG: KCSAN: [\w-]+ in (.*)$')
KCSAN = 'KCSAN'


@dataclass(frozen=True)
class Report:
    kind: str
    lines: List[str]

    @property
    def title(self) -> str:
        return self.lines[0]

    @property
    def functions(self) -> Set[str]:
        """The functions the report names: in its title, on its stacks."""
        names = {m.group(1) for m in map(_FRAME.match, self.lines) if m}
        title = _RACE_TITLE.match(self.title)
        if title:
            names |= {part.strip().split('+')[0] for part in title.group(1).split(' / ')}
        return names


def sort_races(reports: Sequence[Report], own: AbstractSet[str],
               findings: Sequence[str] = ()) -> Tuple[List[Report], List[Report]]:
    """The reports that fail a run, and the KCSAN reports only listed:
    those that name none of the OWN functions (the project's files'),
    and those whose title holds one of FINDINGS (races of upstream's
    copies of the project's files, written down as such)."""
    failing: List[Report] = []
    listed: List[Report] = []
    for report in reports:
        if report.kind == KCSAN and (not report.functions & own
                                     or any(f in report.title for f in findings)):
            listed.append(report)
        else:
            failing.append(report)
    return failing, listed


def _kind(first: str) -> str:
    for marker, kind in (('KCSAN', KCSAN), ('KASAN', 'KASAN'), ('UBSAN', 'UBSAN'), ('kmemleak', 'kmemleak'),
                         ('WARNING: CPU', 'WARN'), ('lock', 'lockdep'),
                         ('sleeping function', 'atomic sleep'), ('WARNING', 'WARN'),
                         ('panic', 'panic'), ('stall', 'RCU stall'),
                         ('soft lockup', 'soft lockup')):
        if marker in first:
            return kind
    return 'BUG'


def scan(log: str) -> List[Report]:
    """The checker reports in a console log, in order."""
    lines = [_TIMESTAMP.sub('', line.rstrip('\r')) for line in log.splitlines()]
    reports: List[Report] = []
    i = 0
    while i < len(lines):
        if not _REPORT_START.match(lines[i]):
            i += 1
            continue
        start = i
        i += 1
        while i < len(lines) and i - start < _MAX_LINES:
            if _REPORT_END.match(lines[i].strip()):
                i += 1
                break
            if _REPORT_START.match(lines[i]) and not lines[i].startswith('WARNING: CPU'):
                break
            i += 1
        block = lines[start:i]
        reports.append(Report(_kind(block[0]), block))
    return reports
