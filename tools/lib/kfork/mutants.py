"""Mutants of the overlay's C files: one plausible bug each.

A small C tokenizer (comments, string and character literals and
preprocessor lines, with their continuations, produce no token), then
the classic operators on the tokens, each a one-place edit of the text:

  ror-boundary  a relational operator's boundary: < and <=, > and >=
                swap (Mull's cxx_boundary; a condition's negation is
                if-negate's, so the full ROR set would mostly repeat it)
  eq-flip       == and != swap
  const         an integer constant (decimal or hex, any suffix) +1, -1
  shift         a shift amount (the constant after <<, >>, <<=, >>=)
                +1, -1
  logic-swap    && and || swap
  stmt-delete   an expression statement goes: an assignment (=, op=,
                ++, --) or a call whose result is unused; never a
                declaration, return, goto, break or continue
  ternary-swap  c ? a : b becomes c ? b : a
  if-negate     if (c) becomes if (!(c))

The C is not parsed: brackets are matched, braces classified (function
body, initialiser, struct/union/enum definition) and statements found
at their bracket depth, which is all the operators need. Mutants that
cannot change what a test sees are not made, each for a stated reason
(SKIP_REASONS): inside a compile-time check, module metadata, a log
message, a type expression (sizeof, typeof, offsetof), an attribute or
a KUnit hook; in a struct/union/enum definition, an ops table's
initialiser, a declaration's array size or an initialiser's
designator; the deletion of an assertion (WARN_ON, lockdep_assert
...), which never fires on a correct kernel, and of a call gcc makes
no code for (va_end); and a module's __exit function, which the
built-in kernels the tests boot discard. What was skipped is kept
(FileMutants.skipped), by reason.

Each mutant is one contiguous replacement of the text (apply() and
revert() are exact inverses), its id stable across runs for the same
text: path:line:col:operator:index. sample() picks a file's mutants
with a random.Random seeded from the seed and the path, so a file's
sample does not depend on which other files a run takes.
"""

from __future__ import annotations

import bisect
import difflib
import random
import re
from dataclasses import asdict, dataclass, field
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

# The operators, in the order a position's mutants are listed.
ROR_BOUNDARY = 'ror-boundary'
EQ_FLIP = 'eq-flip'
CONST = 'const'
SHIFT = 'shift'
LOGIC_SWAP = 'logic-swap'
STMT_DELETE = 'stmt-delete'
TERNARY_SWAP = 'ternary-swap'
IF_NEGATE = 'if-negate'
OPERATORS = (ROR_BOUNDARY, EQ_FLIP, CONST, SHIFT, LOGIC_SWAP, STMT_DELETE, TERNARY_SWAP,
             IF_NEGATE)

# Why a mutant that an operator would make is not made.
SKIP_COMPILE_TIME = 'compile-time check'
SKIP_METADATA = 'module metadata'
SKIP_LOG = 'log message'
SKIP_TYPE_EXPR = 'type expression'
SKIP_ATTRIBUTE = 'attribute'
SKIP_KUNIT = 'KUnit hook'
SKIP_TYPE_DEF = 'type definition'
SKIP_OPS_TABLE = 'ops table'
SKIP_ARRAY_SIZE = 'array size'
SKIP_DESIGNATOR = 'designator'
SKIP_ASSERTION = 'assertion'
SKIP_NO_CODE = 'no code'
SKIP_MODULE_EXIT = 'module exit'
SKIP_REASONS = (SKIP_COMPILE_TIME, SKIP_METADATA, SKIP_LOG, SKIP_TYPE_EXPR, SKIP_ATTRIBUTE,
                SKIP_KUNIT, SKIP_TYPE_DEF, SKIP_OPS_TABLE, SKIP_ARRAY_SIZE, SKIP_DESIGNATOR,
                SKIP_ASSERTION, SKIP_NO_CODE, SKIP_MODULE_EXIT)

