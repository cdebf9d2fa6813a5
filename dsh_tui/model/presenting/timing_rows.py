"""The timing table's rows, made only when read, and its orders by any column.

A big log has hundreds of thousands of model calls, tool calls and commands; a `Row` each (a 14-field
tuple and its numbers, ~300 bytes) held 70-80 MiB on a 10M-event log, for a table that shows twenty
at a time. Here a row is a key, its item's place in the timing (model calls first, then tool calls,
then commands), an order of the table is an array of keys (4 bytes a row), and a row is made from
the timing's columns when the table draws it. The orders are `sort_rows`'s: ties by position, rows
without a value last, in the default order (slowest first).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, islice, repeat, tee
from math import isnan, nan
from operator import attrgetter, eq, is_not, not_
from typing import Any, overload

from ..columns.cells import NONE, int_cells, int_values
from ..diagnosing.timerows import Row, call_row, command_row, sort_rows, tool_row
from ..diagnosing.timing import Timing
from .timing_view import COLUMNS, WIDE

DEFAULT = ("duration_ms", True)  # slowest first
SORTABLE = tuple(c.key for c in COLUMNS + WIDE)  # the view's columns
# A table of at most this many rows has every order made ahead, in the timing worker (~0.1 s for the
# 936k-event log's 22k rows); a bigger one only the default, both ways, and each other column's on its
# first sort (the view makes it in a worker: ~1 s a column at 240k rows, and 1 MiB each, kept).
EAGER_ROWS = 60_000


class RowTable:
    """Every row of one table by key. ``rows``: a given list (a key is its place in it), else the
    timing's model calls, tool calls and commands."""

    def __init__(self, timing: Timing | None = None, rows: list[Row] | None = None) -> None:
        self.timing, self._list = timing, rows
        if rows is None:
            assert timing is not None
            self._calls, self._tools = len(timing.calls), len(timing.tools)
            self._n = self._calls + self._tools + len(timing.commands)
        else:
            self._n = len(rows)

    def __len__(self) -> int:
        return self._n

    def row(self, key: int) -> Row:
        if self._list is not None:
            return self._list[key]
        t, c = self.timing, self._calls
        if key < c:
            return call_row(t.calls[key])
        if key < c + self._tools:
            return tool_row(t.tools[key - c])
        return command_row(t.commands[key - c - self._tools])

    def every_row(self) -> list[Row]:
        """All the rows in key order, made at once (a crafted log's column of mixed types sorts by them)."""
        return self._list if self._list is not None else [row for chunk in self.chunks() for row in chunk]

    def chunks(self, size: int = 8192) -> Iterator[list[Row]]:
        """The rows in key order, ``size`` at a time."""
        if self._list is not None:
            yield from (self._list[k:k + size] for k in range(0, len(self._list), size))
            return
        t = self.timing
        rows = chain(map(call_row, t.calls), map(tool_row, t.tools), map(command_row, t.commands))
        while chunk := list(islice(rows, size)):
            yield chunk

    def columns(self, names: Iterable[str]) -> dict[str, Sequence]:
        """Some of the rows' fields, each in key order, made from a chunk of rows at a time: ints as
        an int64 array, a float field as a double array, without the rows (all of them at once were
        ~300 bytes a row, the timing worker's peak on a big log)."""
        cols = {name: _Column(name) for name in names}
        for chunk in self.chunks():
            for name, col in cols.items():
                col.extend(list(map(attrgetter(name), chunk)))
        return {name: col.values for name, col in cols.items()}


class RowView(Sequence):
    """The rows of a table in one order: rows are made when read."""

    __slots__ = ("table", "order")

    def __init__(self, table: RowTable, order: array) -> None:
        self.table, self.order = table, order

    def __len__(self) -> int:
        return len(self.order)

    @overload
    def __getitem__(self, i: int) -> Row: ...
    @overload
    def __getitem__(self, i: slice) -> list[Row]: ...

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return list(map(self.table.row, self.order[i]))
        return self.table.row(self.order[i])

    def key(self, i: int) -> int:
        """The key of the row at ``i`` (it names the row in every order of the table)."""
        return self.order[i]

    def position(self, key: int) -> int:
        """Where the row ``key`` is in this order (a C search of the array: no row is made)."""
        return self.order.index(key)


