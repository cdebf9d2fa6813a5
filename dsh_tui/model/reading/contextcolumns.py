"""The context records of a log (contextfacts.py) kept as columns.

A record kept as a tuple cost ~260 bytes with its int objects: ~123 MiB on a 10M-event log, the
largest thing the scan kept. Here a record is a kind byte, its index and seq in 32-bit arrays, its
numbers (turns, steps, tokens, a result's call seq, the argument hash) in int64 arrays and its other
fields a list slot each, ~50 bytes. The tuples come back one at a time (`records`), as contextfacts
made them, for model/context/ to build its requests, headers, files and loops without holding them all.

`pack` gives plain values the tail helper marshals across its pipe; `merge` appends a later part of
the log read elsewhere. `dumps` and `loads` give the index cache's form: arrays and JSON text.
"""

from __future__ import annotations

from array import array
from functools import lru_cache
from itertools import compress, islice, repeat
from operator import itemgetter
from typing import Any, Iterator

import orjson

from ..columns.interning import shared_name
from ..columns.textcolumn import shared
from .contextfacts import CALL, HEADER, MESSAGE, RESULT

KINDS = (CALL, RESULT, MESSAGE, HEADER)
_CODE = {k: n for n, k in enumerate(KINDS)}
_WIDTH = {CALL: 4, RESULT: 5, MESSAGE: 3, HEADER: 1}  # fields after (type, index, seq)
# Fields kept in int64 arrays, not as an int object each: those pinned the allocator's arenas while
# the scan's other objects came and went (~2.5x their size in RSS on a 10M-event log). A value an
# array cannot hold (None, a bool, a nested value's JSON, past int64) is kept in ``odd`` by (kind,
# field, position), NONE in its slot. Turns and steps are arrays too: no int object per record to share.
_ARRAYS = {(CALL, 0): "q", (CALL, 2): "Q", (RESULT, 0): "q", (MESSAGE, 0): "q", (MESSAGE, 1): "q", (MESSAGE, 2): "q"}
_ARRAY_FIELDS = tuple(tuple(j for j in range(_WIDTH[k]) if (k, j) in _ARRAYS) for k in KINDS)
NONE = -(1 << 63)
_U32_MAX = (1 << 32) - 1
_NARROW = (("b", 1 << 7), ("h", 1 << 15), ("i", 1 << 31))  # what `compact` makes an int64 column, narrowest first
_NARROW_TYPES = frozenset(tc for tc, _half in _NARROW)
_JUST_INT = {int}
_kind_of, _index_of, _seq_of = itemgetter(0), itemgetter(1), itemgetter(2)


