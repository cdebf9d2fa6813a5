"""A closed turn's parts, kept small (timing.py's `TurnTiming`), and their form in the index cache.

A big log has tens of thousands of turns. A turn's call and tool positions run on (the pass appends
them while the turn is current), so a range says what a list of them does; the split's five figures
fit an int64 array where a dict held five int objects; most turns have no approval. Together that
is ~250 bytes less a turn (12 MiB of a 48k-turn log's timing).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

# The split's keys in the order the pass fills them (the order a dict of them iterated in).
SPLIT_KEYS = ("approval_ms", "tool_ms", "retry_ms", "model_ms", "idle_ms")
_AT = {k: i for i, k in enumerate(SPLIT_KEYS)}
_INT64 = range(-(2**63), 2**63)
NO_POSITIONS = range(0)  # a turn without calls (or tools): shared, as a range cannot change


def positions(items: list) -> range | list:
    """A closed turn's positions in the timing's calls (or tools), appended in increasing order: a range
    when they run on, which they do (each is the next position when appended); a list that skips stays
    one. (Increasing, they run on exactly when the last is the first plus their number less one.)"""
    if not items:
        return NO_POSITIONS
    lo = items[0]
    return range(lo, items[-1] + 1) if items[-1] - lo + 1 == len(items) else items


class Split(array):
    """A turn's wall time by activity (ms a key of SPLIT_KEYS; empty: no wall time), read as the dict
    it stands for is: ``get``, ``[key]``, keys, values, items, iteration over its keys, ``==`` a dict.
    Made as an array is, ``Split("q", figures)`` (no __new__ of its own: the pass makes one a turn)."""

    __slots__ = ()

    def __getitem__(self, key: str) -> int:
        k = _AT.get(key) if type(key) is str else None
        if k is None or not len(self):
            raise KeyError(key)
        return array.__getitem__(self, k)

    def get(self, key: str, default: Any = None) -> Any:
        k = _AT.get(key) if type(key) is str else None
        return default if k is None or not len(self) else array.__getitem__(self, k)

    def __contains__(self, key: object) -> bool:
        return bool(len(self)) and type(key) is str and key in _AT

    def __iter__(self) -> Iterator[str]:
        return iter(SPLIT_KEYS if len(self) else ())

    def keys(self) -> tuple:
        return SPLIT_KEYS if len(self) else ()

    def values(self) -> list[int]:
        return self.tolist()

    def items(self) -> list[tuple[str, int]]:
        return list(zip(self.keys(), self.tolist()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Split):
            return self.tolist() == other.tolist()
        return dict(self.items()) == other if isinstance(other, dict) else NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]  (a dict's stand-in)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


NO_SPLIT = Split("q")  # a turn without wall time (shared: nothing changes a split once made)


# -- the index cache's form (timing.py's Timing.plain / from_plain) ------------------------------------
def plain_positions(p: range | list) -> tuple | list:
    """A range as (start, stop), a list as it is: plain values only."""
    return (p.start, p.stop) if type(p) is range else list(p)


def positions_from_plain(p: Any, n: int) -> range | list:
    """`plain_positions`'s value back, checked: positions of ``n`` records (ValueError otherwise)."""
    if type(p) is tuple and len(p) == 2 and type(p[0]) is int and type(p[1]) is int and 0 <= p[0] <= p[1] <= n:
        return range(p[0], p[1]) if p[0] < p[1] else NO_POSITIONS
    if type(p) is list and all(type(k) is int and 0 <= k < n for k in p):
        return p
    raise ValueError("not a turn's positions")


def split_plain(s: Any) -> list:
    """A split's figures in SPLIT_KEYS order (an empty list: no wall time)."""
    return [s.get(k) for k in SPLIT_KEYS] if s else []


def split_from_plain(s: Any) -> Split:
    if not (type(s) is list and len(s) in (0, len(SPLIT_KEYS)) and all(type(v) is int and v in _INT64 for v in s)):
        raise ValueError("not a turn's split")
    return Split("q", s) if s else NO_SPLIT


def approvals_from_plain(a: Any) -> list | tuple:
    """A turn's approvals ([asked time, decided time, asked index, outcome] each), checked."""
    if not (type(a) in (list, tuple) and all(type(x) is list and len(x) == 4 for x in a)):
        raise ValueError("not a turn's approvals")
    return list(a) if a else ()


def turn_plain(fields: tuple) -> tuple:
    """A turn's field values (in `TurnTiming`'s order) as plain values only."""
    *head, calls, tools, approvals, split, missing = fields
    return (*head, plain_positions(calls), plain_positions(tools), list(approvals), split_plain(split), missing)


def turn_from_plain(cls: type, t: Any, n_calls: int, n_tools: int) -> Any:
    """`turn_plain`'s turn back, checked (ValueError: a cache entry is not trusted)."""
    if not (type(t) is tuple and len(t) == 12 and type(t[1]) is int and type(t[2]) is int and type(t[6]) is bool
            and all(x is None or type(x) is int for x in t[3:5])
            and type(t[11]) in (tuple, list) and all(type(x) is str for x in t[11])):
        raise ValueError("not a turn")
    return cls(*t[:7], positions_from_plain(t[7], n_calls), positions_from_plain(t[8], n_tools),
               approvals_from_plain(t[9]), split_from_plain(t[10]), list(t[11]) if t[11] else ())


def records_from_plain(command: type, turn: type, commands: Any, turns: Any, n_calls: int, n_tools: int) -> tuple:
    """(commands, turns) from the cache's form, checked (ValueError: a cache entry is not trusted)."""
    if not (type(commands) is list and all(type(c) is tuple and len(c) == 7 for c in commands) and type(turns) is list):
        raise ValueError("not the timing's records")
    return [command(*c) for c in commands], [turn_from_plain(turn, t, n_calls, n_tools) for t in turns]
