"""Per-turn tables only the report reads, kept as columns: every turn/end's (turn, reason kind)
(`TurnEnds`), and each turn's token counts (`TurnCounts`, usage.py's ``turns``).

A big log has 40k+ turns: as a tuple and its int objects each, these held ~11 MiB of a 10M-event log
for the whole of the explorer's life, for a JSON report it may never write. As an int64 column (and a
byte a row for the kinds, five cells a turn for the counts) they hold ~1 MiB. A crafted log's turn or
count that is not an int64 (a string turn, a count past 64 bits) keeps the plain form it came in.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from itertools import chain, islice
from typing import Any

from .cells import FROM_ROW, NONE, TO_ROW, coded, int_cells, int_columns, int_columns_back, int_values, uncoded
from .interning import shared_name
from .textcolumn import CodedColumn

_STEP = 4096  # rows made at a time when read through
_BATCH = 1024  # turn ends appended between two packs


class TurnEnds:
    """(turn, reason kind) of each turn/end, in log order: what a list of those pairs gives (iteration,
    len, equality), as an int64 column and a CodedColumn, or the list itself (a crafted turn). The
    diagnosis `append`s them as it reads: a batch at a time is packed, so few tuples live at once."""

    __slots__ = ("turns", "kinds", "as_list", "pending")

    def __init__(self, ends: Iterable[tuple] = ()) -> None:
        self.as_list: list | None = None
        self.turns, self.kinds = array("q"), CodedColumn()
        self.pending = ends if type(ends) is list else list(ends)
        self.pack()

    def append(self, end: tuple) -> None:
        self.pending.append(end)
        if len(self.pending) >= _BATCH:
            self.pack()

    def pack(self) -> None:
        """The pending ends into the columns (from the first crafted turn on, all of them a list)."""
        batch, self.pending = self.pending, []
        if self.as_list is None:
            cells = int_cells([e[0] for e in batch])
            if cells is not None:
                self.turns.extend(cells)
                self.kinds.extend([e[1] for e in batch])
                return
            self.as_list = list(self._packed())
            self.turns, self.kinds = array("q"), CodedColumn()
        self.as_list += batch

    def __len__(self) -> int:
        return (len(self.as_list) if self.as_list is not None else len(self.turns)) + len(self.pending)

    def __iter__(self) -> Iterator[tuple]:
        return chain(self._packed(), list(self.pending))

    def _packed(self) -> Iterator[tuple]:
        if self.as_list is not None:
            return iter(self.as_list)
        return chain.from_iterable(self._rows(lo, min(lo + _STEP, len(self.turns)))
                                   for lo in range(0, len(self.turns), _STEP))

    def _rows(self, lo: int, hi: int) -> list[tuple]:
        turns = self.turns[lo:hi]
        return list(zip(map(FROM_ROW.get, turns, turns), self.kinds[lo:hi]))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (TurnEnds, list)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def plain(self) -> tuple:
        """The index cache's form: the turns an int64 column, the kinds `coded` (48k tuples, a list and two
        objects each in JSON, were ~10 MiB of a 10M-event log's decode)."""
        if self.as_list is None and not self.pending:
            ints, odd = {"turn": self.turns}, []
        else:
            ints, odd = int_columns({"turn": [e[0] for e in self]})
        return ("ends", len(self), ints, odd, coded([e[1] for e in self]))

    @classmethod
    def from_plain(cls, plain: Any) -> TurnEnds:
        """`plain`'s value back, checked (ValueError: a cache entry is not trusted), each kind one interned str."""
        if not (type(plain) is tuple and len(plain) == 5 and plain[0] == "ends" and type(plain[1]) is int):
            raise ValueError("not the turn ends")
        _tag, n, ints, odd, kinds = plain
        cols, odd = int_columns_back(ints, odd, ("turn",), n)
        kinds = uncoded(kinds, n)
        if type(plain[4]) is list:  # (a coded column's are shared already)
            kinds = list(map(shared_name, kinds))
        if odd:
            return cls(list(zip(int_values(cols["turn"], "turn", odd), kinds)))
        out = cls()
        out.turns, out.kinds = cols["turn"], CodedColumn(kinds)
        return out

    def __repr__(self) -> str:
        return f"TurnEnds({list(islice(self, 3))!r}... {len(self)} in all)"


