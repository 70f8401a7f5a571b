"""Test counts, carried as one value from the parsers to the closing lines.

A tool's closing line (`kunit: N passed, N failed, N skipped`) is printed
from a Counts value, and with $KFORK_COUNTS set the same value is also
written there as JSON: make check (ci/check, kfork.check) adds up those
files, never the printed lines.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Dict, Iterable, Mapping, Optional

# Where a tool writes its counts at the end, when set (ci/check sets it).
COUNTS_ENV = 'KFORK_COUNTS'


@dataclass(frozen=True)
class Counts:
    """Tests by result. A crashed test (KUnit's ERROR) is kept apart from
    a failed one, and printed among the failures."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    crashed: int = 0

    def __add__(self, other: 'Counts') -> 'Counts':
        return Counts(self.passed + other.passed, self.failed + other.failed,
                      self.skipped + other.skipped, self.crashed + other.crashed)

    @property
    def failures(self) -> int:
        """Failed and crashed tests: what the closing lines call failed."""
        return self.failed + self.crashed

    @property
    def total(self) -> int:
        return self.passed + self.failures + self.skipped

    @property
    def ok(self) -> bool:
        return self.failures == 0

    def line(self, name: str) -> str:
        """The closing line: 'NAME: N passed, N failed, N skipped'."""
        return f'{name}: {self.passed} passed, {self.failures} failed, {self.skipped} skipped'

    def cell(self) -> str:
        """'passed/failed/skipped', for tables."""
        return f'{self.passed}/{self.failures}/{self.skipped}'

    def to_dict(self) -> Dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> 'Counts':
        """The inverse of to_dict; ValueError on anything else."""
        names = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or set(data) != names:
            raise ValueError(f'not counts: {str(data)[:80]!r}')
        values = {name: data[name] for name in names}
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                   for v in values.values()):
            raise ValueError(f'not counts: {str(data)[:80]!r}')
        return cls(**values)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> 'Counts':
        """The inverse of to_json; ValueError on anything else."""
        return cls.from_dict(json.loads(text))


def read(path: Path) -> Optional[Counts]:
    """The counts a tool wrote to PATH ($KFORK_COUNTS); None when it
    wrote none or something else is there."""
    try:
        return Counts.from_json(path.read_text())
    except (OSError, ValueError):
        return None


def total(counts: Iterable[Counts]) -> Counts:
    return sum(counts, Counts())


def close(name: str, counts: Counts, env: Mapping[str, str] = os.environ) -> None:
    """Print a tool's closing line, and write the counts to $KFORK_COUNTS
    when it is set (whole or not at all: a rename puts the file there)."""
    path = env.get(COUNTS_ENV)
    if path:
        target = Path(path)
        partial = target.with_name(target.name + '.partial')
        partial.write_text(counts.to_json() + '\n')
        partial.replace(target)
    print(counts.line(name), flush=True)