class Columns:
    __slots__ = ("kinds", "index", "seq", "fields", "odd", "narrow")

    def __init__(self) -> None:
        self.kinds = bytearray()  # per record, in log order: its KINDS position
        # 32-bit, as the scan's event index (its row_after): 4 bytes a record less than int64
        self.index = array("I")
        self.seq: array | list = array("I")  # a list from a seq past 32 bits on (a crafted log)
        self.fields: list[list] = [[array(_ARRAYS[(k, j)]) if (k, j) in _ARRAYS else [] for j in range(_WIDTH[k])]
                                   for k in KINDS]
        self.odd: dict[tuple[int, int, int], object] = {}  # (kind, field, position) -> a value no array holds
        self.narrow = False  # some int64 columns narrower since `compact` (widened back before an append)

    def __len__(self) -> int:
        return len(self.kinds)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Columns) and self.pack() == other.pack()

    def extend(self, records: list) -> None:
        """Keep the records a window of the scan made, in order: each kind's fields transposed and
        appended to its columns in C (an `append` a record: ~30 ms for the 936k log's 44k, this ~16).
        A window holding a value an array refuses (None, a bool, an int past its range, a seq past 32
        bits) is kept one record at a time, exactly as `append` keeps it."""
        self._uncompacted()
        codes = bytes(map(_CODE.__getitem__, map(_kind_of, records)))
        batches = []
        present = set(codes)
        for code in present:
            recs = records if len(present) == 1 else list(compress(records, codes.translate(_selector((code,)))))
            fields = list(zip(*recs))[3:]
            if any(set(map(type, fields[j])) != _JUST_INT for j in _ARRAY_FIELDS[code]):
                return self._append_each(records)
            batches.append((self.fields[code], fields))
        sizes = [[len(col) for col in cols] for cols in self.fields]
        try:
            for cols, fields in batches:
                for col, values in zip(cols, fields):
                    col.extend(values)
        except OverflowError:  # an int past an array's range: undone, kept one record at a time
            for cols, lengths in zip(self.fields, sizes):
                for col, n in zip(cols, lengths):
                    del col[n:]
            return self._append_each(records)
        self.index.extend(map(_index_of, records))
        n = len(self.seq)
        try:
            self.seq.extend(map(_seq_of, records))
        except OverflowError:  # (extend keeps the values before the one it failed at)
            del self.seq[n:]
            self.seq = list(self.seq)
            self.seq.extend(map(_seq_of, records))
        self.kinds += codes  # last, as in `append`

    def _append_each(self, records: list) -> None:
        for record in records:
            self.append(record)

    def append(self, record: tuple) -> None:
        """Keep a record (a contextfacts tuple) as its columns."""
        self._uncompacted()
        code = _CODE[record[0]]
        cols = self.fields[code]
        for j in _ARRAY_FIELDS[code]:
            if type(record[3 + j]) is not int:  # (an array takes True as 1: checked here, not by it)
                self._append_odd(code, cols, record)
                break
        else:
            try:
                for col, value in zip(cols, record[3:]):
                    col.append(value)
            except OverflowError:  # an int past the array's range: kept in odd
                self._undo(cols)
                self._append_odd(code, cols, record)
        self.index.append(record[1])
        try:
            self.seq.append(record[2])
        except OverflowError:
            self.seq = list(self.seq) + [record[2]]
        self.kinds.append(code)  # last: a reader (a view's worker, while a live log grows) sees it whole

    @staticmethod
    def _undo(cols: list) -> None:
        """Drop what a failed append put in some of a kind's columns (the one it failed at has none)."""
        n = min(len(col) for col in cols)
        for col in cols:
            del col[n:]

    def _append_odd(self, code: int, cols: list, record: tuple) -> None:
        """The record's fields one at a time, each value an array cannot hold kept in ``odd``."""
        for j, (col, value) in enumerate(zip(cols, record[3:])):
            if type(col) is array and type(value) is not int:
                self.odd[(code, j, len(col))] = value
                value = NONE
            try:
                col.append(value)
            except OverflowError:
                self.odd[(code, j, len(col))] = value
                col.append(NONE)

    def compact(self) -> None:
        """Once read, each list column whose rows share a few objects keeps a byte a row into them
        (`SharedColumn`): a tool's name, a result's flags, a header's body (the scan's memo made one
        body for the headers that send the same): ~3 MiB of pointers on a 10M-event log. Done after
        the scan, not as it appends: a Python call per value there cost the scan more than this."""
        for cols in self.fields:
            for j, col in enumerate(cols):
                if type(col) is list and col:
                    cols[j] = shared(col)
        # A log without a gap: each record's seq is its event index, one array for both (1.9 MiB on
        # the x11 file) until a record is added (`_uncompacted`).
        if type(self.seq) is array and self.seq == self.index:
            self.seq = self.index
        # The int64 columns (turns, steps, input tokens, a result's call seq) int8, int16 or int32, the
        # narrowest where every value fits and none is kept apart in ``odd`` (its NONE fits none of them):
        # 2.5 MiB on the x11 file at int32, 0.9 MiB more with a step a byte and a turn two.
        for code, cols in enumerate(self.fields):
            for j in _ARRAY_FIELDS[code]:
                col = cols[j]
                if col.typecode == "q" and col:
                    low, high = min(col), max(col)
                    tc = next((tc for tc, half in _NARROW if -half <= low and high < half), None)
                    if tc is not None:
                        cols[j] = array(tc, col)
                        self.narrow = True

    def _uncompacted(self) -> None:
        """Before a record is added, what `compact` shared or narrowed as it was: ``seq`` its own array
        again, if `compact` made it ``index``, and the columns it narrowed their own type again."""
        if self.seq is self.index:
            self.seq = array("I", self.index)
        if self.narrow:
            for code, cols in enumerate(self.fields):
                for j in _ARRAY_FIELDS[code]:
                    if cols[j].typecode in _NARROW_TYPES:
                        cols[j] = array(_ARRAYS[(KINDS[code], j)], cols[j])
            self.narrow = False

    def records(self, kinds: tuple[str, ...] = KINDS) -> Iterator[tuple]:
        """The records of ``kinds``, in log order, as contextfacts made them. Each kind's tuples are
        zipped from its columns and interleaved by the kind column in C (itertools): a Python step
        per record was ~0.17 s of the 936k log's check, where five views read them after the scan."""
        n = len(self.kinds)
        kinds_so_far = bytes(self.kinds[:n])  # the records kept so far (a live log's scan appends on)
        codes = [code for code, kind in enumerate(KINDS) if kind in kinds]
        streams = {code: self._kind(code, kinds_so_far) for code in codes}
        if len(codes) == 1:
            return streams[codes[0]]
        picked = compress(kinds_so_far, kinds_so_far.translate(_selector(tuple(codes))))  # each wanted record's kind
        return map(next, map(streams.__getitem__, picked))

    def kind_columns(self, kind: str) -> tuple[array | list, array | list, list]:
        """The records of ``kind`` so far as columns, in log order: (their indices, their seqs, each
        field's values), without a tuple a record. A field is its array (a copy) or a list where an odd
        value stands in it (in place), or its list's values."""
        kinds = bytes(self.kinds[:len(self.kinds)])  # (a live log's scan appends on)
        code = _CODE[kind]
        sel = kinds.translate(_selector((code,)))
        count = sel.count(1)
        fields: list = [col[:count] if type(col) is array else list(islice(col, count)) for col in self.fields[code]]
        for (c, j, p), v in tuple(self.odd.items()):
            if c == code and p < count:
                if type(fields[j]) is array:
                    fields[j] = fields[j].tolist()
                fields[j][p] = v
        index, seq = array("I", compress(self.index, sel)), compress(self.seq, sel)
        return index, array("I", seq) if type(self.seq) is array else list(seq), fields

    def _kind(self, code: int, kinds: bytes) -> Iterator[tuple]:
        """The records of one kind among ``kinds`` (a snapshot of the kind column), in log order."""
        sel = kinds.translate(_selector((code,)))
        count = sel.count(1)
        cols: list = [islice(col, count) for col in self.fields[code]]
        odd = [(key, v) for key, v in tuple(self.odd.items()) if key[0] == code and key[2] < count]
        for j in {key[1] for key, _v in odd}:  # (rare: a None, a bool or a huge int kept beside an array)
            cols[j] = list(cols[j])
        for (_code, j, p), v in odd:
            cols[j][p] = v
        return zip(repeat(KINDS[code]), compress(self.index, sel), compress(self.seq, sel), *cols)

    def pack(self) -> tuple:
        """Plain values (lists, a str, tuples): what marshal sends and JSON writes."""
        return (self.kinds.decode("latin-1"), self.index.tolist(), list(self.seq),
                [[list(col) for col in cols] for cols in self.fields],
                [[*key, value] for key, value in self.odd.items()])

    def merge(self, packed: tuple, shift: int = 0) -> None:
        """Append a later part of the log (its `pack`), its indices ``shift`` further on."""
        kinds, index, seq, fields, odd = packed
        self._uncompacted()
        base = [len(cols[0]) if cols else 0 for cols in self.fields]  # each kind's records so far
        for code, j, p, value in odd:
            self.odd[(code, j, p + base[code])] = value
        for cols, more in zip(self.fields, fields):
            for col, values in zip(cols, more):
                col.extend(values)
        self.index.extend([i + shift for i in index] if shift else index)
        if type(self.seq) is array and seq and (min(seq) < 0 or max(seq) > _U32_MAX):
            self.seq = list(self.seq)  # (a crafted log's seq past 32 bits: extend would stop half-way)
        self.seq.extend(seq)
        self.kinds += kinds.encode("latin-1")  # last, as in `append`: a reader sees whole records