class TurnCounts:
    """turn -> its counts (a tuple of ``width`` ints), in first-seen order: what usage.py's dict gave
    (items, values, len, iteration, lookup by turn, equality), as two int64 columns, or that dict itself
    (a crafted turn or count). A lookup walks the turns (by a C loop): only tests and tools make one."""

    __slots__ = ("turns", "counts", "width", "as_dict")

    def __init__(self, counts: dict[Any, tuple], width: int) -> None:
        self.width = width
        turns = int_cells(list(counts))
        cells = int_cells(list(chain.from_iterable(counts.values()))) if turns is not None else None
        if cells is None or len(cells) != width * len(counts) or NONE in cells:  # (a count is never None)
            self.as_dict: dict | None = counts
            self.turns, self.counts = array("q"), array("q")
        else:
            self.as_dict, self.turns, self.counts = None, turns, cells

    @classmethod
    def of_rows(cls, turns: list, counts: array | list, width: int) -> TurnCounts:
        """The turns and their counts, ``width`` cells a turn in ``counts`` (an int64 array, or a list
        past int64), as usage.UsageTally sums them."""
        cells = int_cells(turns) if type(counts) is array else None
        if cells is None or NONE in counts:
            return cls({t: tuple(counts[k * width:(k + 1) * width]) for k, t in enumerate(turns)}, width)
        return cls._columns(cells, array("q", counts), width)

    @classmethod
    def _columns(cls, turns: array, counts: array, width: int) -> TurnCounts:
        out = cls({}, width)
        out.as_dict, out.turns, out.counts = None, turns, counts
        return out

    def __len__(self) -> int:
        return len(self.as_dict) if self.as_dict is not None else len(self.turns)

    def __iter__(self) -> Iterator:
        return iter(self.as_dict) if self.as_dict is not None else (FROM_ROW.get(t, t) for t in self.turns)

    def keys(self) -> Iterator:
        return iter(self)

    def values(self) -> Iterator[tuple]:
        if self.as_dict is not None:
            return iter(self.as_dict.values())
        w = self.width
        return (tuple(self.counts[k:k + w]) for k in range(0, len(self.counts), w))

    def items(self) -> Iterator[tuple]:
        return iter(self.as_dict.items()) if self.as_dict is not None else zip(iter(self), self.values())

    def __getitem__(self, turn: Any) -> tuple:
        if self.as_dict is not None:
            return self.as_dict[turn]
        cell = TO_ROW.get(turn, turn) if turn is None or type(turn) is int else None
        try:
            k = self.turns.index(cell) if cell is not None else -1
        except (ValueError, OverflowError):
            k = -1
        if k < 0:
            raise KeyError(turn)
        return tuple(self.counts[k * self.width:(k + 1) * self.width])

    def get(self, turn: Any, default: Any = None) -> Any:
        try:
            return self[turn]
        except KeyError:
            return default

    def __contains__(self, turn: object) -> bool:
        return self.get(turn, _MISSING) is not _MISSING

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (TurnCounts, dict)):
            return len(self) == len(other) and list(self.items()) == list(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def plain(self) -> dict | tuple:
        """The index cache's form: ("counts", width, the turns, the counts) as int64 arrays, or the dict."""
        return self.as_dict if self.as_dict is not None else ("counts", self.width, self.turns, self.counts)

    @classmethod
    def from_plain(cls, plain: Any, width: int) -> TurnCounts:
        """`plain`'s value back, checked (ValueError: a cache entry is not trusted)."""
        if type(plain) is dict:
            if not all(type(v) is tuple and len(v) == width and all(type(x) is int for x in v) for v in plain.values()):
                raise ValueError("not the counts of each turn")
            return cls(plain, width)
        if not (type(plain) is tuple and len(plain) == 4 and plain[0] == "counts" and plain[1] == width
                and all(type(a) is array and a.typecode == "q" for a in plain[2:])
                and len(plain[3]) == width * len(plain[2]) and NONE not in plain[3]):
            raise ValueError("not the counts of each turn")
        return cls._columns(plain[2], plain[3], width)

    def __repr__(self) -> str:
        return f"TurnCounts({dict(islice(self.items(), 3))!r}... {len(self)} in all)"


_MISSING = object()