class SortOrders:
    """A table's orders by each column, either way, each made once and kept: a re-sort is a lookup
    (sorting ~22k rows took ~60 ms of a key). `make_all` makes each column's descending order ahead,
    from one making of every row (the timing worker), and where its ties are; the ascending order is
    made from those on first use (`_flipped`, no row made). Otherwise a column's are made on its first sort."""

    def __init__(self, rows: RowView) -> None:
        self.rows = rows  # the default order
        self.table = rows.table
        self._orders: dict[tuple[str, bool], array] = {DEFAULT: rows.order}
        # column -> (its rows with a value, and which of them tie the one before, in its descending order):
        # the ascending order is made from these on first use (`_flipped`), not kept ahead (4 bytes a row)
        self._ties: dict[str, tuple[int, bytes]] = {}

    @classmethod
    def of(cls, timing: Timing, *, every: bool = False) -> SortOrders:
        """The table of ``timing``: its rows in the default order, made once and kept on it;
        ``every``: with every other order too (`make_all`), all from one making of the rows."""
        got = timing.__dict__.get("_sort_orders")
        if got is None:
            table = RowTable(timing)
            cols = table.columns(SORTABLE + ("index",) if every else (DEFAULT[0], "index"))
            got = cls(RowView(table, default_order(cols[DEFAULT[0]], cols["index"])))
            got._make(list(SORTABLE) if every else [DEFAULT[0]], cols)  # (the default's: its ties, for r)
            timing.__dict__["_sort_orders"] = got
        elif every:
            got.make_all()
        return got

    @classmethod
    def ahead(cls, timing: Timing) -> SortOrders:
        """The timing worker's: every order of a table of up to EAGER_ROWS rows, else the default's."""
        return cls.of(timing, every=len(RowTable(timing)) <= EAGER_ROWS)

    @classmethod
    def listed(cls, rows: list[Row]) -> SortOrders:
        """The orders of ``rows``, a list already in the default order."""
        return cls(RowView(RowTable(rows=rows), array("I", range(len(rows)))))

    def rows_by(self, column: str, descending: bool) -> RowView:
        if not self.ready(column, descending):
            self.make(column)
        got = self._orders.get((column, descending))
        if got is None:  # (made from the other way's on first use)
            known, same = self._ties.pop(column)
            got = self._orders[(column, descending)] = _flipped(self._orders[(column, not descending)], known, same)
        return self.rows if got is self.rows.order else RowView(self.table, got)

    def ready(self, column: str, descending: bool) -> bool:
        """Whether `rows_by` has this order without making a row (made, or made from the other way's)."""
        return (column, descending) in self._orders or column in self._ties

    def make(self, column: str) -> None:
        """``column``'s orders, both ways (the view's sort worker, for a big table; see EAGER_ROWS)."""
        if not (self.ready(column, True) and self.ready(column, False)):
            self._make([column], self.table.columns((column, "index")))

    def make_all(self) -> SortOrders:
        # (the default order is made apart: its column still needs its ties, or its other order)
        todo = [c for c in SORTABLE if (c, False) not in self._orders and c not in self._ties]
        if todo:
            self._make(todo, self.table.columns(todo + ["index"]))
        return self

    def _make(self, names: list[str], cols: dict[str, Sequence]) -> None:
        # By C loops (map, compress, list.sort) over the column's values: a Python loop over the rows
        # costs more than the sorts themselves (reading them is memory bound on a big log).
        by_index = sorted(range(len(cols["index"])), key=cols["index"].__getitem__)
        default = self.rows.order
        for column in names:
            values = cols[column]
            known = list(compress(by_index, _known(values, map(values.__getitem__, by_index))))
            rest = list(compress(default, _missing(values, map(values.__getitem__, default))))
            try:
                known.sort(key=values.__getitem__, reverse=True)  # stable: ties stay in log order
            except TypeError:  # a crafted log's turn or name of mixed JSON types: sort_rows's own key
                rows = self.table.every_row()
                position = {id(r): k for k, r in enumerate(rows)}
                for descending in (False, True):
                    order = [position[id(r)] for r in sort_rows(sort_rows(rows), column, descending)]
                    self._orders.setdefault((column, descending), array("I", order))
                continue
            self._orders.setdefault((column, True), array("I", known + rest))
            if (column, False) not in self._orders:
                ranked = list(map(values.__getitem__, known))
                self._ties[column] = (len(known), bytes([0, *map(eq, ranked[1:], ranked[:-1])]) if known else b"")


def default_order(durations: Sequence, indexes: Sequence) -> array:
    """The keys (in key order) slowest first, as `sort_rows` orders rows: by position, then by duration
    (stable), and the rows without one after, in key order."""
    keys = range(len(durations))
    known = sorted(compress(keys, _known(durations, iter(durations))), key=indexes.__getitem__)
    known.sort(key=durations.__getitem__, reverse=True)
    return array("I", known + list(compress(keys, _missing(durations, iter(durations)))))


class _Column:
    """One field's values in key order: an int64 array (None as NONE) while they are all ints or None,
    a double array (None as NaN) for a float field, else a list."""

    def __init__(self, name: str) -> None:
        self.values: Any = array("d") if name in FLOATS else array("q")

    def extend(self, vs: list) -> None:
        col = self.values
        if type(col) is not list:
            if col.typecode == "q":
                cells = int_cells(vs)  # (None for a crafted log's value past int64, a bool, a marker)
                if cells is not None:
                    col.extend(cells)
                    return
                self.values = int_values(col, "", {})
            elif _FLOATS.issuperset(map(type, vs)):
                col.extend(array("d", [nan if v is None else v for v in vs]))
                return
            else:
                self.values = [None if isnan(v) else v for v in col]
        self.values += vs


FLOATS = ("tokens_per_s",)
_FLOATS = frozenset({float, type(None)})


def _flipped(order: array, known: int, same: bytes) -> array:
    """``order`` (``known`` rows with a value, then the rest) with its rows with a value the other way,
    runs of equal values (``same``: a row ties the one before) keeping their order, as a stable sort
    the other way puts them; the rest last, as it is."""
    if 1 not in same:  # no ties: the rows reversed
        return order[known - 1::-1] + order[known:] if known else order[:]
    out, hi = array("I"), known
    while hi > 0:
        lo = same.rfind(b"\x00", 0, hi)  # where the run ending at hi begins
        out += order[lo:hi]
        hi = lo
    return out + order[known:]


def _known(values: Sequence, xs: Iterator) -> Iterator[bool]:
    """Which of ``xs`` (values of the column ``values``) are not its None (by C loops)."""
    if type(values) is list:
        return map(is_not, xs, repeat(None))
    if values.typecode == "d":
        xs, again = tee(xs)
        return map(eq, xs, again)  # NaN is not equal to itself
    return map(NONE.__ne__, xs)


def _missing(values: Sequence, xs: Iterator) -> Iterator[bool]:
    return map(not_, _known(values, xs))


__all__ = ["RowTable", "RowView", "SortOrders", "default_order"]
