"""A closed turn's parts, kept small (turnlist.py's `TurnTiming`).

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

    def figures(self) -> list:
        """Its figures in SPLIT_KEYS order, None each without a wall time (as ``get`` reads them)."""
        return self.tolist() if len(self) else [None] * len(SPLIT_KEYS)

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


# -- the index cache's form (timing.py's Timing.plain / from_plain; the turns': turnlist.py) ---------------
def commands_from_plain(command: type, commands: Any) -> list:
    """The commands from the cache's form, checked (ValueError: a cache entry is not trusted)."""
    if not (type(commands) is list and all(type(c) is tuple and len(c) == 7 for c in commands)):
        raise ValueError("not the timing's commands")
    return [command(*c) for c in commands]