@lru_cache(maxsize=None)
def _selector(codes: tuple[int, ...]) -> bytes:
    """A translate table that turns the kind column into 1 for the records of ``codes``, 0 elsewhere."""
    return bytes(1 if b in codes else 0 for b in range(256))


def dumps(columns: Columns | None) -> tuple | None:
    """The records for the index cache (cachecodec's values): the kind column as bytes, the index, seq
    and number columns as the arrays they are (binary parts of the entry, read back into their own
    memory: as JSON numbers, a re-open of the x11 file held ~100 MiB of int objects for a moment), the
    other fields, odd values and header bodies as JSON text (the codec's generic tree took ~0.4 s to
    write the 936k log's 44k records as tuples, this ~10 ms); None when a string in them is not
    valid UTF-8 or an odd value is an int past 64 bits (the records are then made again from the
    events). A header body shared by headers is written once (each header names its body's place)."""
    if columns is None:
        return None
    n = len(columns.kinds)  # (a live log's scan appends on: the records so far, each whole)
    kinds = bytes(columns.kinds[:n])
    counts = [kinds.count(code) for code in range(len(KINDS))]
    ints, lists = [], []
    for code, cols in enumerate(columns.fields):
        for j, col in enumerate(cols):
            if j in _ARRAY_FIELDS[code]:
                ints.append(_upto(col, counts[code]))
            else:
                lists.append(list(islice(col, counts[code])))
    bodies: list = []
    at: dict[int, int] = {}  # id(body) -> its place in bodies (each body is held by the columns meanwhile)
    refs = lists[-1]  # (a header's one field, the last kind's)
    for k, body in enumerate(refs):
        place = at.get(id(body))
        if place is None:
            place = at[id(body)] = len(bodies)
            bodies.append(body)
        refs[k] = place
    seq = columns.seq if columns.seq is columns.index else _upto(columns.seq, n)
    odd = [[*key, value] for key, value in tuple(columns.odd.items()) if key[2] < counts[key[0]]]
    try:
        text = orjson.dumps((lists, odd, bodies, None if type(seq) is array else seq))
    except orjson.JSONEncodeError:
        return None
    return ("context", kinds, seq if seq is columns.index else _upto(columns.index, n),
            seq if type(seq) is array else None, ints, text)


