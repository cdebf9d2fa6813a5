"""Three of packed.py's column kinds, the first two read as the list they stand for, the third as a dict.

`TextColumn`, for a field that is a str in most records: UTF-8 in one buffer. A str object costs ~50
bytes besides its text and the list's pointer to it; a row here costs its bytes and a 4-byte end.
Values are made anew as they are read. A value that is not a str (None, a crafted log's number), or
one set after its row was written (`__setitem__`), is kept apart by row.

`CodedColumn`, for a field that repeats a few strings: a byte a row into its distinct values.
`SharedColumn`, for a field that holds a few shared objects: a byte a row into them, by identity.

`SparseColumn`, for a field most records leave empty (a note list, a retry list): {position: value}
with the values as JSON in one buffer, decoded as they are read.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from bisect import bisect_left
from itertools import accumulate, chain, islice, repeat
from operator import methodcaller, sub
from typing import Any

import orjson

_DECODE = methodcaller("decode", "utf-8", "surrogatepass")  # (a lone surrogate, from JSON's "\ud800", round-trips)
_MISSING = object()


class TextColumn:
    """Rows of text in one buffer (module docstring): a list's ``extend``, indexing, slicing, iteration."""

    __slots__ = ("buf", "ends", "other", "shared")

    def __init__(self, values: Iterable = ()) -> None:
        self.buf = bytearray()
        self.ends = array("I")  # each row's end in ``buf`` (int64 past 4 GiB)
        self.other: dict[int, Any] = {}  # row -> its value, where it is not the buffer's
        self.shared = False  # buf and ends are another column's too (`share_equal`): copied before a write
        self.extend(values)

    def share_equal(self, other: TextColumn) -> bool:
        """Hold ``other``'s buffer and ends where they are the same as this column's (a timing's call ids
        and its pairs' keys: 1.6 MiB of the x11 file's); each column copies them before it next writes.
        Values kept apart (``other``) stay each column's own."""
        if (other is self or self.buf is other.buf or self.ends.typecode != other.ends.typecode
                or self.ends != other.ends or self.buf != other.buf):
            return False
        self.buf, self.ends = other.buf, other.ends
        self.shared = other.shared = True
        return True

    def __len__(self) -> int:
        return len(self.ends)

    def extend(self, values: Iterable) -> None:
        values = list(values)
        if not values:
            return
        base = len(self.ends)
        texts = values
        if not all(type(v) is str for v in values):
            texts = []
            for k, v in enumerate(values, base):
                if type(v) is str:
                    texts.append(v)
                else:
                    texts.append("")
                    self.other[k] = v
        if self.shared:
            self.buf, self.ends, self.shared = bytearray(self.buf), self.ends[:], False
        joined = "".join(texts)
        if joined.isascii():  # (by C loops: a char a byte)
            data, lengths = joined.encode("ascii"), map(len, texts)
        else:
            parts = [t.encode("utf-8", "surrogatepass") for t in texts]
            data, lengths = b"".join(parts), map(len, parts)
        end = len(self.buf) + len(data)
        self.buf += data
        if end >= 1 << 32 and self.ends.typecode == "I":
            self.ends = array("Q", self.ends)
        # (into the array as summed, past the initial end of the rows before: a list of the ends was an
        # int object a row, 98k of them at once)
        self.ends.extend(islice(accumulate(lengths, initial=end - len(data)), 1, None))

    def __setitem__(self, k: int, value: Any) -> None:
        if not 0 <= k < len(self.ends):
            raise IndexError("TextColumn index out of range")
        self.other[k] = value

    def __getitem__(self, k: int | slice) -> Any:
        n = len(self.ends)
        if type(k) is slice:
            lo, hi, step = k.indices(n)
            if step != 1:
                return [self[i] for i in range(lo, hi, step)]
            return self._slice(lo, hi)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("TextColumn index out of range")
        got = self.other.get(k, _MISSING)
        if got is not _MISSING:
            return got
        return self.buf[self.ends[k - 1] if k else 0:self.ends[k]].decode("utf-8", "surrogatepass")

    def _slice(self, lo: int, hi: int) -> list:
        if lo >= hi:
            return []
        a = self.ends[lo - 1] if lo else 0
        chunk = bytes(self.buf[a:self.ends[hi - 1]])
        ends = self.ends[lo:hi]
        starts = array(ends.typecode, [a]) + ends[:-1]
        out = list(map(_DECODE, map(chunk.__getitem__, map(slice, map(sub, starts, repeat(a)),
                                                                     map(sub, ends, repeat(a))))))
        if self.other:
            for k, v in _in_range(self.other, lo, hi):
                out[k - lo] = v
        return out

    def __iter__(self) -> Iterator:
        for lo in range(0, len(self.ends), 4096):
            yield from self._slice(lo, min(lo + 4096, len(self.ends)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (TextColumn, list)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


_CODED = frozenset({str, type(None)})  # (by type too: 1, True and 1.0 are equal, and would share a code)


class _Codes:
    """A byte a row into a few values (``table``), read as the list it stands for; a list (``plain``),
    as it is, once the values are not few. The two kinds below differ in what makes a value new."""

    __slots__ = ("codes", "table", "at", "plain")

    def __len__(self) -> int:
        return len(self.codes) if self.plain is None else len(self.plain)

    def __iter__(self) -> Iterator:
        return iter(self.plain) if self.plain is not None else map(self.table.__getitem__, self.codes)

    def __getitem__(self, k: int | slice) -> Any:
        if self.plain is not None:
            return self.plain[k]
        if type(k) is slice:
            return list(map(self.table.__getitem__, self.codes[k]))
        return self.table[self.codes[k]]

    def _unpack(self) -> None:
        """From now on a list of the values (they are not a few)."""
        self.plain = list(map(self.table.__getitem__, self.codes))
        self.codes, self.table, self.at = array("B"), [], {}

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (_Codes, list)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class CodedColumn(_Codes):
    """A column that repeats a few strings (a kind, a status, a tool name; None counts as one): a byte a row
    into its distinct values, not an 8-byte pointer; a list, as it is, from the first batch that does not."""

    __slots__ = ()

    def __init__(self, values: Iterable = ()) -> None:
        self.codes = array("B")
        self.table: list = []  # the distinct values, the first object met of each
        self.at: dict = {}  # value -> its code
        self.plain: list | None = None  # the values, once they are not a few strings
        self.extend(values)

    def extend(self, values: Iterable) -> None:
        values = list(values)
        if self.plain is None:
            at = self.at
            if _CODED.issuperset(map(type, values)):
                for v in dict.fromkeys(values):
                    if v not in at:
                        at[v] = len(self.table)
                        self.table.append(v)
                if len(self.table) <= 256:
                    self.codes.extend(map(at.__getitem__, values))
                    return
            self._unpack()
        self.plain += values

    def __setitem__(self, k: int, value: Any) -> None:
        if self.plain is None:
            if not 0 <= k < len(self.codes):
                raise IndexError("CodedColumn index out of range")
            if type(value) in _CODED:
                code = self.at.get(value)
                if code is None and len(self.table) < 256:
                    code = self.at[value] = len(self.table)
                    self.table.append(value)
                if code is not None:
                    self.codes[k] = code
                    return
            self._unpack()
        self.plain[k] = value


class SharedColumn(_Codes):
    """A finished list column whose rows hold a few objects, each shared by many rows (a tool's name,
    a flag, a header body the scan made once): a byte a row into those objects, not an 8-byte
    pointer. By identity, not equality: the rows give back the very objects they held (1, True and
    1.0 stay apart). Made by `shared` from a list; appending on (a followed log) keeps the codes until
    a 257th object, then a list, as it is."""

    __slots__ = ()

    def __init__(self, codes: array, table: list) -> None:
        self.codes = codes
        self.table = table  # the objects, by code (holding them keeps their ids theirs)
        self.at = {id(v): k for k, v in enumerate(table)}
        self.plain: list | None = None

    def append(self, value: Any) -> None:
        if self.plain is None:
            code = self.at.get(id(value))
            if code is None and len(self.table) < 256:
                code = self.at[id(value)] = len(self.table)
                self.table.append(value)
            if code is not None:
                self.codes.append(code)
                return
            self._unpack()
        self.plain.append(value)

    def extend(self, values: Iterable) -> None:
        for v in values:
            self.append(v)

    def __delitem__(self, k: slice) -> None:
        del (self.codes if self.plain is None else self.plain)[k]


def shared(values: list) -> SharedColumn | list:
    """``values`` as a `SharedColumn` when they are at most 256 objects, else the list itself."""
    if len(set(map(id, values[:4096]))) > 256:  # (most columns that are not: told by their first rows)
        return values
    first = dict(zip(map(id, values), values))  # each object once, in the order met (its first key's place)
    if len(first) > 256:
        return values
    at = {i: k for k, i in enumerate(first)}
    return SharedColumn(array("B", map(at.__getitem__, map(id, values))), list(first.values()))


class SparseColumn:
    """{position: value} for the few records with a value (module docstring). A dict holds ~250 bytes
    for a one-note list (the entry, its key, the list, the str); here its JSON, a 4-byte position and an
    8-byte end. Values are made anew as they are read. One JSON does not give back as it was (a tuple,
    a NaN, an int past 64 bits), or set at a position before the last (a record settled late), is kept
    as it is, by position, in ``other`` (where ``_GONE`` marks one removed)."""

    __slots__ = ("at", "ends", "buf", "other")

    def __init__(self, items: Iterable[tuple[int, Any]] = ()) -> None:
        self.at = array("i")  # the positions with a value in ``buf``, ascending
        self.ends = array("q")  # each one's end in ``buf``
        self.buf = bytearray()
        self.other: dict[int, Any] = {}
        for k, v in items:
            self[k] = v

    def __setitem__(self, k: int, value: Any) -> None:
        at = self.at
        if (not at or k > at[-1]) and 0 <= k < 1 << 31:  # (else kept apart: `other`)
            try:
                data = orjson.dumps(value)
            except (TypeError, orjson.JSONEncodeError):
                data = None
            if data is not None and orjson.loads(data) == value:  # (== also tells a tuple from a list)
                self.other.pop(k, None)
                at.append(k)
                self.buf += data
                self.ends.append(len(self.buf))
                return
        self.other[k] = value

    def pop(self, k: int, default: Any = None) -> Any:
        got = self.get(k, _MISSING)
        if got is _MISSING:
            return default
        if self._find(k) is not None:
            self.other[k] = _GONE
        else:
            del self.other[k]
        return got

    def get(self, k: int, default: Any = None) -> Any:
        got = self.other.get(k, _MISSING)
        if got is not _MISSING:
            return default if got is _GONE else got
        i = self._find(k)
        return default if i is None else self._value(i)

    def _value(self, i: int) -> Any:
        """The ``i``-th value in ``buf``, decoded."""
        return orjson.loads(self.buf[self.ends[i - 1] if i else 0:self.ends[i]])

    def _find(self, k: int) -> int | None:
        i = bisect_left(self.at, k)
        return i if i < len(self.at) and self.at[i] == k else None

    def span(self, lo: int, hi: int, default: Any) -> list:
        """The values of positions lo..hi-1, ``default`` where there is none."""
        out = [default] * max(0, hi - lo)
        at = self.at
        for i in range(bisect_left(at, lo), bisect_left(at, hi)):
            out[at[i] - lo] = self._value(i)
        for k, v in _in_range(self.other, lo, hi):
            out[k - lo] = default if v is _GONE else v
        return out

    def items(self) -> Iterator[tuple[int, Any]]:
        """(position, value) in ascending position."""
        return iter(sorted(self.as_dict().items()))

    def __len__(self) -> int:
        return len(self.as_dict())

    def as_dict(self) -> dict[int, Any]:
        """{position: value} of every value, decoded in one pass over the buffer (no search a position)."""
        buf, ends = self.buf, self.ends
        out = dict(zip(self.at, map(orjson.loads, map(buf.__getitem__, map(slice, chain((0,), ends), ends)))))
        for k, v in self.other.items():
            if v is _GONE:
                out.pop(k, None)
            else:
                out[k] = v
        return out

    # -- the index cache's form (packed.py's PackedList.plain) ----------------------------------------
    def plain(self, later: dict[int, Any]) -> tuple | None:
        """Its parts as they are (the values' JSON stays JSON: none decoded to be written, none dumped
        again when read back), and ``later``: values that replace or follow them (a live or pending
        record's); None when it holds a removed value's mark (`pop`)."""
        if any(v is _GONE for v in self.other.values()):
            return None
        return ("sparse", self.at, self.ends, self.buf, list(map(list, self.other.items())),
                list(map(list, sorted(later.items()))))

    @classmethod
    def from_plain(cls, plain: Any, n: int, as_dict: bool = False) -> SparseColumn | dict[int, Any]:
        """`plain`'s column back, checked to hold positions below ``n`` (ValueError: a cache entry is not
        trusted); with ``as_dict``, as {position: value} (a short list's: no later value kept as JSON
        only to be decoded again)."""
        if not (type(plain) is tuple and len(plain) == 6 and plain[0] == "sparse"):
            raise ValueError("not a sparse column")
        _tag, at, ends, buf, other, later = plain
        if not (type(at) is array and at.typecode == "i" and type(ends) is array and ends.typecode == "q"
                and len(at) == len(ends) and type(buf) is bytearray and type(other) is list and type(later) is list):
            raise ValueError("not a sparse column")
        if at and not (0 <= at[0] and at[-1] < n and all(map(int.__lt__, at, islice(at, 1, None)))
                       and 0 < ends[0] and ends[-1] == len(buf) and all(map(int.__lt__, ends, islice(ends, 1, None)))):
            raise ValueError("a bad sparse column")
        for item in other + later:
            if not (type(item) is list and len(item) == 2 and type(item[0]) is int and 0 <= item[0] < n):
                raise ValueError("a bad sparse value")
        out = cls()
        out.at, out.ends, out.buf = at, ends, buf
        out.other = {k: v for k, v in other}
        got = out.as_dict() if as_dict else out
        for k, v in later:
            if v:
                got[k] = v
            else:
                got.pop(k, None)
        return got

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (SparseColumn, dict)):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


_GONE = object()  # (a SparseColumn's value removed by pop)


def _in_range(other: dict[int, Any], lo: int, hi: int) -> Iterator[tuple[int, Any]]:
    """The entries of ``other`` at positions lo..hi-1: looked up one by one when the span is the
    smaller (a row read among a million settled records' entries walked them all: quadratic)."""
    if hi - lo < len(other):
        return ((k, other[k]) for k in range(lo, hi) if k in other)
    return ((k, v) for k, v in other.items() if lo <= k < hi)
