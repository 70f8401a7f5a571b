"""TAP output for the project's own guest suites."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from . import marks
from .common import is_fork


class Tap:
    """Cases in order; a failed case carries the detail that explains it.

    MARKED and FORK (by default the project's list and the guest's
    build) judge the checks whose expected value is the fork's."""

    def __init__(self, suite: str, marked: Optional[marks.Marked] = None,
                 fork: Optional[bool] = None) -> None:
        self.suite = suite
        self.cases: List[Tuple[bool, str, str]] = []
        self.notes: List[str] = []
        self.skipped: Dict[int, str] = {}     # case index: why
        self._marked = marked
        self.fork = is_fork() if fork is None else fork

    def note(self, text: str) -> None:
        """A measurement worth reading even when every case passes."""
        self.notes.append(text)

    def check(self, ok: bool, name: str, detail: str = '') -> bool:
        self.cases.append((ok, name, detail))
        return ok

    def marked(self, key: str, ok: bool, name: str, detail: str = '') -> bool:
        """A check of project behaviour, listed in kunit/project-behaviour
        as guest.SUITE.KEY. On the fork it is an ordinary check. On
        upstream it must fail with the entry's named failure in DETAIL,
        and is then skipped, saying what kind of difference it shows;
        passing there (unless the entry is a race), or failing another
        way, fails it. OK either way, so that what depends on it is not
        run where it failed."""
        entry = f'{marks.GUEST}.{self.suite}.{key}'
        mark = (self._marked or marks.project()).entries.get(entry)
        if mark is None:
            self.check(False, name, f'{entry} is not in kunit/project-behaviour')
        elif self.fork:
            self.check(ok, name, detail)
        elif ok and mark.race:
            self.skip(name, f'a race of upstream\'s ({entry}) that this run did not hit')
        elif ok:
            self.check(False, name, f'marked as project behaviour ({entry}) but passes on '
                       'upstream: the check does not show the difference')
        elif mark.shown_in(detail):
            self.skip(name, f'fails on upstream as marked, a {mark.kind}: {mark.named}')
        else:
            self.check(False, name, f'marked as project behaviour ({entry}), but fails on '
                       f'upstream without its named failure {mark.named}:\n{detail}')
        return ok

    def skip(self, name: str, why: str) -> None:
        """A case that could not run here, and why: neither passed nor failed."""
        self.skipped[len(self.cases)] = why
        self.cases.append((True, name, ''))

    @property
    def ok(self) -> bool:
        return all(ok for ok, _, _ in self.cases)

    def lines(self) -> List[str]:
        out = ['TAP version 13', f'1..{len(self.cases)}']
        for n, (ok, name, detail) in enumerate(self.cases, 1):
            if n - 1 in self.skipped:
                out.append(f'ok {n} {name} # SKIP {self.skipped[n - 1]}')
                continue
            out.append(f'{"ok" if ok else "not ok"} {n} {name}')
            if detail and not ok:
                out.extend(f'# {line}' for line in detail.splitlines())
        out.extend(f'# {note}' for note in self.notes)
        passed = sum(1 for ok, _, _ in self.cases if ok) - len(self.skipped)
        failed = len(self.cases) - passed - len(self.skipped)
        out.append(f'# {self.suite}: {passed} passed, {failed} failed, '
                   f'{len(self.skipped)} skipped')
        return out
