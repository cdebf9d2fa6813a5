"""A JSON value as a foldable tree (jless's keys), for the JSON tree view (ui/screens/jsontree.py).

Textual-free. The visible rows are a flat list; unfolding a node inserts its children (a page of
them at a time: a 100,000-item array shows PAGE rows and a "more" row), folding removes its
descendants. Nothing recurses (a 10,000-deep value is walked with explicit stacks) and a row keeps
its parent, not its path, so a deep value costs one small object per row. A string that holds a JSON
object or array (a tool call's ``arguments``) unfolds into its parsed value; its raw text stays the
node's own value, byte for byte. Each row's path can be copied as JSONPath (``$.args.files[2].path``)
and as a jq filter (``.args.files[2].path``, ``| fromjson |`` where a parsed string is entered).
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import Struct
import orjson

from ..reading.jsonparse import parse_json

PAGE = 500  # children a node shows at once; a "more" row shows the next page
EXPAND_ALL_ROWS = 20_000  # rows "unfold all" makes at most
SEARCH_NODES = 2_000_000  # values a search visits at most
MAX_EMBEDDED = 8 << 20  # a string is parsed as JSON only up to this length
# jq 1.6 reads .e1 / .E10 as a number (an exponent): such a key is quoted like any other. \Z, not $:
# $ also matches before a last newline, and jq reads ".A\n" as .A (another key's value)
_IDENT = re.compile(r"(?![eE][0-9]+\Z)[A-Za-z_][A-Za-z0-9_]*\Z")
_MORE = object()


class Row(Struct, eq=False):
    parent: "Row | None"
    key: Any  # a str (object key), an int (array index), None for the root
    value: Any
    depth: int
    parsed: bool = False  # a JSON string unfolded into its parsed value (value: the parsed one; raw: the text)
    raw: str | None = None
    open: bool = False
    shown: int = 0  # children shown while open (a page at a time)
    more: bool = False  # a "... n more" row (key: the index it starts at)

    def __repr__(self) -> str:  # not the generated one: it would follow the parents (10,000 deep)
        return f"Row(key={self.key!r}, depth={self.depth}, open={self.open})"

    @property
    def container(self) -> bool:
        return not self.more and isinstance(self.value, (dict, list))

    def count(self) -> int:
        return len(self.value) if self.container else 0


def embedded(value: Any) -> Any:
    """The JSON object or array a string holds (None when it holds none)."""
    if not isinstance(value, str) or len(value) > MAX_EMBEDDED:
        return None
    s = value.lstrip()
    if not s or s[0] not in "{[":
        return None
    try:
        parsed, _lenient = parse_json(value.encode("utf-8", "surrogatepass"))
    except Exception:  # not JSON (or too deep for the parser): it stays a string
        return None
    return parsed if isinstance(parsed, (dict, list)) else None


def _child(parent: Row, key: Any, value: Any) -> Row:
    inner = embedded(value)
    if inner is not None:
        return Row(parent, key, inner, parent.depth + 1, parsed=True, raw=value)
    return Row(parent, key, value, parent.depth + 1)


class JsonTree:
    def __init__(self, value: Any, *, open_levels: int = 2) -> None:
        inner = embedded(value)
        self.root = Row(None, None, inner if inner is not None else value, 0,
                        parsed=inner is not None, raw=value if inner is not None else None)
        self.rows: list[Row] = [self.root]
        k = 0
        while k < len(self.rows) and len(self.rows) < PAGE:  # the first levels open, a page of rows in all
            row = self.rows[k]
            if row.container and row.depth < open_levels and not row.open:
                self.unfold(k)
            k += 1

    # -- folding ---------------------------------------------------------------
    def _children(self, row: Row, start: int, stop: int) -> list[Row]:
        v = row.value
        if isinstance(v, dict):
            items = list(v.items())[start:stop] if len(v) > stop - start else list(v.items())[start:]
            out = [_child(row, k, x) for k, x in items]
        else:
            out = [_child(row, i, v[i]) for i in range(start, min(stop, len(v)))]
        if stop < len(v):
            out.append(Row(row, stop, None, row.depth + 1, more=True))
        return out

    def unfold(self, k: int) -> int:
        """Open row ``k`` (a "more" row: show the next page in its place). Rows added."""
        row = self.rows[k]
        if row.more:
            owner = row.parent
            added = self._children(owner, row.key, row.key + PAGE)
            owner.shown = min(len(owner.value), row.key + PAGE)
            self.rows[k:k + 1] = added
            return len(added) - 1
        if not row.container or row.open:
            return 0
        row.open = True
        row.shown = min(len(row.value), PAGE)
        added = self._children(row, 0, PAGE)
        self.rows[k + 1:k + 1] = added
        return len(added)

    def fold(self, k: int) -> int:
        """Close row ``k`` (on a closed or a leaf row: close its parent). The new cursor row."""
        row = self.rows[k]
        if not row.open:
            if row.parent is None:
                return k
            k = self.index_of(row.parent, k)
            row = self.rows[k]
        end = self._subtree_end(k)
        del self.rows[k + 1:end]
        row.open = False
        return k

    def _subtree_end(self, k: int) -> int:
        depth = self.rows[k].depth
        end = k + 1
        while end < len(self.rows) and self.rows[end].depth > depth:
            end += 1
        return end

    def index_of(self, row: Row, near: int) -> int:
        for k in range(min(near, len(self.rows) - 1), -1, -1):
            if self.rows[k] is row:
                return k
        return self.rows.index(row)

    def unfold_all(self, k: int = 0) -> None:
        """Open row ``k`` and everything under it, up to EXPAND_ALL_ROWS rows made."""
        end_budget = len(self.rows) + EXPAND_ALL_ROWS
        j = k
        while j < len(self.rows) and len(self.rows) < end_budget:
            row = self.rows[j]
            if j > k and row.depth <= self.rows[k].depth:
                break
            if (row.container and not row.open) or row.more:
                self.unfold(j)
                if row.more:
                    continue  # its page took its place: look at the same position again
            j += 1

    def fold_all(self) -> None:
        self.root.open = False
        for r in self.rows:
            r.open = False
        self.rows = [self.root]
        self.unfold(0)

    # -- what a row shows and copies ------------------------------------------
    def path(self, row: Row) -> list[tuple[Any, bool]]:
        """(key, entered a parsed string here) from the root down to ``row``."""
        out = []
        r = row
        while r is not None:
            out.append(r)
            r = r.parent
        out.reverse()
        return [(x.key, x.parsed) for x in out]

    def json_path(self, row: Row) -> str:
        parts = ["$"]
        for key, parsed in self.path(row):
            if key is not None:
                parts.append(f"[{key}]" if isinstance(key, int) else f".{key}" if _IDENT.match(key)
                             else "[" + orjson.dumps(key).decode() + "]")
        return "".join(parts)

    def jq_path(self, row: Row) -> str:
        """A jq filter that returns ``row``'s value from the document: ``| fromjson |`` where the path
        enters a string holding JSON (for that string's own text, drop the last ``| fromjson``)."""
        parts: list[str] = []
        cur = ""
        for key, parsed in self.path(row):
            if key is not None:
                seg = f"[{key}]" if isinstance(key, int) else f".{key}" if _IDENT.match(key) \
                    else "[" + orjson.dumps(key).decode() + "]"
                cur += seg if seg.startswith(".") or cur else "." + seg
            if parsed:
                parts += [cur or ".", "fromjson"]
                cur = ""
        if cur or not parts:
            parts.append(cur or ".")
        return " | ".join(parts)

    def value_text(self, row: Row) -> str:
        """The row's value as JSON text (a parsed string's parsed value; `raw_text` for the string)."""
        return dump(row.value)

    @staticmethod
    def raw_text(row: Row) -> str | None:
        """A parsed string's text exactly as the log holds it."""
        return row.raw

    # -- search ------------------------------------------------------------------
    def search(self, needle: str, start: int) -> int | None:
        """The first row after ``start`` whose key or scalar value holds ``needle`` (case-insensitive),
        looking inside folded nodes too (their path is unfolded to it). None when there is none."""
        low = needle.lower()
        if not low:
            return None
        for k in range(start + 1, len(self.rows)):
            if _matches(self.rows[k], low):
                return k
        # inside folded nodes, in document order after the cursor: walk from each folded row
        for k in range(start + 1, len(self.rows)):
            row = self.rows[k]
            if row.container and not row.open:
                trail = _find_in(row.value, low)
                if trail is not None:
                    return self._open_trail(k, trail)
        return None

    def _open_trail(self, k: int, trail: list) -> int:
        for key in trail:
            row = self.rows[k]
            if not row.open:
                self.unfold(k)
            pos = list(row.value).index(key) if isinstance(row.value, dict) else key
            j = k + 1
            while True:  # the child's row (pages after the first shown as needed)
                r = self.rows[j]
                if r.more and r.parent is row:
                    self.unfold(j)
                    continue
                if r.parent is row and not r.more and r.key == (key if isinstance(row.value, dict) else pos):
                    break
                j += 1
            k = j
        return k


def _matches(row: Row, low: str) -> bool:
    if row.more:
        return False
    if isinstance(row.key, str) and low in row.key.lower():
        return True
    if not isinstance(row.value, (dict, list)):
        return low in scalar_text(row.value).lower()
    return False


def _find_in(value: Any, low: str) -> list | None:
    """The keys from ``value`` down to the first key or scalar holding ``low``, in document order
    (an explicit stack: no recursion however deep; a trail is a linked (key, previous) pair, not a
    list copied at every level)."""
    stack: list[tuple[Any, tuple | None]] = [(value, None)]
    seen = 0
    while stack and seen < SEARCH_NODES:
        v, trail = stack.pop()
        seen += 1
        if isinstance(v, dict):
            for key in v:
                if low in key.lower():
                    return _keys((key, trail))
            stack.extend((x, (key, trail)) for key, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((v[i], (i, trail)) for i in range(len(v) - 1, -1, -1))
        elif low in scalar_text(v).lower():
            return _keys(trail)
    return None


def _keys(trail: tuple | None) -> list:
    out = []
    while trail is not None:
        out.append(trail[0])
        trail = trail[1]
    out.reverse()
    return out


def scalar_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    return dump(v)


def dump(v: Any) -> str:
    try:
        return orjson.dumps(v).decode()
    except (TypeError, orjson.JSONEncodeError):  # deeper than orjson writes: the stdlib, without recursion limits hit
        return _dump_iter(v)


def _dump_iter(v: Any) -> str:
    out: list[str] = []
    stack: list[Any] = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, _Tok):
            out.append(x.s)
        elif isinstance(x, dict):
            out.append("{")
            parts: list[Any] = []
            for n, (k, y) in enumerate(x.items()):
                parts += [_Tok(("," if n else "") + orjson.dumps(k).decode() + ":"), y]
            stack.append(_Tok("}"))
            stack.extend(reversed(parts))
        elif isinstance(x, list):
            out.append("[")
            parts = []
            for n, y in enumerate(x):
                if n:
                    parts.append(_Tok(","))
                parts.append(y)
            stack.append(_Tok("]"))
            stack.extend(reversed(parts))
        else:
            out.append(orjson.dumps(x).decode() if not isinstance(x, int) or abs(x) < 2**63 else str(x))
    return "".join(out)


class _Tok(Struct, frozen=True):
    s: str