def _upto(col: Any, n: int) -> Any:
    """``col``'s first ``n`` items: itself when it holds no more (the codec copies an array as it writes
    it: a copy here too held ~10 MiB more at the x11 file's save)."""
    return col if len(col) == n else col[:n]


def loads(plain: Any) -> Columns | None:
    """`dumps`'s records back, as the scan kept them (the number columns as they were, JSON's lists made
    the tuples they were, the headers that shared a body share it again); None for anything else."""
    try:
        tag, kinds, index, seq, ints, text = plain
        if tag != "context" or type(kinds) is not bytes or type(ints) is not list or len(ints) != len(_INT_TYPES):
            return None
        n = len(kinds)
        counts = [kinds.count(code) for code in range(len(KINDS))]
        if sum(counts) != n or not _is_array(index, "I", n) or not (seq is None or _is_array(seq, "I", n)):
            return None
        for col, (code, typecode) in zip(ints, _INT_TYPES):
            narrowed = typecode == "q" and type(col) is array and col.typecode in _NARROW_TYPES  # (`compact`'s)
            if not (_is_array(col, typecode, counts[code]) or narrowed and len(col) == counts[code]):
                return None
        lists, odd, bodies, seq_list = orjson.loads(text)
        if seq is None:
            if type(seq_list) is not list or len(seq_list) != n or not _JUST_INT.issuperset(map(type, seq_list)):
                return None
            seq = seq_list
        if type(lists) is not list or len(lists) != _N_LISTS or not all(type(col) is list for col in lists):
            return None
        out = Columns()
        out.kinds, out.index, out.seq = bytearray(kinds), index, seq
        taken_ints, taken_lists = iter(ints), iter(lists)
        for code, cols in enumerate(out.fields):
            for j in range(len(cols)):
                col = next(taken_ints) if j in _ARRAY_FIELDS[code] else next(taken_lists)
                if len(col) != counts[code]:
                    return None
                cols[j] = col
        out.narrow = any(col.typecode in _NARROW_TYPES for col in ints)
        calls, results, _messages, headers = out.fields
        calls[1] = list(map(shared_name, calls[1]))  # one str a tool name, as the scan keeps them (`compact`
        # then keeps a byte a call: JSON made a str a call, ~5.7 MiB of the x11 file's re-open)
        calls[3] = [tuple(v) if v is not None else None for v in calls[3]]
        results[4] = [_meta(v) for v in results[4]]
        memo: dict = {}
        bodies = [_body(b, memo) for b in bodies]
        if headers[0] and min(headers[0]) < 0:
            return None
        headers[0] = [bodies[place] for place in headers[0]]
        for code, j, p, value in odd:
            if not (type(code) is int and type(j) is int and type(p) is int and 0 <= code < len(KINDS)
                    and j in _ARRAY_FIELDS[code] and 0 <= p < counts[code]):
                return None
            col = out.fields[code][j]
            if col.typecode != "q" or col[p] != NONE:  # (only an int64 column keeps one, NONE in its place)
                return None
            out.odd[(code, j, p)] = _flat(value)  # (None, a bool, a big int or a nested value's text: as they were)
        return out
    except (orjson.JSONDecodeError, ValueError, TypeError, KeyError, IndexError, OverflowError, UnicodeError,
            StopIteration):
        return None


