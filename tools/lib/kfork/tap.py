"""TAP output for the project's own guest suites."""

from __future__ import annotations

from typing import Dict, List, Tuple


class Tap:
    """Cases in order; a failed case carries the detail that explains it."""

    def __init__(self, suite: str) -> None:
        self.suite = suite
        self.cases: List[Tuple[bool, str, str]] = []
        self.notes: List[str] = []
        self.skipped: Dict[int, str] = {}     # case index: why

    def note(self, text: str) -> None:
        """A measurement worth reading even when every case passes."""
        self.notes.append(text)

    def check(self, ok: bool, name: str, detail: str = '') -> bool:
        self.cases.append((ok, name, detail))
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
