"""Find the reports of the kernel's checkers in a console log.

A test run passes only when the log is clean: a KASAN, UBSAN, lockdep,
kmemleak, atomic-sleep or WARN report means the kernel misbehaved even
if every assertion held.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List

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


@dataclass(frozen=True)
class Report:
    kind: str
    lines: List[str]

    @property
    def title(self) -> str:
        return self.lines[0]


def _kind(first: str) -> str:
    for marker, kind in (('KASAN', 'KASAN'), ('UBSAN', 'UBSAN'), ('kmemleak', 'kmemleak'),
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
