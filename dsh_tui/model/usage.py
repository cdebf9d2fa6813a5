"""Token usage per turn and per session.

One model call is one (turn, step). Its `usage` chunk is the source; the
assistant/message's `usage` counts only where the call had no usage chunk, so
nothing is counted twice. Events inherited through a fork (seq < seedLength)
are summed apart: they were the parent's calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from math import isfinite
from operator import add, is_not
from typing import Any

TOKEN_KEYS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")


@dataclass
class Usage:
    session: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TOKEN_KEYS, 0))
    inherited: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TOKEN_KEYS, 0))
    turns: dict[Any, dict[str, int]] = field(default_factory=dict)
    calls: int = 0
    from_message: int = 0  # calls whose usage came from assistant/message (no usage chunk)

    def as_dict(self) -> dict:
        return {"session": self.session, "inherited": self.inherited, "calls": self.calls,
                "calls_from_message_usage": self.from_message,
                "turns": [{"turn": t, **v} for t, v in self.turns.items()],
                "source": "usage chunks; assistant/message.usage only where a call has no usage chunk"}


def _count(v: Any) -> int:
    if type(v) is int:
        return v
    # A line read leniently can hold 1e999 or NaN: no count, not a crash.
    return int(v) if type(v) is float and isfinite(v) else 0


def tokens(usage: Any) -> tuple[int, ...] | None:
    """The TOKEN_KEYS counts of a usage object, as ints (what is not a finite number counts 0); None
    if it is not an object. Done once per fact, in the scan, so summing is plain tuple arithmetic."""
    if not isinstance(usage, dict):
        return None
    return tuple(map(_count, map(usage.get, TOKEN_KEYS)))


def compute_usage(log, tally: UsageTally | None = None) -> Usage:
    """The log's token usage from the per-call counts its scan kept (``res.usage_calls``, facts.py);
    ``tally``: one kept up to date while the log was read (used if it assumed the right seed)."""
    seed = log.header.get("seedLength")
    seed = int(seed) if isinstance(seed, (int, float)) and not isinstance(seed, bool) else 0
    if tally is None or tally.seed != seed:
        tally = UsageTally(seed)
    return tally.usage(log.res.usage_calls)


class UsageTally:
    """Sums per turn of a growing per-call table (the tail helper's slices are merged into it while
    the head's diagnosis goes on), so the sums are mostly done by the time the table is whole."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.counted: dict[tuple, tuple] = {}  # (turn, step) -> the (seq, counts, from a chunk) summed
        self.turns: dict[Any, tuple[int, ...]] = {}  # turn -> summed counts, in first-seen order
        self.inherited: tuple[int, ...] = (0,) * len(TOKEN_KEYS)  # calls before seedLength (a fork's parent's)
        self.calls = self.from_message = 0

    def add(self, table: dict) -> None:
        """Count the calls appended to ``table`` since the last add (a table only grows at its end)."""
        counted, turns, seed = self.counted, self.turns, self.seed
        for key, call in islice(table.items(), len(counted), None):
            counted[key] = call
            seq, counts, from_chunk = call
            if seq < seed:
                self.inherited = tuple(map(add, self.inherited, counts))
                continue
            self.calls += 1
            self.from_message += not from_chunk
            summed = turns.get(key[0])
            turns[key[0]] = counts if summed is None else tuple(map(add, summed, counts))

    def usage(self, table: dict) -> Usage:
        self.add(table)
        if any(map(is_not, map(self.counted.__getitem__, table), table.values())):
            # A merge gave a call counted earlier a new value (a later usage chunk): count afresh.
            fresh = UsageTally(self.seed)
            fresh.add(table)
            return fresh.usage(table)
        out = Usage(calls=self.calls, from_message=self.from_message)
        out.inherited = dict(zip(TOKEN_KEYS, self.inherited))
        out.turns = {turn: dict(zip(TOKEN_KEYS, summed)) for turn, summed in self.turns.items()}
        out.session = _sums(self.turns.values())  # the sum of its turns
        return out


def _sums(rows) -> dict[str, int]:
    return dict(zip(TOKEN_KEYS, map(sum, zip(*rows)))) if rows else dict.fromkeys(TOKEN_KEYS, 0)


def merge_calls(calls: dict, later: dict) -> None:
    """Add the per-call counts of a later part of the log (the tail helper's) as if read on: a later
    usage chunk wins, a later message's usage only over a message's."""
    for key, call in later.items():
        if not call[2]:
            known = calls.get(key)
            if known is not None and known[2]:
                continue
        calls[key] = call
