"""make check's closing line: the sum of the counts its stages handed over.

ci/check runs each stage N with $KFORK_COUNTS set to FOLDER/N.json, the
file the tools write their counts to at the end, and records the
stage's exit status in FOLDER/N.status. A stage that failed without
leaving counts (it stopped on an error, or it is a check without test
counts such as checkpatch) counts as one failed test; one that passed
without counts counts nothing.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence

from .counts import Counts, close, total
from .counts import read as read_counts

NAME = 'check'


@dataclass(frozen=True)
class Stage:
    status: int
    counts: Optional[Counts]

    @property
    def ok(self) -> bool:
        return self.status == 0

    def result(self) -> Counts:
        """What the stage adds to the sum."""
        if self.counts is not None:
            return self.counts
        return Counts() if self.ok else Counts(failed=1)


def read_stages(folder: Path) -> List[Stage]:
    """The stages ci/check recorded in folder, in the order they ran. A
    status that is not a number is a failed stage; unreadable counts are
    no counts."""
    stages = []
    for status_file in sorted(folder.glob('*.status'), key=lambda p: int(p.stem)):
        text = status_file.read_text().strip()
        status = int(text) if text.isdigit() else 1
        stages.append(Stage(status, read_counts(status_file.with_suffix('.json'))))
    return stages


def summary(stages: Sequence[Stage]) -> Counts:
    return total(stage.result() for stage in stages)


def passed(stages: Sequence[Stage]) -> bool:
    """make check passes when every stage and every test did."""
    return all(stage.ok for stage in stages) and summary(stages).ok


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog='python3 -m kfork.check', description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('folder', type=Path, help='where ci/check recorded its stages')
    args = parser.parse_args(argv)
    stages = read_stages(args.folder)
    # With $KFORK_COUNTS set (tools/measure check), the sum goes there too.
    close(NAME, summary(stages))
    return 0 if passed(stages) else 1


if __name__ == '__main__':
    sys.exit(main())
