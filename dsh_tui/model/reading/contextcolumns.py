"""The context records of a log (contextfacts.py) kept as columns.

A record kept as a tuple cost ~260 bytes with its int objects: ~123 MiB on a 10M-event log, the
largest thing the scan kept. Here a record is a kind byte, its index and seq in int64 arrays, and
its other fields a list slot each (the call's argument hash in a uint64 array), ~60 bytes. The
tuples come back one at a time (`records`), as contextfacts made them, for model/context/ to build
its requests, headers, files and loops without holding them all.

`pack` gives plain values the tail helper marshals across its pipe and the index cache writes as
JSON (`dumps`, `loads`); `merge` appends a later part of the log read elsewhere.
"""

from __future__ import annotations

from array import array
from typing import Any, Iterator

import orjson

from .contextfacts import CALL, HEADER, MESSAGE, RESULT

KINDS = (CALL, RESULT, MESSAGE, HEADER)
_CODE = {k: n for n, k in enumerate(KINDS)}
_WIDTH = {CALL: 4, RESULT: 5, MESSAGE: 3, HEADER: 1}  # fields after (type, index, seq)
# Fields kept in int64 arrays, not as an int object each: those pinned the allocator's arenas while
# the scan's other objects came and went (~2.5x their size in RSS on a 10M-event log). A value an
# array cannot hold (None, a bool, past int64) is kept in ``odd`` by (kind, field, position), NONE in its slot.
_ARRAYS = {(CALL, 2): "Q", (RESULT, 0): "q", (MESSAGE, 2): "q"}  # the argument hash, the call's seq, the tokens
NONE = -(1 << 63)


class Columns:
    __slots__ = ("kinds", "index", "seq", "fields", "odd")

    def __init__(self) -> None:
        self.kinds = bytearray()  # per record, in log order: its KINDS position
        self.index = array("q")
        self.seq: array | list = array("q")  # a list from a seq past int64 on (a crafted log)
        self.fields: list[list] = [[array(_ARRAYS[(k, j)]) if (k, j) in _ARRAYS else [] for j in range(_WIDTH[k])]
                                   for k in KINDS]
        self.odd: dict[tuple[int, int, int], object] = {}  # (kind, field, position) -> a value no array holds

    def __len__(self) -> int:
        return len(self.kinds)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Columns) and self.pack() == other.pack()

    def append(self, record: tuple) -> None:
        """Keep a record (a contextfacts tuple) as its columns."""
        code = _CODE[record[0]]
        for j, (col, value) in enumerate(zip(self.fields[code], record[3:])):
            if type(col) is array and (type(value) is not int or value == NONE):
                self.odd[(code, j, len(col))] = value
                value = NONE
            try:
                col.append(value)
            except OverflowError:
                self.odd[(code, j, len(col))] = value
                col.append(NONE)
        self.index.append(record[1])
        try:
            self.seq.append(record[2])
        except OverflowError:
            self.seq = list(self.seq) + [record[2]]
        self.kinds.append(code)  # last: a reader (a view's worker, while a live log grows) sees it whole

    def records(self, kinds: tuple[str, ...] = KINDS) -> Iterator[tuple]:
        """The records of ``kinds``, in log order, as contextfacts made them."""
        want = bytes(_CODE[k] for k in kinds)
        at = [0] * len(KINDS)
        fields, index, seq, odd = self.fields, self.index, self.seq, self.odd
        for g, code in enumerate(self.kinds[:len(self.kinds)]):  # the records kept so far
            p = at[code]
            at[code] = p + 1
            if code in want:
                values = [col[p] for col in fields[code]]
                if NONE in values:
                    values = [odd.get((code, j, p), v) if v == NONE else v for j, v in enumerate(values)]
                yield (KINDS[code], index[g], seq[g], *values)

    def pack(self) -> tuple:
        """Plain values (lists, a str, tuples): what marshal sends and JSON writes."""
        return (self.kinds.decode("latin-1"), self.index.tolist(), list(self.seq),
                [[list(col) for col in cols] for cols in self.fields],
                [[*key, value] for key, value in self.odd.items()])

    def merge(self, packed: tuple, shift: int = 0) -> None:
        """Append a later part of the log (its `pack`), its indices ``shift`` further on."""
        kinds, index, seq, fields, odd = packed
        base = [len(cols[0]) if cols else 0 for cols in self.fields]  # each kind's records so far
        for code, j, p, value in odd:
            self.odd[(code, j, p + base[code])] = value
        for cols, more in zip(self.fields, fields):
            for col, values in zip(cols, more):
                col.extend(values)
        self.index.extend([i + shift for i in index] if shift else index)
        if type(self.seq) is array and any(not -(1 << 63) <= s < 1 << 63 for s in seq if type(s) is int):
            self.seq = list(self.seq)  # (a crafted log's seq past int64: extend would stop half-way)
        self.seq.extend(seq)
        self.kinds += kinds.encode("latin-1")  # last, as in `append`: a reader sees whole records

    @classmethod
    def unpacked(cls, packed: tuple) -> Columns:
        out = cls()
        out.merge(packed)
        return out