# Calls (and call-like macros and keywords) whose arguments are not
# mutated, by reason: exact names, then name prefixes.
_CALLS: Mapping[str, str] = {
    'BUILD_BUG_ON': SKIP_COMPILE_TIME, 'BUILD_BUG_ON_MSG': SKIP_COMPILE_TIME,
    'BUILD_BUG_ON_ZERO': SKIP_COMPILE_TIME, 'BUILD_BUG_ON_NOT_POWER_OF_2': SKIP_COMPILE_TIME,
    'static_assert': SKIP_COMPILE_TIME, '_Static_assert': SKIP_COMPILE_TIME,
    'compiletime_assert': SKIP_COMPILE_TIME,
    '__setup': SKIP_METADATA, 'early_param': SKIP_METADATA, 'core_param': SKIP_METADATA,
    'module_init': SKIP_METADATA, 'module_exit': SKIP_METADATA,
    'NOKPROBE_SYMBOL': SKIP_METADATA, 'ALLOW_ERROR_INJECTION': SKIP_METADATA,
    'printk': SKIP_LOG,
    'sizeof': SKIP_TYPE_EXPR, 'typeof': SKIP_TYPE_EXPR, '__typeof__': SKIP_TYPE_EXPR,
    '__typeof': SKIP_TYPE_EXPR, '_Alignof': SKIP_TYPE_EXPR, '__alignof__': SKIP_TYPE_EXPR,
    'alignof': SKIP_TYPE_EXPR, 'offsetof': SKIP_TYPE_EXPR, 'offsetofend': SKIP_TYPE_EXPR,
    'sizeof_field': SKIP_TYPE_EXPR, '__same_type': SKIP_TYPE_EXPR,
    '__builtin_types_compatible_p': SKIP_TYPE_EXPR,
    '__attribute__': SKIP_ATTRIBUTE, '__attribute': SKIP_ATTRIBUTE, '__aligned': SKIP_ATTRIBUTE,
    '__section': SKIP_ATTRIBUTE, '__printf': SKIP_ATTRIBUTE, '__scanf': SKIP_ATTRIBUTE,
}
_CALL_PREFIXES: Tuple[Tuple[str, str], ...] = (
    ('MODULE_', SKIP_METADATA), ('module_param', SKIP_METADATA), ('EXPORT_SYMBOL', SKIP_METADATA),
    ('pr_', SKIP_LOG), ('printk_', SKIP_LOG), ('KUNIT_', SKIP_KUNIT), ('kunit_', SKIP_KUNIT),
)
# dev_err(), netdev_warn(), net_info_ratelimited() and the like.
_LOG_CALL = re.compile(r'^(dev|netdev|net)_(emerg|alert|crit|err|warn|notice|info|dbg)')
_INITCALL = re.compile(r'^[a-z_]*initcall(_sync)?$')
# Checks that never fire on a correct kernel: deleting one only loses a
# report that the tests cannot provoke without another bug.
_ASSERTIONS = frozenset({
    'WARN', 'WARN_ON', 'WARN_ONCE', 'WARN_ON_ONCE', 'WARN_TAINT', 'BUG', 'BUG_ON', 'VM_BUG_ON',
    'VM_WARN_ON', 'VM_WARN_ON_ONCE', 'RCU_LOCKDEP_WARN', 'might_sleep', 'might_fault',
    'might_resched', 'cant_sleep', 'cant_migrate'})
_ASSERTION_PREFIXES = ('lockdep_assert', 'WARN_ON_', 'BUG_ON_')
# Calls gcc emits no instruction for: deleting one changes no binary.
_NO_CODE = frozenset({'va_end'})
# Initialisers of these struct types are tables of callbacks.
_OPS_TYPE = re.compile(r'(_ops|_operations|_functions|_funcs|^notifier_block)$')
# Declaration-defining macros that read like calls.
_DECL_MACRO = re.compile(r'^(DEFINE_|DECLARE_)|^(LIST_HEAD|HLIST_HEAD|LLIST_HEAD)$')

KEYWORDS = frozenset({
    'auto', 'break', 'case', 'char', 'const', 'continue', 'default', 'do', 'double', 'else',
    'enum', 'extern', 'float', 'for', 'goto', 'if', 'inline', 'int', 'long', 'register',
    'restrict', 'return', 'short', 'signed', 'sizeof', 'static', 'struct', 'switch', 'typedef',
    'union', 'unsigned', 'void', 'volatile', 'while', '_Bool', 'bool', 'typeof', '__typeof__',
    'asm', '__asm__', '__inline__', '_Alignof', '__alignof__'})
# First words of a declaration inside a function body.
_DECL_WORDS = frozenset({
    'auto', 'char', 'const', 'double', 'enum', 'extern', 'float', 'int', 'long', 'register',
    'short', 'signed', 'static', 'struct', 'union', 'unsigned', 'void', 'volatile', '_Bool',
    'bool', 'typeof', '__typeof__', 'typedef'})
# Statements that are not expression statements.
_CONTROL = frozenset({'if', 'for', 'while', 'switch', 'do', 'else', 'return', 'goto', 'break',
                      'continue', 'case', 'default', 'asm', '__asm__', 'typedef'})
_ASSIGN = frozenset({'=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>='})
_SHIFTS = frozenset({'<<', '>>', '<<=', '>>='})
_ROR = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'}
_EQ = {'==': '!=', '!=': '=='}
_LOGIC = {'&&': '||', '||': '&&'}

IDENT, NUMBER, PUNCT, STRING, CHAR = 'ident', 'number', 'punct', 'string', 'char'
_PUNCTUATORS = sorted(
    ['>>=', '<<=', '...', '->', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||',
     '*=', '/=', '%=', '+=', '-=', '&=', '^=', '|=', '##'], key=len, reverse=True)
