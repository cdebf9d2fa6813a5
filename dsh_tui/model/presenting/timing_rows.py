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
from collections.abc import Sequence
from itertools import compress, repeat
from operator import attrgetter, is_, is_not
from typing import Any, overload

from ..diagnosing.timing import Row, Timing, call_row, command_row, sort_rows, tool_row
from .timing_view import COLUMNS, WIDE

DEFAULT = ("duration_ms", True)  # slowest first
SORTABLE = tuple(c.key for c in COLUMNS + WIDE)  # the view's columns
_INDEX = attrgetter("index")


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
        """All the rows in key order, made at once (to sort them; let go after)."""
        if self._list is not None:
            return self._list
        t = self.timing
        return [*map(call_row, t.calls), *map(tool_row, t.tools), *map(command_row, t.commands)]


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
    (sorting ~22k rows took ~60 ms of a key). `make_all` makes them all ahead, from one making of every
    row (the timing worker); otherwise a column's two orders are made on its first sort."""

    def __init__(self, rows: RowView) -> None:
        self.rows = rows  # the default order
        self.table = rows.table
        self._orders: dict[tuple[str, bool], array] = {DEFAULT: rows.order}

    @classmethod
    def of(cls, timing: Timing, *, every: bool = False) -> SortOrders:
        """The table of ``timing``: its rows in the default order, made once and kept on it;
        ``every``: with every other order too (`make_all`), all from one making of the rows."""
        got = timing.__dict__.get("_sort_orders")
        if got is None:
            table = RowTable(timing)
            rows = table.every_row()
            got = cls(RowView(table, default_order(rows)))
            if every:
                got._make(list(SORTABLE), rows)
            timing.__dict__["_sort_orders"] = got
        elif every:
            got.make_all()
        return got

    @classmethod
    def listed(cls, rows: list[Row]) -> SortOrders:
        """The orders of ``rows``, a list already in the default order."""
        return cls(RowView(RowTable(rows=rows), array("I", range(len(rows)))))

    def rows_by(self, column: str, descending: bool) -> RowView:
        got = self._orders.get((column, descending))
        if got is None:
            self._make([column], self.table.every_row())
            got = self._orders[(column, descending)]
        return self.rows if got is self.rows.order else RowView(self.table, got)

    def make_all(self) -> SortOrders:
        todo = [c for c in SORTABLE if (c, False) not in self._orders]
        if todo:
            self._make(todo, self.table.every_row())
        return self

    def _make(self, names: list[str], rows: list[Row]) -> None:
        # By C loops (map, compress, list.sort) over the column's values: a Python loop over the row
        # tuples costs more than the sorts themselves (reading them is memory bound on a big log).
        by_index = sorted(range(len(rows)), key=list(map(_INDEX, rows)).__getitem__)
        default = self.rows.order
        for column in names:
            values = list(map(attrgetter(column), rows))
            known = list(compress(by_index, map(is_not, map(values.__getitem__, by_index), repeat(None))))
            rest = list(compress(default, map(is_, map(values.__getitem__, default), repeat(None))))
            for descending in (False, True):
                order = known.copy()
                try:
                    order.sort(key=values.__getitem__, reverse=descending)  # stable: ties stay in log order
                except TypeError:  # a crafted log's turn or name of mixed JSON types: sort_rows's own key
                    position = {id(r): k for k, r in enumerate(rows)}
                    order = [position[id(r)] for r in sort_rows(rows, column, descending)]
                else:
                    order += rest
                self._orders.setdefault((column, descending), array("I", order))


def default_order(rows: list[Row]) -> array:
    """The keys of ``rows`` (in key order) slowest first, as `sort_rows` orders them: by position,
    then by duration (stable), and the rows without one after, in key order."""
    values = list(map(attrgetter(DEFAULT[0]), rows))
    by_index = list(map(_INDEX, rows)).__getitem__
    known = sorted(compress(range(len(rows)), map(is_not, values, repeat(None))), key=by_index)
    known.sort(key=values.__getitem__, reverse=True)  # durations are ints or None (timing._span)
    return array("I", known + list(compress(range(len(rows)), map(is_, values, repeat(None)))))


__all__ = ["RowTable", "RowView", "SortOrders", "default_order"]