def dumps(columns: Columns | None) -> bytes | None:
    """The records as JSON, for the index cache (its generic codec took ~0.4 s to write the 936k
    log's 44k records as tuples, this ~10 ms); None when a string in them is not valid UTF-8 (the
    records are then made again from the events)."""
    if columns is None:
        return None
    try:
        return orjson.dumps(columns.pack())
    except orjson.JSONEncodeError:
        return None


def loads(data: Any) -> Columns | None:
    """`dumps`'s records back, as the scan kept them (JSON's lists made the tuples they were); None
    for anything else."""
    if type(data) is not bytes:
        return None
    try:
        kinds, index, seq, fields, odd = orjson.loads(data)
        calls, results, messages, headers = fields
        calls[0] = [_flat(v) for v in calls[0]]
        calls[3] = [tuple(v) if v is not None else None for v in calls[3]]
        results[4] = [_meta(v) for v in results[4]]
        messages[0] = [_flat(v) for v in messages[0]]
        messages[1] = [_flat(v) for v in messages[1]]
        memo: dict = {}
        headers[0] = [_body(b, memo) for b in headers[0]]
        if len(kinds) != len(index) or len(index) != len(seq):
            return None
        for entry in odd:
            entry[3] = _flat(entry[3])  # (None, a bool or a big int: as they were)
        out = Columns.unpacked((kinds, index, seq, [calls, results, messages, headers], odd))
        counts = [out.kinds.count(code) for code in range(len(KINDS))]
        if any(len(col) != n for cols, n in zip(out.fields, counts) for col in cols):
            return None
        return out
    except (orjson.JSONDecodeError, ValueError, TypeError, KeyError, IndexError, OverflowError, UnicodeError):
        return None


def _meta(v: Any) -> Any:
    """contextfacts.slim_meta's tuple, as JSON wrote it."""
    if v is None or v[0] == "r":
        return None if v is None else tuple(v)
    return ("d", tuple(tuple(h) for h in v[1]), tuple(v[2]))


def _flat(v: Any) -> Any:
    return tuple(v) if type(v) is list else v  # contextfacts.flat's (text, whole), as JSON wrote it


def _body(b: list, memo: dict) -> tuple:
    items = [tuple((k, _flat(v)) for k, v in x) if x is not None else None for x in (b[3], b[4])]
    body = (b[0], b[1], b[2], items[0], items[1], tuple(b[5]), *b[6:9])
    return memo.setdefault(_key(body), body)  # one body for the headers that repeat it, as the scan kept


def _key(body: tuple) -> str:
    """A body's memo key: its JSON text (== on the tuples would take 1 and true for one value)."""
    return orjson.dumps(body).decode()