_IDENT_RE = re.compile(r'[A-Za-z_$][A-Za-z0-9_$]*')
_NUMBER_RE = re.compile(r'\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*')
_CONDITIONAL = re.compile(r'#\s*(if|ifdef|ifndef|elif|else|endif)\b')
_DECIMAL = re.compile(r'^([1-9][0-9]*|0)([uUlL]*)$')
_HEX = re.compile(r'^(0[xX])([0-9a-fA-F]+)([uUlL]*)$')


class MutantError(ValueError):
    """A file the generator cannot read (unbalanced brackets)."""


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    line: int
    col: int
    # The innermost #if/#elif/#else segment the token lies in (0: none).
    segment: int = 0

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def _quoted_end(text: str, i: int) -> int:
    """The end of the string or character literal opening at i (at the
    line's end when it never closes, as in an #error's apostrophe)."""
    quote, k = text[i], i + 1
    while k < len(text):
        c = text[k]
        if c == '\\':
            k += 2
            continue
        if c == quote:
            return k + 1
        if c == '\n':
            return k
        k += 1
    return len(text)


def _comment_end(text: str, i: int) -> int:
    """The end of the comment opening at i."""
    if text.startswith('//', i):
        k = text.find('\n', i)
        return len(text) if k < 0 else k
    k = text.find('*/', i + 2)
    return len(text) if k < 0 else k + 2


def _directive_end(text: str, i: int) -> int:
    """The newline ending the preprocessor line at i: backslash
    continuations and comments spanning lines belong to it."""
    k = i
    while k < len(text):
        if text.startswith('\\\n', k):
            k += 2
        elif text.startswith('/*', k) or text.startswith('//', k):
            k = _comment_end(text, k)
        elif text[k] in '"\'':
            k = _quoted_end(text, k)
        elif text[k] == '\n':
            return k
        else:
            k += 1
    return k


def tokenize(text: str) -> List[Token]:
    """The tokens of C text outside comments, literals' insides and
    preprocessor lines, each with the #if segment it lies in."""
    line_starts = [0] + [m.end() for m in re.finditer('\n', text)]
    tokens: List[Token] = []
    segments = [0]
    next_segment = 1
    i, n, bol = 0, len(text), True

    def add(kind: str, end: int) -> None:
        line = bisect.bisect_right(line_starts, i)
        tokens.append(Token(kind, text[i:end], i, line, i - line_starts[line - 1] + 1,
                            segments[-1]))

    while i < n:
        c = text[i]
        if c == '\n':
            bol, i = True, i + 1
        elif c in ' \t\r\f\v':
            i += 1
        elif text.startswith('\\\n', i):
            i += 2
        elif text.startswith('/*', i) or text.startswith('//', i):
            i = _comment_end(text, i)
        elif c == '#' and bol:
            m = _CONDITIONAL.match(text, i)
            if m and m.group(1) in ('if', 'ifdef', 'ifndef'):
                segments.append(next_segment)
                next_segment += 1
            elif m and m.group(1) in ('elif', 'else') and len(segments) > 1:
                segments[-1] = next_segment
                next_segment += 1
            elif m and m.group(1) == 'endif' and len(segments) > 1:
                segments.pop()
            i = _directive_end(text, i)
        else:
            bol = False
            if c in '"\'':
                end = _quoted_end(text, i)
                add(STRING if c == '"' else CHAR, end)
            elif (m := _NUMBER_RE.match(text, i)) is not None:
                end = m.end()
                add(NUMBER, end)
            elif (m := _IDENT_RE.match(text, i)) is not None:
                end = m.end()
                add(IDENT, end)
            else:
                end = i + next((len(p) for p in _PUNCTUATORS if text.startswith(p, i)), 1)
                add(PUNCT, end)
            i = end
    return tokens


