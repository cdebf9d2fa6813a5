"""A list of timing records (timing.py's record classes) that keeps its finished ones as columns.

A big log has hundreds of thousands of model and tool calls. As objects, each costs ~500 bytes
(the object, and an int object for each time and index); as a row of 8-byte columns, ~100. The timing
pass appends the records it opens and, from time to time, `pack`s the leading ones it is done with;
indexing and iteration give a record back (made anew from its row: read it, do not change it).
A record still open when packed (a tool call waiting for its result) stays ``live``: its object is
what indexing gives, changes to it count, and `settle` writes its row once it is done, so one call
that never gets a result holds back nothing after it. Packing goes a batch at a time, by C loops
(map, attrgetter, array.extend), so the pass pays little for it: records made and packed in one
window reuse the memory of the last window's.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from copy import copy
from itertools import chain, compress, islice, repeat
from operator import attrgetter
from typing import Any

from .cells import (NARROW_TO, NONE, NONE_CELL, ODD, ODD_CELL, WIDTHS, cell_of, cell_values, cells_to_values, coded,
                    fits, int_cells, int_cells_back, narrowed, offset_base, uncoded, widened)
from .textcolumn import CodedColumn, SparseColumn, TextColumn

# Records are packed once this many wait: a log that has fewer keeps them as objects (~10 MB at most),
# so packing (a few us a record) costs nothing on a common log and bounds the memory of a big one.
PACK_AT = 16384
# Once a list has packed, it packs every this many: the objects made and freed between two packs leave
# holes in the allocator's pools that later objects only partly fill (16k a batch left ~14 MiB more of
# them than 1k on the 936k log repeated 11 times).
PACK_NEXT = 1024
ITER_ROWS = 4096  # rows made at a time by an iteration over a packed list (`__iter__`)


def pack_due(items: PackedList, at: int = PACK_AT) -> bool:
    """Whether more than a batch of ``items`` waits (``at`` before the first pack, then PACK_NEXT)."""
    return len(items.pending) > (min(at, PACK_NEXT) if items.packed else at)


class PackedList:
    """The records of one record class in log order: ``ints`` (int or None) in int columns as narrow as
    their values allow (`_extend`), ``sparse``
    (falsy for most records: a note list, a retry list) by position in a textcolumn.SparseColumn (a
    dict where ``SPARSE`` says so: a value changed in place), ``texts`` (a str in most
    records) as textcolumn.TextColumns, the rest as CodedColumns (a byte a row while they repeat a few
    strings, else a list)."""

    SPARSE: type = SparseColumn

    def __init__(self, cls: type, ints: Iterable[str], sparse: Iterable[str] = (), texts: Iterable[str] = ()) -> None:
        self.cls = cls
        self.names = names = cls.__struct_fields__
        self.ints = {n: array(WIDTHS[0]) for n in ints}  # (wider once a value needs it: `_extend`)
        # A narrow column whose values are counted from a base of its own (a time's): `_fit`.
        self.bases: dict[str, int] = {}
        self.sparse: dict[str, Any] = {n: self.SPARSE() for n in sparse}
        self.texts = frozenset(texts)
        self.objs: dict[str, Any] = {n: TextColumn() if n in self.texts else CodedColumn() for n in self.names
                                     if n not in self.ints and n not in self.sparse}
        self.odd: dict[tuple[str, int], Any] = {}  # (column, position) -> a value past int64 (or not an int)
        self.shared = False  # two int columns are one array (`share_equal`): made two again before a write
        self.packed = 0  # rows in the columns; the records after them are in ``pending``
        self.pending: list = []
        self.live: dict[int, Any] = {}  # position -> a record packed while open (its object wins)
        self._live_at: dict[int, int] = {}  # id(record) -> its position
        defaults = cls.__struct_defaults__  # (those of the last fields)
        self._defaults = dict(zip(names[len(names) - len(defaults):], defaults))

    # -- the list -------------------------------------------------------------------------------
    def append(self, item: Any) -> None:
        self.pending.append(item)

    def __len__(self) -> int:
        return self.packed + len(self.pending)

    def __bool__(self) -> bool:
        return bool(self.packed or self.pending)

    def __getitem__(self, k: int | slice) -> Any:
        if type(k) is slice:
            return [self[i] for i in range(*k.indices(len(self)))]
        j = k - self.packed
        if j >= 0:
            return self.pending[j]  # (IndexError past the end)
        if k < 0:
            if k + len(self) < 0:
                raise IndexError("PackedList index out of range")
            return self[k + len(self)]
        got = self.live.get(k)
        return got if got is not None else next(self._rows(k, k + 1))

    def __iter__(self) -> Iterator:
        # A batch of rows at a time: made whole, every column was a list (decoded values, int objects)
        # of every row at once while a pass went on (the timing worker's table: ~9 MiB of objects on the
        # x11 file, freed into pools the UI's allocations had meanwhile taken turns in).
        packed = self.packed
        for lo in range(0, packed, ITER_ROWS):
            yield from self._rows(lo, min(packed, lo + ITER_ROWS))
        yield from list(self.pending)

    def records(self, lo: int, hi: int) -> Iterator:
        """Records lo..hi-1, in order (made from their rows, or the objects kept)."""
        packed = self.packed
        if hi <= packed:
            return self._rows(lo, hi)
        pending = self.pending[max(0, lo - packed):hi - packed]
        return iter(pending) if lo >= packed else chain(self._rows(lo, packed), pending)

    def column(self, name: str) -> list:
        """One field of every record, in order, without making the records."""
        return self._packed_slice(name, 0, self.packed) + list(map(self._field(name), self.pending))

    def iter_column(self, name: str, step: int = 4096) -> Iterator:
        """`column`'s values a slice of rows at a time: a big list's never all made at once."""
        pending = map(self._field(name), list(self.pending))
        if not self.packed:
            return pending  # (C loops alone)
        packed = self.packed
        rows = (self._packed_slice(name, lo, min(lo + step, packed)) for lo in range(0, packed, step))
        return chain(chain.from_iterable(rows), pending)

    def _packed_slice(self, name: str, lo: int, hi: int) -> list:
        """Field ``name`` of packed rows lo..hi-1 (its odd values and live records' in place)."""
        if name in self.ints:
            out = cell_values(self.ints[name][lo:hi], self.bases.get(name, 0))
            for (n, k), v in self.odd.items():
                if n == name and lo <= k < hi:
                    out[k - lo] = v
        elif name in self.objs:
            out = self.objs[name][lo:hi]
        else:
            out = self._sparse(name, lo, hi)
        for k, x in self.live.items():
            if lo <= k < hi:
                out[k - lo] = self._field(name)(x)
        return out

    def count_none(self, name: str) -> int:
        """How many records have None in int field ``name`` (without making the records)."""
        col = self.ints[name]
        none = NONE_CELL[col.typecode]
        return (col.count(none) - sum(getattr(x, name) is not None for k, x in self.live.items() if col[k] == none)
                + sum(getattr(x, name) is None for k, x in self.live.items() if col[k] != none)
                + list(map(self._field(name), self.pending)).count(None))  # (by C loops: a pass reads two)

    # -- packing --------------------------------------------------------------------------------
    def pack(self, count: int | None = None, live: frozenset | set = frozenset()) -> None:
        """Move the first ``count`` pending records (all by default) into the columns; those whose id()
        is in ``live`` are still open: they stay objects until `settle`d."""
        batch = self.pending[:count] if count is not None else self.pending
        if not batch:
            return
        base = self.packed
        self._pack_ints(batch, base)
        for name, col in self.objs.items():
            col.extend(self._values(name, batch))
        for name, kept in self.sparse.items():
            values = self._values(name, batch)
            for k in compress(range(len(values)), values):
                kept[base + k] = values[k]
        if live:
            for k, item in enumerate(batch, base):
                if id(item) in live:
                    self.keep_live(k, item)
        self.packed += len(batch)
        del self.pending[:len(batch)]

    def share_equal(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Keep each (name, other) pair of int columns that hold the same cells from the same base as one
        array: a seq and its event index in a log with no gap (a finished list, the explorer's: 2.2 MiB
        of the x11 file's pairs and timing). A write makes them two again first (`_own`)."""
        ints, bases = self.ints, self.bases
        for name, other in pairs:
            a, b = ints.get(name), ints.get(other)
            if (a is not None and b is not None and a is not b and a.typecode == b.typecode
                    and bases.get(name) == bases.get(other) and a == b):
                ints[name] = b
                self.shared = True

    def _own(self) -> None:
        """Each int column its own array again (`share_equal`'s, or a cache entry's that held one for two)."""
        seen: set[int] = set()
        for name, col in self.ints.items():
            if id(col) in seen:
                self.ints[name] = col[:]
            seen.add(id(col))
        self.shared = False

    def _pack_ints(self, batch: list, base: int) -> None:
        """The int columns of ``batch``, records ``base``... of the list, appended to the columns."""
        if self.shared:
            self._own()
        for name in self.ints:
            values = self._values(name, batch)
            cells = values if type(values) is array else int_cells(values)  # (an array: cells already)
            if cells is not None:
                self._extend(name, cells)
            else:  # an odd value (a crafted log's): this batch cell by cell
                self._extend(name, array("q", [NONE]) * len(values))
                for k, v in enumerate(values, base):
                    self._set_int(name, k, v)

    def revive(self, k: int) -> Any:
        """Record ``k`` to change: its own object if it has one (pending or live), else one made from its
        row, kept live (its object wins) until `settle`d."""
        if k >= self.packed:
            return self.pending[k - self.packed]
        got = self.live.get(k)
        if got is None:
            got = self.keep_live(k, next(self._rows(k, k + 1)))
        return got

    def keep_live(self, k: int, item: Any) -> Any:
        """``item`` as packed record ``k``'s object (it wins over the row) until it is `settle`d."""
        old = self.live.get(k)
        if old is not None:
            del self._live_at[id(old)]
        self.live[k] = item
        self._live_at[id(item)] = k
        return item

    def settle(self, item: Any) -> None:
        """A live record is done: its row takes its final values (a pending one is packed later)."""
        k = self._live_at.pop(id(item), None)
        if k is None:
            return
        del self.live[k]
        for name in self.ints:
            self.odd.pop((name, k), None)
            self._set_int(name, k, self._field(name)(item))
        for name, col in self.objs.items():
            col[k] = self._field(name)(item)
        for name, kept in self.sparse.items():
            v = self._field(name)(item)
            if v:
                kept[k] = v
            else:
                kept.pop(k, None)

    def _extend(self, name: str, cells: array) -> None:
        """Append int64 ``cells`` to column ``name``, in the narrowest width that holds it and them."""
        col = self.ints[name]
        if col.typecode != "q" and self._fit(name, cells, col):
            return
        col = self.ints[name] = widened(col, self.bases.pop(name, 0))
        col.extend(cells)

    def _fit(self, name: str, cells: array, col: array) -> bool:
        """Append ``cells`` to ``col`` (column ``name``) in its width or a wider narrow one, the column made
        that width first; False when none holds them. Of the x11 file's timing and pairs' 47 columns, 19
        hold a byte or two (a step, a chunk count, a turn): ~5 MiB of the explorer's. Values too big for
        int32 get a base (a time's first value) while the column holds no other value: 4 bytes a time, not
        8 (~4 MiB of a 10M-event log's timing)."""
        base, tc = self.bases.get(name, 0), col.typecode
        for width in WIDTHS[WIDTHS.index(tc):]:
            narrow = narrowed(cells, base, width)
            if (narrow is None and width == "i" and not base  # (counted only then: a batch of a long column)
                    and col.count(NONE_CELL[tc]) + col.count(ODD_CELL[tc]) == len(col)):
                new_base = offset_base(cells)
                narrow = narrowed(cells, new_base, width) if new_base else None
                if narrow is not None:
                    base = self.bases[name] = new_base
            if narrow is not None:
                if width != tc:
                    col = self.ints[name] = narrowed(widened(col, base), base, width)
                col.extend(narrow)
                return True
        return False

    def _set_int(self, name: str, k: int, v: Any) -> None:
        if self.shared:
            self._own()
        cell = cell_of(v)
        col = self.ints[name]
        tc = col.typecode
        base = self.bases.get(name, 0)
        if tc == "q":
            col[k] = cell
        elif cell == NONE or cell == ODD:
            col[k] = NARROW_TO[tc][cell]
        elif fits(tc, cell - base):
            col[k] = cell - base
        else:  # the narrowest wider width that holds it (int64 past int32 of the base)
            width = next((w for w in WIDTHS[WIDTHS.index(tc) + 1:] if fits(w, cell - base)), "q")
            if width == "q":
                col = self.ints[name] = widened(col, self.bases.pop(name, 0))
                col[k] = cell
            else:
                col = self.ints[name] = narrowed(widened(col, base), base, width)
                col[k] = cell - base
        if cell == ODD:
            self.odd[(name, k)] = v

    @classmethod
    def of(cls_, cls: type, ints: Iterable[str], sparse: Iterable[str], items: Iterable,
           texts: Iterable[str] = ()) -> PackedList:
        """A list of ``items`` (records), packed as the timing pass packs them (`PACK_AT`)."""
        out = cls_(cls, ints, sparse, texts)
        it = iter(items)
        while batch := list(islice(it, PACK_AT)):
            if out.pending:
                out.pack()
            out.pending.extend(batch)
        return out

    # -- the index cache's form -------------------------------------------------------------------
    def plain(self, made: dict | None = None) -> tuple:
        """Plain values only (cachecodec): the int columns' cells as they are (`_int_plain`: binary parts
        of the entry, read back as they were), the other columns as lists (`coded` when they repeat a few
        strings), the sparse ones as their parts (`_sparse_plain`). ``made``: columns the caller has read
        already (`column`)."""
        ints, bases, odd = self._int_plain()
        made = made or {}
        objs = {name: coded(made[name] if name in made else self.column(name)) for name in self.objs}
        sparse = {name: self._sparse_plain(name, kept) for name, kept in self.sparse.items()}
        return ("columns", len(self), ints, bases, odd, objs, sparse)

    def _sparse_plain(self, name: str, kept: Any) -> tuple | dict:
        """A sparse column as the cache keeps it: a SparseColumn's parts as they are (its values' JSON
        not decoded and dumped again: ~0.2 s of the x11 file's re-open), the live and pending records'
        values after them; else {position: value}."""
        if type(kept) is SparseColumn:
            get = self._field(name)
            later = {k: get(item) for k, item in self.live.items()}
            later.update((k, v) for k, v in enumerate(map(get, self.pending), self.packed) if v)
            got = kept.plain(later)
            if got is not None:
                return got
        return {k: v for k, v in enumerate(self.column(name)) if v}

    def _int_plain(self) -> tuple[dict[str, array], dict[str, int], list]:
        """The int columns of every record, their bases and [name, position, value] of each odd value: the
        columns themselves once all is packed (the usual list at the end of a pass, but its last records),
        else copies the live and pending records are written into as `settle` and `pack` would (a save
        changes nothing). Made from the values, a re-open narrowed each column again: ~0.5 s of the x11
        file's, by loops a cell at a time."""
        out = self
        if self.live or self.pending:
            out = copy(self)  # (its other columns shared, unchanged)
            out.ints = {name: col[:] for name, col in self.ints.items()}
            out.bases, out.odd = dict(self.bases), dict(self.odd)
            for k, item in self.live.items():
                for name in out.ints:
                    out.odd.pop((name, k), None)
                    out._set_int(name, k, self._field(name)(item))
            if self.pending:
                out._pack_ints(list(self.pending), self.packed)
        return dict(out.ints), dict(out.bases), [[name, k, v] for (name, k), v in out.odd.items()]

    @classmethod
    def from_plain(cls_, cls: type, ints: Iterable[str], sparse: Iterable[str], plain: Any,
                   texts: Iterable[str] = ()) -> PackedList:
        """`plain`'s value back; ValueError if it is not one (a cache entry is checked, not trusted)."""
        out = cls_(cls, ints, sparse, texts)
        if not (type(plain) is tuple and len(plain) == 7 and plain[0] == "columns" and type(plain[1]) is int):
            raise ValueError("not a packed list")
        _tag, n, cols, bases, odd, objs, kept = plain
        if not (type(objs) is dict and set(objs) == set(out.objs) and type(kept) is dict
                and set(kept) == set(out.sparse)):
            raise ValueError("not the columns of this record")
        out.ints, out.bases, out.odd = int_cells_back(cols, bases, odd, out.ints, n)
        out.shared = len({id(col) for col in out.ints.values()}) < len(out.ints)  # (the entry's references)
        # Texts and few strings as the pass packs them only for a list the pass would have packed: a common
        # log's ~13k rows saved little for ~35 ms of its re-open.
        small = n < PACK_AT
        for name, col in objs.items():
            values = uncoded(col, n)
            out.objs[name] = values if small else TextColumn(values) if name in out.texts else CodedColumn(values)
        for name, values in kept.items():
            if type(values) is tuple:
                out.sparse[name] = SparseColumn.from_plain(values, n, as_dict=small or out.SPARSE is dict)
                continue
            if type(values) is not dict or not all(type(k) is int and 0 <= k < n for k in values):
                raise ValueError(f"a bad column {name}")
            out.sparse[name] = values if small or out.SPARSE is dict else SparseColumn(sorted(values.items()))
        out.packed = n
        return out

    # -- records back -----------------------------------------------------------------------------
    # A subclass may keep a record as columns other than its fields (turnlist.py): ``_field(name)`` reads
    # column ``name`` of a record, ``_make`` makes records from the columns' values in ``names`` order.
    def _field(self, name: str) -> Any:
        return attrgetter(name)

    def _values(self, name: str, batch: list) -> list | array:
        """Column ``name`` of the records ``batch`` being packed (an int column's may be its cells)."""
        return list(map(self._field(name), batch))

    def _make(self, cols: list) -> Iterator:
        return map(self.cls, *cols)

    def _sparse(self, name: str, lo: int, hi: int) -> list:
        kept, default = self.sparse[name], self._defaults[name]
        if type(kept) is SparseColumn:
            return kept.span(lo, hi, default)
        return list(map(kept.get, range(lo, hi), repeat(default)))

    def _rows(self, lo: int, hi: int) -> Iterator:
        if lo >= hi:
            return iter(())
        cols = []
        for name in self.names:
            if name in self.ints:
                cols.append(cells_to_values(self.ints[name][lo:hi], self.bases.get(name, 0)))
            elif name in self.objs:  # islice walks from 0: a row further on takes a slice
                col = self.objs[name]
                cols.append(islice(col, hi) if lo == 0 and type(col) is list else col[lo:hi])
            else:
                cols.append(self._sparse(name, lo, hi))
        rows = self._make(cols)
        if not self.odd and not self.live:
            return rows
        return self._overlaid(rows, lo)

    def _overlaid(self, rows: Iterator, lo: int) -> Iterator:
        odd: dict[int, list] = {}
        for (name, k), v in self.odd.items():
            odd.setdefault(k, []).append((name, v))
        live = self.live
        for k, row in enumerate(rows, lo):
            if k in live:
                yield live[k]
                continue
            for name, v in odd.get(k, ()):
                setattr(row, name, v)
            yield row


def column_values(items: Any, name: str) -> Iterator:
    """One field of every record of ``items`` (a PackedList, a slice of rows at a time; or any sequence
    of records), as an iterator: for a pass over a big list that keeps none of it."""
    return items.iter_column(name) if isinstance(items, PackedList) else map(attrgetter(name), items)


def columns(items: Any, *names: str) -> list[list]:
    """Fields of every record of ``items`` (a PackedList, or any sequence of records), one list a name."""
    if isinstance(items, PackedList):
        return [items.column(n) for n in names]
    return [list(map(attrgetter(n), items)) for n in names]
