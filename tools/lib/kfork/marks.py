"""kunit/project-behaviour: the tests whose expected value is the fork's.

Each line names a test (a KUnit case, or a guest suite's check as
guest.SUITE.KEY), the kind of difference from upstream and the failure
upstream must show. The KUnit runner and the guest suites judge a marked
test by that failure on the upstream build: passing there, or failing
another way, means the test does not show the difference it is marked
for.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from .common import ToolError, project_root

# What a marked test's difference from upstream is: a fix of an upstream
# bug, a policy of the fork's (a range check, a refusal, a clearer error)
# or a feature upstream does not have. A race is a fix of a data race
# of upstream's: its failure shows only in the runs where the race is
# hit, so a run of upstream that passes it counts as skipped, saying so.
MARK_KINDS = ('fix', 'race', 'policy', 'feature')
_QUOTED = r'"(?:[^"\\]|\\.)+"'
_MARK = re.compile(rf'^(\S+)\s+(\w+)\s+((?:{_QUOTED}\s+)+)(.*)$')


@dataclass(frozen=True)
class Mark:
    """One entry of kunit/project-behaviour: the kind of difference, the
    failure upstream must show (text of its log, as an expectation or a
    message the test prints; one of several, for a parameterized test
    whose cases fail at different checks), and why."""

    kind: str
    failures: Tuple[str, ...]
    why: str

    def shown_in(self, log: str) -> bool:
        return any(failure in log for failure in self.failures)

    @property
    def race(self) -> bool:
        """Upstream fails it only in runs where the race is hit."""
        return self.kind == 'race'

    @property
    def named(self) -> str:
        return ' or '.join(f'"{failure}"' for failure in self.failures)


@dataclass(frozen=True)
class Marked:
    """Tests marked as project behaviour (kunit/project-behaviour).

    They cover what the fork adds or fixes, so on the upstream
    implementation they are expected to fail, and in the way each entry
    names: a crash or another expectation failing is no such difference.
    """

    entries: Dict[str, Mark]

    @classmethod
    def load(cls, path: Path) -> 'Marked':
        entries: Dict[str, Mark] = {}
        if path.is_file():
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if not line.strip() or line.lstrip().startswith('#'):
                    continue
                m = _MARK.match(line.strip())
                if not m or m.group(2) not in MARK_KINDS:
                    raise ToolError(f'{path}:{n}: not "SUITE.TEST KIND \"FAILURE\"... WHY" '
                                    f'with KIND one of {", ".join(MARK_KINDS)}')
                failures = tuple(q[1:-1].replace('\\"', '"')
                                 for q in re.findall(_QUOTED, m.group(3)))
                entries[m.group(1)] = Mark(m.group(2), failures, m.group(4).strip())
        return cls(entries)

    def entry(self, case: str) -> Optional[Mark]:
        """The entry that covers CASE: its own, or its parameterized
        test's."""
        for name, mark in self.entries.items():
            if case == name or case.startswith(name + '.'):
                return mark
        return None

    def covers(self, case: str) -> bool:
        return self.entry(case) is not None

    def kcsan_findings(self) -> Tuple[str, ...]:
        """The failures of the KCSAN entries (kcsan.NAME): races KCSAN
        reports in upstream's copies of the project's files."""
        return tuple(failure for name, mark in self.entries.items()
                     if name.startswith(f'{KCSAN}.') for failure in mark.failures)


# A guest suite's marked check is listed as guest.SUITE.KEY.
GUEST = 'guest'
# A KCSAN report of upstream's is listed as kcsan.NAME, its failure text
# of the report's title.
KCSAN = 'kcsan'


@functools.lru_cache(maxsize=None)
def project() -> Marked:
    """The project's own list, read once."""
    return Marked.load(project_root() / 'kunit' / 'project-behaviour')