@dataclass(frozen=True)
class Mutant:
    """One edit of a file: original, at offset, becomes replacement."""

    path: str
    line: int
    col: int
    operator: str
    index: int
    offset: int
    original: str
    replacement: str
    # The function whose body holds it ('' outside function bodies).
    function: str = ''

    @property
    def id(self) -> str:
        return f'{self.path}:{self.line}:{self.col}:{self.operator}:{self.index}'

    @property
    def location(self) -> str:
        return f'{self.path}:{self.line}'

    def apply(self, text: str) -> str:
        if text[self.offset:self.offset + len(self.original)] != self.original:
            raise MutantError(f'{self.id}: the file changed since the mutant was made')
        return text[:self.offset] + self.replacement + text[self.offset + len(self.original):]

    def revert(self, mutated: str) -> str:
        end = self.offset + len(self.replacement)
        if mutated[self.offset:end] != self.replacement:
            raise MutantError(f'{self.id}: not this mutant\'s text')
        return mutated[:self.offset] + self.original + mutated[end:]

    def describe(self, width: int = 40) -> str:
        """'original' -> 'replacement', shortened to one line."""
        def short(s: str) -> str:
            s = ' '.join(s.split())
            return s if len(s) <= width else s[:width - 3] + '...'
        return f'{short(self.original)!r} -> {short(self.replacement)!r}'

    def diff(self, text: str, prefix: str = '') -> str:
        """The unified diff of the mutant against text, the file named
        prefix + path on both sides (a/ and b/)."""
        name = prefix + self.path
        return ''.join(difflib.unified_diff(text.splitlines(keepends=True),
                                            self.apply(text).splitlines(keepends=True),
                                            f'a/{name}', f'b/{name}', n=3))

    def to_dict(self) -> Dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> 'Mutant':
        """The inverse of to_dict; ValueError on anything else."""
        try:
            ints = {k: int(str(data[k])) for k in ('line', 'col', 'index', 'offset')}
            strs = {k: str(data[k]) for k in ('path', 'operator', 'original', 'replacement',
                                                'function')}
        except KeyError as err:
            raise ValueError(f'not a mutant: no {err}') from err
        if strs['operator'] not in OPERATORS:
            raise ValueError(f'not a mutant: operator {strs["operator"]!r}')
        return cls(strs['path'], ints['line'], ints['col'], strs['operator'], ints['index'],
                   ints['offset'], strs['original'], strs['replacement'], strs['function'])


@dataclass(frozen=True)
class Skipped:
    """A mutant an operator would make at line, not made for reason."""

    line: int
    operator: str
    reason: str


@dataclass
class FileMutants:
    """A file's mutants in order of position, what was skipped, and
    what coverage needs: the lines that hold tokens, each #if segment's
    lines, and the first line of each function body."""

    path: str
    text: str
    mutants: List[Mutant]
    skipped: List[Skipped]
    token_lines: Set[int] = field(default_factory=set)
    segment_lines: Dict[int, Set[int]] = field(default_factory=dict)
    segment_of: Dict[Tuple[int, int], int] = field(default_factory=dict)
    functions: Dict[str, int] = field(default_factory=dict)

    def skip_counts(self) -> Dict[str, int]:
        counts: Dict[str, int] = {}
        for s in self.skipped:
            counts[s.reason] = counts.get(s.reason, 0) + 1
        return counts


# Brace blocks.
FILE_SCOPE, CODE, INIT, TYPE = 'file', 'code', 'init', 'type'


@dataclass
class _Block:
    kind: str
    parent: int
    depth: int
    function: str = ''
    reason: Optional[str] = None
    function_line: int = 0


def _call_reason(name: str) -> Optional[str]:
    if name in _CALLS:
        return _CALLS[name]
    for prefix, reason in _CALL_PREFIXES:
        if name.startswith(prefix):
            return reason
    if _LOG_CALL.match(name):
        return SKIP_LOG
    if _INITCALL.match(name):
        return SKIP_METADATA
    return None


def _is_assertion(name: str) -> bool:
    return name in _ASSERTIONS or name.startswith(_ASSERTION_PREFIXES)


def _int_steps(text: str) -> List[str]:
    """text + 1 and text - 1 for an integer literal, in its own base,
    case, width and suffix; none below zero, none for other literals
    (octal, floating, character)."""
    m = _HEX.match(text)
    if m:
        prefix, digits, suffix = m.groups()
        value = int(digits, 16)
        upper = any(c.isupper() for c in digits)
        out = []
        for v in (value + 1, value - 1):
            if v >= 0:
                d = format(v, 'X' if upper else 'x').rjust(len(digits), '0')
                out.append(prefix + d + suffix)
        return out
    m = _DECIMAL.match(text)
    if m:
        value, suffix = int(m.group(1)), m.group(2)
        return [str(v) + suffix for v in (value + 1, value - 1) if v >= 0]
    return []


