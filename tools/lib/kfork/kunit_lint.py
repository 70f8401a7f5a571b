"""Refuse a KUnit skip that can follow an expectation in the same case.

In the tree's KUnit (6.1), kunit_skip() sets the case's status to
skipped whatever it was: a case that failed an expectation and then
skips reports SKIP, and the failure is lost. An assertion is no such
risk (a failed one ends the case before the skip), an expectation is.

The check reads the overlay's KUnit sources as text, with comments and
literals blanked, and finds every function and function-like macro. A
function *expects* if its body uses KUNIT_EXPECT_* or KUNIT_FAIL, or
calls a function that expects; it *skips* if it calls kunit_skip(),
kunit_mark_skipped(), or a function that skips. In each function, a
skipping call that comes after an expecting one, in the order of the
text, is refused. Loops are not followed: a skip early in a loop body
after an expectation late in it passes unnoticed, a trade for a check
this simple.

    python3 -m kfork.kunit_lint [DIR ...]   (default: kernel-overlay)
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

EXPECTS = re.compile(r'\b(KUNIT_EXPECT_\w+|KUNIT_FAIL)\s*\(')
SKIPS = re.compile(r'\b(kunit_skip|kunit_mark_skipped)\s*\(')
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
MACRO = re.compile(r'^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)', re.M)
NOT_FUNCTIONS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'typeof', '__typeof__'}


@dataclass(frozen=True)
class Function:
    name: str
    path: Path
    line: int       # of the body's first character
    body: str       # blanked text


@dataclass(frozen=True)
class Finding:
    path: Path
    line: int
    function: str
    skip: str
    expect: str
    expect_line: int

    def __str__(self) -> str:
        return (f'{self.path}:{self.line}: {self.skip} in {self.function}() after an '
                f'expectation ({self.expect}, line {self.expect_line}): a skip would hide '
                f'its failure; decide the skip first')


def _erase(out: List[str], start: int, end: int) -> None:
    for j in range(start, end):
        if out[j] != '\n':
            out[j] = ' '


def blank(text: str) -> str:
    """TEXT with comments and the insides of string and character
    literals turned to spaces, newlines kept, so that offsets and lines
    stay."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            _erase(out, i, end)
            i = end
        elif text.startswith('//', i):
            end = text.find('\n', i)
            end = n if end < 0 else end
            _erase(out, i, end)
            i = end
        elif text[i] in '"\'':
            j = i + 1
            while j < n and text[j] != text[i] and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            _erase(out, i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return ''.join(out)


def _line(text: str, offset: int) -> int:
    return text.count('\n', 0, offset) + 1


def _functions_in(path: Path, text: str) -> Iterable[Function]:
    """Function definitions at file scope: a '{' after a parameter list."""
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c == '{':
            if depth == 0:
                head = text[:i].rstrip()
                if head.endswith(')'):
                    name = _name_before_params(head)
                    end = _matching(text, i)
                    if name:
                        yield Function(name, path, _line(text, i), text[i:end])
                    i = end
                    continue
            depth += 1
        elif c == '}':
            depth -= 1
        i += 1
    for m in MACRO.finditer(text):
        yield Function(m.group(1), path, _line(text, m.start(3)), m.group(3))


def _name_before_params(head: str) -> Optional[str]:
    depth = 0
    for i in range(len(head) - 1, -1, -1):
        if head[i] == ')':
            depth += 1
        elif head[i] == '(':
            depth -= 1
            if depth == 0:
                m = re.search(r'([A-Za-z_]\w*)\s*$', head[:i])
                if m and m.group(1) not in NOT_FUNCTIONS:
                    return m.group(1)
                return None
    return None


def _matching(text: str, start: int, opening: str = '{', closing: str = '}') -> int:
    """Offset past the bracket that closes the one at START."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def read_functions(paths: Iterable[Path]) -> Dict[str, Function]:
    found: Dict[str, Function] = {}
    for path in paths:
        text = blank(path.read_text(encoding='utf-8', errors='replace'))
        for fn in _functions_in(path, text):
            found.setdefault(fn.name, fn)
    return found


def _closure(functions: Dict[str, Function], direct: 're.Pattern[str]') -> Set[str]:
    """Names whose body matches DIRECT or calls one that does."""
    marked = {name for name, fn in functions.items() if direct.search(fn.body)}
    calls = {name: {m.group(1) for m in CALL.finditer(fn.body)} & functions.keys()
             for name, fn in functions.items()}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            if name not in marked and callees & marked:
                marked.add(name)
                changed = True
    return marked


def _args_end(body: str, call: int) -> int:
    """Offset past the argument list of the call named at CALL."""
    return _matching(body, body.index('(', call), '(', ')')


def _first(names: Set[str], body: str, before: int) -> Optional[Tuple[int, str]]:
    """The first expecting call in BODY that runs before offset BEFORE:
    one that starts earlier and does not have it among its arguments."""
    hits = [(m.start(), m.group(1)) for m in EXPECTS.finditer(body, 0, before)]
    hits += [(m.start(), m.group(1)) for m in CALL.finditer(body, 0, before)
             if m.group(1) in names]
    hits = [(at, name) for at, name in hits if _args_end(body, at) <= before]
    return min(hits) if hits else None


def findings(functions: Dict[str, Function]) -> List[Finding]:
    expecting = _closure(functions, EXPECTS)
    skipping = _closure(functions, SKIPS)
    out = []
    for fn in functions.values():
        skips = [(m.start(), m.group(1)) for m in SKIPS.finditer(fn.body)]
        skips += [(m.start(), m.group(1)) for m in CALL.finditer(fn.body)
                  if m.group(1) in skipping and m.group(1) != fn.name]
        for at, what in sorted(skips):
            earlier = _first(expecting, fn.body, at)
            if earlier:
                body_line = fn.line - 1
                out.append(Finding(fn.path, body_line + _line(fn.body, at), fn.name, what,
                                   earlier[1], body_line + _line(fn.body, earlier[0])))
                break
    return sorted(out, key=lambda f: (str(f.path), f.line))


def kunit_sources(roots: Sequence[Path]) -> List[Path]:
    return sorted(p for root in roots for p in root.rglob('*')
                  if p.suffix in ('.c', '.h') and 'kunit' in p.name)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a.startswith('-') for a in args):
        print(__doc__.strip().splitlines()[-1].strip())
        return 2
    roots = [Path(a) for a in args] or [Path('kernel-overlay')]
    problems = findings(read_functions(kunit_sources(roots)))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
