"""What a search looks for: a literal needle (the default) or a regex, and how it matches.

Textual-free. A literal needle matches case-insensitively (ASCII), as it always did. A regex (ctrl+r in
the search line) uses smart case, as less's -i and lnav do: case-insensitive unless the pattern holds an
uppercase letter of its own (``\\S``, ``\\W``, ``\\D`` ... are escapes, not letters).

A regex runs on the third-party ``regex`` module, not ``re``: ``re`` cannot be stopped and holds the GIL
while it backtracks, so a catastrophic pattern (``(a|aa)+$``) would freeze the UI. Every call here gets
a ``timeout`` and ``concurrent=True`` (the GIL is released while it matches): a pattern that takes too
long raises `PatternTooSlow` in the scan, and styles nothing in a row.
"""

from __future__ import annotations

import re

from msgspec import Struct

SCAN_TIMEOUT = 0.5  # s per regex call on one scan window (a sane pattern takes ms on 2 MiB)
ROW_TIMEOUT = 0.01  # s per row's highlight: a row is a few hundred characters
PATTERN_CHARS = 1000  # longer patterns are refused (the prompt's own bound)
REPEAT_PRODUCT = 100_000  # counted repeats ({n}) multiplied past this are refused: regex expands them
# when it compiles, unbounded in time and memory ((?:a{1000}){1000}: seconds, 300 MB; 1e5: 0.2 s)
_COUNTED = re.compile(r"(?<!\\)\{(\d*)(?:,(\d*))?\}")


class BadPattern(ValueError):
    """The pattern does not compile: ``str(exc)`` is one line for a notice."""


class PatternTooSlow(Exception):
    """A regex call ran past its timeout (catastrophic backtracking)."""


def smart_case_sensitive(pattern: str) -> bool:
    """True when ``pattern`` holds an uppercase letter that is not the letter of an escape (``\\S``)."""
    escaped = False
    for c in pattern:
        if escaped:
            escaped = False
            continue
        if c == "\\":
            escaped = True
        elif c.isupper():
            return True
    return False


class Query(Struct, frozen=True):
    """One search: ``text`` as typed; ``regex`` mode; ``case`` sensitive or not."""

    text: str
    regex: bool = False
    case: bool = False
    raw: object = None  # bytes pattern (regex mode) for the log text
    shown: object = None  # str pattern for the rows' highlight

    def __eq__(self, other: object) -> bool:  # a search is its text and modes, not its compiled patterns
        return type(other) is Query and (self.text, self.regex, self.case) == (other.text, other.regex, other.case)

    def __hash__(self) -> int:
        return hash((self.text, self.regex, self.case))

    def __repr__(self) -> str:
        return f"Query(text={self.text!r}, regex={self.regex}, case={self.case})"

    @property
    def key(self) -> bytes:
        """What hit lists are kept under: the literal's lower-cased bytes, a regex's mode and text."""
        if not self.regex:
            return self.text.encode("utf-8", "replace").lower()
        return (b"re:" if not self.case else b"RE:") + self.text.encode("utf-8", "replace")

    @property
    def label(self) -> str:
        """How the title names it: the text; a regex as ``re:`` and the text, `` (case)`` when case counts."""
        if not self.regex:
            return self.text
        return f"re:{self.text}" + (" (case)" if self.case else "")

    def holds(self, text: str) -> bool:
        """Whether ``text`` (a packed row's member) matches."""
        if not self.regex:
            return self.text.lower() in text.lower()
        try:
            return self.shown.search(text, timeout=SCAN_TIMEOUT, concurrent=True) is not None
        except TimeoutError:
            raise PatternTooSlow() from None


def make_query(text: str, use_regex: bool = False) -> Query:
    """The query for ``text``; raises `BadPattern` (one line) when a regex does not compile."""
    import regex  # here: ~10-35 ms to import, and `check` never searches
    if not use_regex:
        return Query(text, False, False, None, regex.compile(regex.escape(text), regex.IGNORECASE) if text else None)
    if len(text) > PATTERN_CHARS:
        raise BadPattern(f"the pattern is longer than {PATTERN_CHARS} characters")
    if _repeat_product(text) > REPEAT_PRODUCT:
        raise BadPattern(f"the pattern's counted repeats ({{n}}) multiply past {REPEAT_PRODUCT:,}: too costly")
    case = smart_case_sensitive(text)
    flags = regex.MULTILINE | (0 if case else regex.IGNORECASE)  # ^ and $: a record's (a line's) ends
    try:
        raw = regex.compile(text.encode("utf-8", "surrogatepass"), flags)
        shown = regex.compile(text, flags)
    except (regex.error, ValueError, OverflowError, RecursionError, UnicodeError) as exc:
        raise BadPattern(f"not a valid regex: {_reason(exc)}") from None
    return Query(text, True, case, raw, shown)


def _repeat_product(text: str) -> int:
    """The product of the pattern's counted repeat bounds (``{3}``, ``{2,50}``, ``{9,}``): a bound on how
    far compiling expands it, whether or not the repeats nest."""
    product = 1
    for m in _COUNTED.finditer(text):
        low, high = m.group(1), m.group(2)
        n = max(int(low or 0), int(high or 0)) if len(low or "") < 12 and len(high or "") < 12 else 10**12
        product *= max(1, n)
        if product > REPEAT_PRODUCT:
            break
    return product


def _reason(exc: BaseException) -> str:
    msg = " ".join(str(exc).split()) or type(exc).__name__
    return msg[:120]


def find_in(query: Query, buf: bytes, pos: int, endpos: int) -> int:
    """The offset of the first match of ``query`` in ``buf[pos:endpos]`` (a regex; -1 when none)."""
    try:
        m = query.raw.search(buf, pos, endpos, timeout=SCAN_TIMEOUT, concurrent=True)
    except TimeoutError:
        raise PatternTooSlow() from None
    return -1 if m is None else m.start()


_SLOW: set = set()  # patterns that ran past ROW_TIMEOUT on a row: they style no row again
SLOW_KEPT = 64


def row_spans(pattern, text: str, limit: int = 64) -> list[tuple[int, int]]:
    """The spans of ``pattern`` (a `regex` pattern) in ``text``; none when it runs past `ROW_TIMEOUT`, and
    none from then on for that pattern (a screen of rows would cost a timeout each)."""
    spans: list[tuple[int, int]] = []
    if pattern in _SLOW:
        return spans
    try:
        for m in pattern.finditer(text, timeout=ROW_TIMEOUT, concurrent=True):
            if m.end() > m.start():
                spans.append(m.span())
                if len(spans) >= limit:
                    break
    except TimeoutError:
        if len(_SLOW) >= SLOW_KEPT:
            _SLOW.clear()
        _SLOW.add(pattern)
        return []
    return spans