class _Reader:
    """Brackets, blocks, statements and skip contexts of a token list."""

    def __init__(self, path: str, text: str, tokens: List[Token]):
        self.path, self.text, self.tokens = path, text, tokens
        n = len(tokens)
        self.match = [-1] * n
        self.depth = [0] * n        # ( and [ open around the token
        self.block = [-1] * n       # innermost brace block (-1: file scope)
        self.blocks: List[_Block] = []
        self.opens: Dict[int, int] = {}     # the block each '{' opens
        self.reason: List[Optional[str]] = [None] * n
        self._match_brackets()
        self._classify_blocks()
        self.decl_brackets: Set[int] = set()
        # Expression statements: first token, its ';', a skip reason.
        self.statements: List[Tuple[int, int, Optional[str]]] = []
        self._find_statements()
        self._contexts()

    def _match_brackets(self) -> None:
        stack: List[int] = []
        pairs = {')': '(', ']': '[', '}': '{'}
        depth = 0
        for i, tok in enumerate(self.tokens):
            if tok.kind != PUNCT:
                self.depth[i] = depth
                continue
            if tok.text in '([{':
                self.depth[i] = depth
                stack.append(i)
                if tok.text != '{':
                    depth += 1
            elif tok.text in pairs:
                if not stack or self.tokens[stack[-1]].text != pairs[tok.text]:
                    raise MutantError(f'{self.path}:{tok.line}: unbalanced {tok.text!r}: '
                                      f'the mutant generator cannot read this file')
                o = stack.pop()
                self.match[o], self.match[i] = i, o
                if tok.text != '}':
                    depth -= 1
                self.depth[i] = depth
            else:
                self.depth[i] = depth
        if stack:
            tok = self.tokens[stack[-1]]
            raise MutantError(f'{self.path}:{tok.line}: unclosed {tok.text!r}: '
                              f'the mutant generator cannot read this file')

    def kind(self, b: int) -> str:
        """The kind of block b (-1: the file scope)."""
        return self.blocks[b].kind if b >= 0 else FILE_SCOPE

    def _decl_start(self, i: int) -> int:
        """The first token of the file-scope declaration holding i."""
        k = i - 1
        while k >= 0 and not (self.block[k] == -1 and self.depth[k] == 0
                              and self.tokens[k].text in (';', '}')):
            k -= 1
        return k + 1

    def _function(self, i: int, parent: int, depth: int) -> _Block:
        """The body of the function opening at i, named as the name
        before its declaration's first parenthesis, and starting there.
        An __exit function is skipped whole: the kernels the tests boot
        build the file in, and a built-in kernel discards it unrun."""
        start = self._decl_start(i)
        reason = SKIP_MODULE_EXIT if any(t.text == '__exit' for t in self.tokens[start:i]) else None
        for k in range(start, i):
            if self.tokens[k].text == '(' and k and self.tokens[k - 1].kind == IDENT:
                name = self.tokens[k - 1]
                return _Block(CODE, parent, depth, name.text, reason=reason,
                              function_line=name.line)
        return _Block(CODE, parent, depth, reason=reason)

    def _classify(self, i: int, parent: int) -> _Block:
        tokens, depth = self.tokens, self.depth[i]
        prev = tokens[i - 1] if i else None
        pkind = self.kind(parent)
        preason = self.blocks[parent].reason if parent >= 0 else None
        if prev is None:
            return _Block(TYPE, parent, depth, reason=SKIP_TYPE_DEF)
        if prev.text == '(':
            return _Block(CODE, parent, depth, self.blocks[parent].function if parent >= 0 else '',
                          reason=preason)
        if pkind == INIT:
            return _Block(INIT, parent, depth, reason=preason)
        if prev.text == '=':
            reason = None
            if pkind == FILE_SCOPE:
                decl = tokens[self._decl_start(i):i]
                for a, b in zip(decl, decl[1:]):
                    if a.text in ('struct', 'union') and _OPS_TYPE.search(b.text):
                        reason = SKIP_OPS_TABLE
            return _Block(INIT, parent, depth, reason=reason)
        before = tokens[i - 2].text if i >= 2 else ''
        if prev.text in ('struct', 'union', 'enum') or (prev.kind == IDENT and before in
                                                         ('struct', 'union', 'enum')):
            return _Block(TYPE, parent, depth, reason=SKIP_TYPE_DEF)
        if prev.text == ')':
            if pkind == FILE_SCOPE:
                return self._function(i, parent, depth)
            o = self.match[i - 1]
            if pkind == CODE and o > 0 and tokens[o - 1].kind == IDENT:
                return _Block(CODE, parent, depth, self.blocks[parent].function, reason=preason)
            return _Block(INIT, parent, depth, reason=preason)   # a compound literal
        if pkind == CODE:
            return _Block(CODE, parent, depth, self.blocks[parent].function, reason=preason)
        return _Block(TYPE, parent, depth, reason=SKIP_TYPE_DEF)

    def _classify_blocks(self) -> None:
        current = -1
        for i, tok in enumerate(self.tokens):
            self.block[i] = current
            if tok.text == '{' and tok.kind == PUNCT:
                self.blocks.append(self._classify(i, current))
                current = self.opens[i] = len(self.blocks) - 1
            elif tok.text == '}' and tok.kind == PUNCT:
                current = self.blocks[current].parent
                self.block[i] = current

    def _top(self, i: int, b: int) -> bool:
        """Token i sits directly in code block b, at its bracket depth."""
        return self.block[i] == b and self.depth[i] == self.blocks[b].depth

    def _closes_code(self, i: int) -> bool:
        """Token i is the '}' of a function body or compound statement."""
        return self.tokens[i].text == '}' and self.kind(self.opens[self.match[i]]) == CODE

    def _starts_statement(self, i: int, starts: Set[int], labels: Set[int]) -> bool:
        b = self.block[i]
        if b < 0 or self.kind(b) != CODE or not self._top(i, b) or not i:
            return False
        tok, prev = self.tokens[i], self.tokens[i - 1]
        if tok.text in ('{', '}', ';'):
            return False
        if prev.text == '{':
            return True                 # this block's own brace
        if prev.text == ';':
            return self._top(i - 1, b)
        if prev.text == '}':            # not the end of a ({ ... }) inside an expression
            return self._top(i - 1, b) and self._closes_code(i - 1)
        if prev.text in ('else', 'do'):
            return True
        if prev.text == ':':
            return i - 1 in labels
        if prev.text == ')' and self._top(i - 1, b):
            head = self.match[i - 1] - 1
            return head >= 0 and self.tokens[head].kind == IDENT and (
                self.tokens[head].text in ('if', 'while', 'for', 'switch') or head in starts)
        return False

    def _label_colon(self, i: int, b: int) -> int:
        """The colon ending the case or default label at i."""
        k, nest = i + 1, 0
        while k < len(self.tokens):
            if self._top(k, b):
                if self.tokens[k].text == '?':
                    nest += 1
                elif self.tokens[k].text == ':':
                    if not nest:
                        return k
                    nest -= 1
            k += 1
        return k

    def _find_statements(self) -> None:
        """Expression statements that stmt-delete may remove, and the
        array sizes of declarations in function bodies."""
        tokens = self.tokens
        starts: Set[int] = set()
        labels: Set[int] = set()     # colons that end a label
        for i, tok in enumerate(tokens):
            if not self._starts_statement(i, starts, labels):
                continue
            starts.add(i)
            b = self.block[i]
            if tok.text in ('case', 'default'):
                labels.add(self._label_colon(i, b))
            elif (tok.kind == IDENT and tok.text not in KEYWORDS and i + 1 < len(tokens)
                  and tokens[i + 1].text == ':'):
                labels.add(i + 1)
            elif tok.text not in _CONTROL:
                self._statement(i)

    def _statement(self, s: int) -> None:
        """Record the statement starting at s when it is an expression
        statement (its own brackets' insides are skipped: the words
        left are those at its depth)."""
        tokens, n = self.tokens, len(self.tokens)
        top: List[int] = []
        k = s
        while k < n:
            t = tokens[k]
            if t.kind == PUNCT and t.text == '{':
                if self.kind(self.opens[k]) == CODE:
                    return              # a compound statement's head
                k = self.match[k] + 1   # an initialiser or compound literal
                continue
            if t.kind == PUNCT and t.text in ('(', '['):
                top += [k, self.match[k]]
                k = self.match[k] + 1
                continue
            if t.text == '}':
                return
            if t.text == ';':
                break
            top.append(k)
            k += 1
        if k >= n or not top:
            return
        words = [tokens[j] for j in top]
        first = words[0]
        declaration = first.text in _DECL_WORDS or (
            first.kind == IDENT and first.text not in KEYWORDS and len(words) > 1
            and (words[1].kind == IDENT or (words[1].text == '*' and self._pointer_decl(words))))
        callee = ''
        if words[-1].text == ')':
            o = self.match[top[-1]]
            if o > 0 and tokens[o - 1].kind == IDENT:
                callee = tokens[o - 1].text
        if declaration or _DECL_MACRO.search(callee):
            for j in top:
                if tokens[j].text == '=':
                    break
                if tokens[j].text == '[':
                    self.decl_brackets.add(j)
            return
        for j, w in zip(top, words[1:]):
            if tokens[j].text == ')' and w.kind == IDENT and self.match[j] > 0 \
                    and tokens[self.match[j] - 1].kind == IDENT:
                return                  # a loop macro's head: name(...) body
        texts = [w.text for w in words]
        if any(t in _ASSIGN for t in texts) or texts[0] in ('++', '--') or texts[-1] in ('++', '--'):
            reason = None
        elif texts[-1] == ')' and all(w.kind == IDENT or w.text in ('->', '.', '(', ')', '[', ']', '*')
                                      for w in words):
            reason = (_call_reason(callee) or (SKIP_ASSERTION if _is_assertion(callee) else None)
                      or (SKIP_NO_CODE if callee in _NO_CODE else None))
        else:
            return
        self.statements.append((s, k, reason))

    @staticmethod
    def _pointer_decl(words: Sequence[Token]) -> bool:
        """'T * name' followed by =, ;, [ or , is a declaration (a
        product of two names is no statement)."""
        k = 1
        while k < len(words) and words[k].text == '*':
            k += 1
        return k < len(words) and words[k].kind == IDENT and (
            k + 1 == len(words) or words[k + 1].text in ('=', '[', ','))

    def _contexts(self) -> None:
        """Each token's skip reason: its block's, or the outermost
        reason of the brackets around it."""
        tokens = self.tokens
        stack: List[Optional[str]] = []
        file_seen_eq = False
        for i, tok in enumerate(tokens):
            b = self.block[i]
            kind = self.kind(b)
            outer = next((r for r in stack if r), None)
            block_reason = self.blocks[b].reason if b >= 0 else None
            self.reason[i] = block_reason or outer
            if kind == FILE_SCOPE and self.depth[i] == 0:
                if tok.text in (';', '}'):
                    file_seen_eq = False
                elif tok.text == '=':
                    file_seen_eq = True
            if tok.kind != PUNCT:
                continue
            if tok.text == '(':
                callee = tokens[i - 1].text if i and tokens[i - 1].kind == IDENT else ''
                stack.append(_call_reason(callee) if callee else None)
            elif tok.text == '[':
                prev = tokens[i - 1].text if i else ''
                if i in self.decl_brackets or (kind == FILE_SCOPE and not file_seen_eq):
                    stack.append(SKIP_ARRAY_SIZE)
                elif kind == INIT and prev in ('{', ','):
                    stack.append(SKIP_DESIGNATOR)
                else:
                    stack.append(None)
            elif tok.text in (')', ']') and stack:
                stack.pop()

    def function_of(self, i: int) -> str:
        b = self.block[i]
        while b >= 0:
            if self.blocks[b].kind == CODE and self.blocks[b].function:
                return self.blocks[b].function
            b = self.blocks[b].parent
        return ''

    def binary(self, i: int) -> bool:
        """Token i stands between two operands (not a unary && of a
        label's address)."""
        if not i:
            return False
        prev = self.tokens[i - 1]
        return ((prev.kind == IDENT and prev.text not in KEYWORDS) or prev.kind in
                (NUMBER, STRING, CHAR) or prev.text in (')', ']', '++', '--'))

    def _operand_end(self, k: int, stops: Tuple[str, ...]) -> Tuple[int, bool]:
        """Scan an operand of ?: from token k, over brackets and nested
        ?: pairs: the index of the ':' at its own level or of the first
        token in stops, and whether a ':' ended it."""
        tokens, n, nest = self.tokens, len(self.tokens), 0
        while k < n:
            t = tokens[k].text
            if t in ('(', '[', '{') and tokens[k].kind == PUNCT:
                k = self.match[k] + 1
                continue
            if t in stops:
                return k, False
            if t == '?':
                nest += 1
            elif t == ':':
                if not nest:
                    return k, True
                nest -= 1
            k += 1
        return k, False

    def ternary(self, q: int) -> Optional[Tuple[int, int, int, int]]:
        """The operands of the ?: at q: first and last token of each."""
        tokens, n = self.tokens, len(self.tokens)
        if q + 1 >= n or tokens[q + 1].text == ':':
            return None                 # GNU a ?: b has no middle operand
        colon, found = self._operand_end(q + 1, (')', ']', '}', ';', ','))
        if not found or colon == q + 1:
            return None
        k, _ = self._operand_end(colon + 1, (')', ']', '}', ';', ',', *_ASSIGN))
        if k == colon + 1:
            return None
        return q + 1, colon - 1, colon + 1, k - 1


