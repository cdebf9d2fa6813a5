"""A closed turn's parts, kept small (timing.py's `TurnTiming`), and their form in the index cache.

A big log has tens of thousands of turns. A turn's call and tool positions run on (the pass appends
them while the turn is current), so a range says what a list of them does; the split's five figures
fit an int64 array where a dict held five int objects; most turns have no approval. Together that
is ~250 bytes less a turn (12 MiB of a 48k-turn log's timing).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from operator import attrgetter, le
from typing import Any

from .packed import NONE, coded, int_columns, int_columns_back, int_values, uncoded

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
# Turns go as columns, like the calls (packed.py): int64 arrays, not a tuple, two pairs and two lists a
# turn (JSON made ~600 bytes of objects a turn of them, and the decode a container each).
TURN_INTS = ("turn", "index", "seq", "start", "end")


def turns_plain(turns: list) -> dict:
    """The turns (`TurnTiming`s) as plain values only: int columns, the end reason `coded`, a byte a turn for
    ``open`` and for whether its split is five figures (in one array, five a turn), positions as (start, stop)
    pairs (a list that skips kept by turn), approvals and notes by turn where there are any."""
    ints, odd = int_columns({name: list(map(attrgetter(name), turns)) for name in TURN_INTS})
    out = {"n": len(turns), "ints": ints, "odd": odd, "reason": coded(list(map(attrgetter("reason"), turns))),
           "open": array("b", [t.open is True for t in turns])}
    for name in ("calls", "tools"):
        spans, skips = array("q"), {}
        for k, p in enumerate(map(attrgetter(name), turns)):
            if type(p) is range and p.step == 1 and p.start <= p.stop:
                spans.extend((p.start, p.stop))
            else:
                spans.extend((0, 0))
                skips[k] = list(p)
        out[name] = spans
        out[name + "_lists"] = skips
    has, figures, other = array("b"), array("q"), {}
    for k, split in enumerate(map(attrgetter("split"), turns)):
        got = split_plain(split)
        if len(got) == len(SPLIT_KEYS) and all(type(v) is int and v in _INT64 for v in got):
            has.append(1)
            figures.extend(got)
        else:  # none (no wall time), or a dict's that is not one (read back as no timing, as it always was)
            has.append(0)
            if got:
                other[k] = got
    out.update(split=has, figures=figures, split_other=other,
               approvals={k: list(t.approvals) for k, t in enumerate(turns) if t.approvals},
               missing={k: list(t.missing) for k, t in enumerate(turns) if t.missing})
    return out


def turns_from_plain(cls: type, plain: Any, n_calls: int, n_tools: int) -> list:
    """`turns_plain`'s turns back, checked (ValueError: a cache entry is not trusted)."""
    if not (type(plain) is dict and type(plain.get("n")) is int and plain["n"] >= 0):
        raise ValueError("not the timing's turns")
    n = plain["n"]
    ints, odd = int_columns_back(plain.get("ints"), plain.get("odd"), TURN_INTS, n)
    if NONE in ints["index"] or NONE in ints["seq"] or any(type(v) is not int for (name, _k), v in odd.items()
                                                           if name != "turn"):
        raise ValueError("a turn without its event, or a time not an int")
    opened = plain.get("open")
    if not (type(opened) is array and opened.typecode == "b" and len(opened) == n
            and opened.count(0) + opened.count(1) == n):
        raise ValueError("a bad column open")
    calls, tools = (_positions(plain, name, n, limit) for name, limit in (("calls", n_calls), ("tools", n_tools)))
    values = [int_values(ints[name], name, odd) for name in TURN_INTS]
    if not any(name == "turn" for name, _k in odd):  # (ints and None only: no True to stand for a 1)
        first: dict = {}  # a resumed log repeats its turn numbers: one int object a number, as the pass has
        values[0] = list(map(first.setdefault, values[0], values[0]))
    return list(map(cls, *values, uncoded(plain.get("reason"), n),
                    map(bool, opened), calls, tools, _by_turn(plain.get("approvals"), n, (), approvals_from_plain),
                    _splits(plain, n), _by_turn(plain.get("missing"), n, (), _notes)))


def _positions(plain: dict, name: str, n: int, limit: int) -> list:
    spans, skips = plain.get(name), plain.get(name + "_lists")
    if not (type(spans) is array and spans.typecode == "q" and len(spans) == 2 * n):
        raise ValueError(f"a bad column {name}")
    lo, hi = spans[0::2], spans[1::2]
    if n and (min(lo) < 0 or max(hi) > limit or not all(map(le, lo, hi))):
        raise ValueError("a turn's positions past its records")
    out = [range(a, b) if a < b else NO_POSITIONS for a, b in zip(lo, hi)]
    for k, p in _by_turn(skips, n, None, _listed).items():
        if not all(type(x) is int and 0 <= x < limit for x in p):
            raise ValueError("a turn's positions past its records")
        out[k] = p
    return out


def _listed(v: Any) -> list:
    if type(v) is not list:
        raise ValueError("not a list")
    return v


def _splits(plain: dict, n: int) -> list:
    has, figures = plain.get("split"), plain.get("figures")
    if not (type(has) is array and has.typecode == "b" and len(has) == n and has.count(0) + has.count(1) == n
            and type(figures) is array and figures.typecode == "q" and len(figures) == has.count(1) * 5):
        raise ValueError("a bad column split")
    flat, at, out = figures.tolist(), 0, []
    for h in has:
        if h:
            out.append(Split("q", flat[at:at + 5]))
            at += 5
        else:
            out.append(NO_SPLIT)
    for k, s in _by_turn(plain.get("split_other"), n, None, _listed).items():
        out[k] = split_from_plain(s)
    return out


def _notes(v: Any) -> list:
    if not (type(v) is list and v and all(type(x) is str for x in v)):
        raise ValueError("a turn's note not text")
    return v


def _by_turn(kept: Any, n: int, default: Any, check: Any) -> Any:
    """A {turn position: value} column, each value checked (``check``): as a list of ``n`` values
    (``default`` elsewhere), or (``default`` None) as the dict."""
    if type(kept) is not dict or not all(type(k) is int and 0 <= k < n for k in kept):
        raise ValueError("a bad sparse column")
    if default is None:
        return {k: check(v) for k, v in kept.items()}
    out = [default] * n
    for k, v in kept.items():
        out[k] = check(v)
    return out


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


def commands_from_plain(command: type, commands: Any) -> list:
    """The commands from the cache's form (their field values, a tuple each), checked."""
    if not (type(commands) is list and all(type(c) is tuple and len(c) == 7 for c in commands)):
        raise ValueError("not the timing's commands")
    return [command(*c) for c in commands]
