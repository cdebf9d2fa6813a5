"""The timing's turns, the finished ones kept as columns (timing.py's `TurnTiming`; packed.py).

A big log has tens of thousands of turns. As objects, each held ~450 bytes (the record, its int objects,
two ranges and a split); as a row of columns, ~140: int64 columns for its numbers, its times, its call
and tool positions (lo, hi) and its split's five figures; its reason and open flag by reference (one
interned str a reason kind); its approvals, notes and positions that skip (a hand-made timing's) by
position, as most turns have none. A turn read (by position, or all in order) is made anew from its row.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from operator import attrgetter
from typing import Any

from msgspec import Struct, field

from .interning import shared_name
from .cells import NONE
from .packed import PackedList, column_values
from .turnparts import NO_POSITIONS, NO_SPLIT, SPLIT_KEYS, Split


class TurnTiming(Struct):
    turn: Any
    index: int  # its turn/start
    seq: int
    start: int | None = None
    end: int | None = None  # its turn/end, else (open) its last event's time
    reason: Any = None  # the turn/end reason kind; None while open
    open: bool = True
    calls: range | list = NO_POSITIONS  # positions in Timing.calls (a range once closed: turnparts.py)
    tools: range | list = NO_POSITIONS  # positions in Timing.tools
    approvals: list | tuple = ()  # [asked time, decided time, asked index, outcome] (a list once there is one)
    # model/retry/tool/approval/idle ms, empty without a wall time: a turnparts.Split (a dict's stand-in)
    split: Split | dict = field(default_factory=lambda: NO_SPLIT)
    missing: list | tuple = ()

    @property
    def wall_ms(self) -> int | None:
        return wall(self.start, self.end)


def wall(a: Any, b: Any) -> Any:
    """b - a, or None when either is unknown or the clock ran backwards (timing.py's _span)."""
    return None if a is None or b is None or b < a else b - a

# A turn's row, in the order `_record` takes it.
TURN_NAMES = ("turn", "index", "seq", "start", "end", "reason", "open", "calls_lo", "calls_hi", "tools_lo",
              "tools_hi", "approvals", *SPLIT_KEYS, "missing", "skips")
TURN_INTS = ("turn", "index", "seq", "start", "end", "calls_lo", "calls_hi", "tools_lo", "tools_hi", *SPLIT_KEYS)
TURN_SPARSE = ("approvals", "missing", "skips")
_DEFAULTS = {"approvals": (), "missing": (), "skips": None}


def _bound(what: str, end: str) -> Any:
    """A range's start (or stop) of positions ``what``; None when they are a list (kept in ``skips``)."""
    def get(t: Any) -> Any:
        p = getattr(t, what)
        return getattr(p, end) if type(p) is range else None
    return get


def _skips(t: Any) -> tuple | None:
    """A turn's positions that are not a range (a list), as (calls, tools): None for the usual turn."""
    c, u = t.calls, t.tools
    if type(c) is range and type(u) is range:
        return None
    return (None if type(c) is range else c, None if type(u) is range else u)


def split_figures(split: Any) -> list:
    """A split's figures in SPLIT_KEYS order: a Split's at once, a hand-made dict's key by key."""
    return split.figures() if type(split) is Split else [split.get(k) for k in SPLIT_KEYS]


def _part(key: str) -> Any:
    return lambda t: t.split.get(key)  # None without a wall time (an empty split)


_FIELDS = {"calls_lo": _bound("calls", "start"), "calls_hi": _bound("calls", "stop"),
           "tools_lo": _bound("tools", "start"), "tools_hi": _bound("tools", "stop"), "skips": _skips,
           **{k: _part(k) for k in SPLIT_KEYS}}


class TurnList(PackedList):
    """Turns in log order (`PackedList`, with a turn's row other than its fields: module docstring)."""

    SPARSE = dict  # (a packed turn's approvals grow in place: `add_approval`)

    def __init__(self, cls: type | None = None, ints: Iterable[str] = (), sparse: Iterable[str] = (),
                 texts: Iterable[str] = ()) -> None:
        super().__init__(TurnTiming, TURN_INTS, TURN_SPARSE)
        self.names = TURN_NAMES
        self.objs = {n: [] for n in TURN_NAMES if n not in self.ints and n not in self.sparse}
        self._defaults = _DEFAULTS

    _batch: dict | None = None  # the columns of the turns being packed (`_fast`), while `pack` runs

    def _field(self, name: str) -> Any:
        return _FIELDS.get(name) or attrgetter(name)

    def pack(self, count: int | None = None, live: frozenset | set = frozenset()) -> None:
        self._batch = _fast(self.pending[:count] if count is not None else self.pending)
        try:
            super().pack(count, live)
        finally:
            self._batch = None

    def _values(self, name: str, batch: list) -> list | array:
        got = self._batch
        return got[name] if got is not None else super()._values(name, batch)

    def _make(self, cols: list) -> Iterator:
        return map(_record, *cols)

    def iter_splits(self) -> Iterator:
        """Each turn's split figures in SPLIT_KEYS order (None each without a wall time), a slice of
        rows at a time: an unpacked turn's in one call, not a lookup a key (~8 ms of the 936k log's
        `check`, its 4,400 turns unpacked)."""
        if self.packed:
            return zip(*map(self.iter_column, SPLIT_KEYS))
        return map(split_figures, map(attrgetter("split"), list(self.pending)))

    def add_approval(self, k: int, a: list) -> None:
        """Turn ``k``'s approval ``a`` (one may be decided after its turn ended, and was packed)."""
        j = k - self.packed
        if j >= 0:
            t = self.pending[j]
            if t.approvals:
                t.approvals.append(a)
            else:
                t.approvals = [a]  # an empty tuple until the first (most turns have none)
            return
        kept = self.sparse["approvals"]
        got = kept.get(k)
        if got:
            got.append(a)
        else:
            kept[k] = [a]

    @classmethod
    def from_plain(cls_, cls: Any, ints: Any, sparse: Any, plain: Any, n_calls: int = 0,
                   n_tools: int = 0) -> TurnList:
        """`plain`'s turns back, checked as the pass makes them (ValueError: a cache entry is not trusted)."""
        out = super().from_plain(cls, ints, sparse, plain)
        if not isinstance(out, TurnList):
            raise ValueError("not a turn list")
        _check(out, n_calls, n_tools)
        out.objs["reason"] = list(map(shared_name, out.objs["reason"]))  # one str a kind, as the pass keeps them
        return out


_DIRECT = ("turn", "index", "seq", "start", "end", "reason", "open", "approvals", "missing")
_RANGE, _SPLIT = frozenset({range}), frozenset({Split})
_NO_PARTS = array("q", [NONE] * len(SPLIT_KEYS))  # an empty split's cells


def _fast(batch: list) -> dict | None:
    """The columns of ``batch`` by C loops, for turns as the walk makes them (ranges, a Split): per turn,
    a function call a column cost the pass ~15% on a log of many turns. None for others (a hand-made
    turn's list of positions, a dict for its split): those go field by field."""
    if not batch:
        return None
    calls, tools, splits = (list(map(attrgetter(n), batch)) for n in ("calls", "tools", "split"))
    if not (_RANGE.issuperset(map(type, calls)) and _RANGE.issuperset(map(type, tools))
            and _SPLIT.issuperset(map(type, splits))):
        return None
    out = {n: list(map(attrgetter(n), batch)) for n in _DIRECT}
    out["calls_lo"], out["calls_hi"] = array("q", map(_START, calls)), array("q", map(_STOP, calls))
    out["tools_lo"], out["tools_hi"] = array("q", map(_START, tools)), array("q", map(_STOP, tools))
    out["skips"] = [None] * len(batch)
    parts = array("q", b"".join([s if s else _NO_PARTS for s in splits]))  # five cells a turn
    n = len(SPLIT_KEYS)
    out.update((k, parts[i::n]) for i, k in enumerate(SPLIT_KEYS))
    return out


_START, _STOP = attrgetter("start"), attrgetter("stop")


def _record(turn, index, seq, start, end, reason, open_, clo, chi, tlo, thi, approvals, a, t, r, m, i,
            missing, skips) -> Any:
    calls = range(clo, chi) if clo is not None and clo < chi else NO_POSITIONS
    tools = range(tlo, thi) if tlo is not None and tlo < thi else NO_POSITIONS
    if skips is not None:
        calls = calls if skips[0] is None else skips[0]
        tools = tools if skips[1] is None else skips[1]
    return TurnTiming(turn, index, seq, start, end, reason, open_, calls, tools, approvals,
                 NO_SPLIT if a is None else Split("q", (a, t, r, m, i)), missing)


def _check(out: TurnList, n_calls: int, n_tools: int) -> None:
    """What the pass gives a turn: index and seq ints, times None or ints, a bool open, positions in
    range, a split whole or absent, approvals of four, notes of str."""
    for (name, _k), v in out.odd.items():  # (a value past int64, or a turn number not an int)
        if name not in ("turn", "index", "seq", "start", "end") or name != "turn" and type(v) is not int:
            raise ValueError("not a turn's value")
    if out.column("index").count(None) or out.column("seq").count(None):
        raise ValueError("a turn without its index")
    if not all(type(v) is bool for v in out.objs["open"]):
        raise ValueError("not a turn's open flag")
    for what, n in (("calls", n_calls), ("tools", n_tools)):
        for lo, hi in zip(out.column(what + "_lo"), out.column(what + "_hi")):
            if (lo is None) != (hi is None) or lo is not None and not 0 <= lo <= hi <= n:
                raise ValueError("not a turn's positions")
    parts = [out.column(k) for k in SPLIT_KEYS]
    if any((v is None) != (p[0] is None) for p in zip(*parts) for v in p):
        raise ValueError("not a turn's split")
    for a in out.sparse["approvals"].values():
        if not (type(a) is list and all(type(x) is list and len(x) == 4 for x in a)):
            raise ValueError("not a turn's approvals")
    for m in out.sparse["missing"].values():
        if not (type(m) is list and all(type(x) is str for x in m)):
            raise ValueError("not a turn's notes")
    los = (out.column("calls_lo"), out.column("tools_lo"))
    if {k for lo in los for k, v in enumerate(lo) if v is None} - set(out.sparse["skips"]):
        raise ValueError("not a turn's positions")
    for k, s in out.sparse["skips"].items():
        if not (type(s) is tuple and len(s) == 2):
            raise ValueError("not a turn's positions")
        for p, n, lo in zip(s, (n_calls, n_tools), los):
            if (p is None) == (lo[k] is None) or p is not None and not (
                    type(p) is list and all(type(x) is int and 0 <= x < n for x in p)):
                raise ValueError("not a turn's positions")


def turn_list(items: Iterable = ()) -> TurnList:
    """Turns, all kept as columns."""
    out = TurnList()
    out.pending.extend(items)
    out.pack()
    return out


def turn_totals(turns: Any, keys: Iterable[str]) -> tuple[dict, int]:
    """({split key: the sum over ``turns``}, the sum of their wall times), from columns (no turn made)."""
    starts, ends = (column_values(turns, name) for name in ("start", "end"))  # (a slice of rows at a time)
    walls = sum(wall(a, b) or 0 for a, b in zip(starts, ends))  # (as the turns' wall_ms would add up)
    if isinstance(turns, TurnList) and not turns.packed:  # (a common log: one array of every split, C sums)
        width, flat = len(SPLIT_KEYS), array("q")
        for split in map(attrgetter("split"), turns.pending):
            if type(split) is not Split or len(split) not in (0, width):
                break
            flat.extend(split)
        else:
            return {k: sum(flat[SPLIT_KEYS.index(k)::width]) if k in SPLIT_KEYS else 0 for k in keys}, walls
    if isinstance(turns, TurnList):
        return {k: sum(v for v in turns.iter_column(k) if v is not None) for k in keys}, walls
    return {k: sum(t.split.get(k, 0) for t in turns) for k in keys}, walls