@dataclass(frozen=True)
class _Edit:
    anchor: int                 # the token whose line and column name it
    operator: str
    start: int
    end: int
    replacements: Tuple[str, ...]
    reason: Optional[str]


def _edits(r: _Reader) -> Iterator[_Edit]:
    tokens, text = r.tokens, r.text
    for i, tok in enumerate(tokens):
        reason = r.reason[i]
        if tok.kind == NUMBER:
            steps = _int_steps(tok.text)
            if steps:
                prev = tokens[i - 1].text if i else ''
                yield _Edit(i, SHIFT if prev in _SHIFTS else CONST, tok.start, tok.end,
                            tuple(steps), reason)
        elif tok.kind == PUNCT and tok.text in _ROR:
            yield _Edit(i, ROR_BOUNDARY, tok.start, tok.end, (_ROR[tok.text],), reason)
        elif tok.kind == PUNCT and tok.text in _EQ:
            yield _Edit(i, EQ_FLIP, tok.start, tok.end, (_EQ[tok.text],), reason)
        elif tok.kind == PUNCT and tok.text in _LOGIC and r.binary(i):
            yield _Edit(i, LOGIC_SWAP, tok.start, tok.end, (_LOGIC[tok.text],), reason)
        elif tok.kind == PUNCT and tok.text == '?':
            spans = r.ternary(i)
            if spans:
                a0, a1, b0, b1 = (tokens[j] for j in spans)
                swapped = text[b0.start:b1.end] + text[a1.end:b0.start] + text[a0.start:a1.end]
                yield _Edit(i, TERNARY_SWAP, a0.start, b1.end, (swapped,), reason)
        elif (tok.kind == IDENT and tok.text == 'if' and r.kind(r.block[i]) == CODE
              and i + 1 < len(tokens) and tokens[i + 1].text == '('
              and r.match[i + 1] > i + 2):
            first, last = tokens[i + 2], tokens[r.match[i + 1] - 1]
            yield _Edit(i, IF_NEGATE, first.start, last.end,
                        (f'!({text[first.start:last.end]})',), reason)
    for s, e, reason in r.statements:
        start, end = tokens[s].start, tokens[e].end
        if tokens[s - 1].text in ('{', ';', '}'):
            # Gone, with its line when it has the line to itself.
            line_start = text.rfind('\n', 0, start) + 1
            line_end = text.find('\n', end)
            line_end = len(text) if line_end < 0 else line_end
            if not text[line_start:start].strip() and not text[end:line_end].strip():
                start, end = line_start, min(line_end + 1, len(text))
            yield _Edit(s, STMT_DELETE, start, end, ('',), reason or r.reason[s])
        else:
            # The body of an if, else, loop or label: an empty block instead.
            yield _Edit(s, STMT_DELETE, start, end, ('{}',), reason or r.reason[s])