def _is_array(col: Any, typecode: str, n: int) -> bool:
    return type(col) is array and col.typecode == typecode and len(col) == n


# Each number column's kind and array type, in the order `dumps` writes them; how many other fields.
_INT_TYPES = tuple((code, _ARRAYS[(kind, j)]) for code, kind in enumerate(KINDS) for j in _ARRAY_FIELDS[code])
_N_LISTS = sum(_WIDTH.values()) - len(_INT_TYPES)


def _meta(v: Any) -> Any:
    """contextfacts.slim_meta's tuple, as JSON wrote it."""
    if v is None or v[0] == "r":
        return None if v is None else tuple(v)
    return ("d", tuple(tuple(h) for h in v[1]), tuple(v[2]))


def _flat(v: Any) -> Any:
    return tuple(v) if type(v) is list else v  # contextfacts.flat's (text, whole), as JSON wrote it


def _body(b: list, memo: dict) -> tuple:
    """A header body as JSON wrote it; bodies that differ only in their reason share their fields
    again, as the scan kept them (``memo``: by the fields' JSON text, which tells 1 from true)."""
    key = orjson.dumps(b[1:])
    fields = memo.get(key)
    if fields is None:
        items = [tuple((k, _flat(v)) for k, v in x) if x is not None else None for x in (b[3], b[4])]
        fields = memo[key] = (b[1], b[2], items[0], items[1], tuple(b[5]), *b[6:9])
    return (b[0], *fields)