def generate(path: str, text: str) -> FileMutants:
    """Every mutant of a C file, in order of position and operator."""
    tokens = tokenize(text)
    reader = _Reader(path, text, tokens)
    mutants: List[Mutant] = []
    skipped: List[Skipped] = []
    edits = sorted(_edits(reader), key=lambda e: (e.start, tokens[e.anchor].start,
                                                  OPERATORS.index(e.operator)))
    for edit in edits:
        tok = tokens[edit.anchor]
        if edit.reason:
            skipped += [Skipped(tok.line, edit.operator, edit.reason)] * len(edit.replacements)
            continue
        for index, replacement in enumerate(edit.replacements):
            mutants.append(Mutant(path, tok.line, tok.col, edit.operator, index, edit.start,
                                  text[edit.start:edit.end], replacement,
                                  reader.function_of(edit.anchor)))
    segment_lines: Dict[int, Set[int]] = {}
    for tok in tokens:
        if tok.segment:
            segment_lines.setdefault(tok.segment, set()).add(tok.line)
    functions = {b.function: b.function_line for b in reader.blocks
                 if b.parent < 0 and b.kind == CODE and b.function}
    return FileMutants(path, text, mutants, skipped, {t.line for t in tokens}, segment_lines,
                       {(t.line, t.col): t.segment for t in tokens}, functions)


@dataclass(frozen=True)
class Reach:
    """What the coverage data says of a file's lines: executions of
    each line gcov counts as code, or None without data (then every
    line counts as reached)."""

    counts: Optional[Mapping[int, int]]

    @classmethod
    def of(cls, fm: FileMutants, counts: Optional[Mapping[int, int]]) -> Tuple['Reach', bool]:
        """The file's reach, and whether its data is stale: some line
        the data counts as code holds no token in the file as it is now
        (then every line counts as reached)."""
        if counts is None:
            return cls(None), False
        if any(line not in fm.token_lines for line in counts):
            return cls(None), True
        return cls(counts), False

    def reached(self, fm: FileMutants, m: Mutant) -> bool:
        """A line the data counts as code: reached when it ran. Any other
        line in a function body (a condition's or an expression's second
        line, an else) takes the nearest code line above it in the same
        function, unless the #if segment it lies in holds no code line
        at all (compiled out). Outside function bodies (tables, policy
        initialisers): reached."""
        if self.counts is None:
            return True
        if m.line in self.counts:
            return self.counts[m.line] > 0
        if not m.function:
            return True
        segment = fm.segment_of.get((m.line, m.col), 0)
        if segment and not any(line in self.counts for line in fm.segment_lines[segment]):
            return False
        first = fm.functions.get(m.function, 0)
        for line in range(m.line - 1, first - 1, -1):
            if line in self.counts:
                return self.counts[line] > 0
        return True


def sample(mutants: Sequence[Mutant], n: Optional[int], seed: int, path: str) -> List[Mutant]:
    """n of the mutants (all when n is None or not smaller), the same
    for the same seed, path and mutants on every machine, in order of
    position."""
    if n is None or n >= len(mutants):
        return list(mutants)
    rng = random.Random(f'{seed}:{path}')
    return [mutants[i] for i in sorted(rng.sample(range(len(mutants)), n))]
