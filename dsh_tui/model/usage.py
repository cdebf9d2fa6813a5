"""Token usage per turn and per session.

One model call is one (turn, step). Its `usage` chunk is the source; the
assistant/message's `usage` counts only where the call had no usage chunk, so
nothing is counted twice. Events inherited through a fork (seq < seedLength)
are summed apart: they were the parent's calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import isfinite
from operator import add
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


def compute_usage(log) -> Usage:
    """The log's token usage from the per-call counts its scan kept (``res.usage_calls``, facts.py)."""
    seed = log.header.get("seedLength")
    seed = int(seed) if isinstance(seed, (int, float)) and not isinstance(seed, bool) else 0
    out = Usage()
    inherited: list = []
    by_turn: dict[Any, tuple[int, ...]] = {}  # turn -> its calls' summed counts
    calls = from_message = 0
    for (turn, _step), (seq, counts, from_chunk) in log.res.usage_calls.items():
        if seq < seed:
            inherited.append(counts)
            continue
        calls += 1
        from_message += not from_chunk
        summed = by_turn.get(turn)
        by_turn[turn] = counts if summed is None else tuple(map(add, summed, counts))
    out.calls, out.from_message = calls, from_message
    out.inherited = _sums(inherited)
    out.turns = {turn: dict(zip(TOKEN_KEYS, summed)) for turn, summed in by_turn.items()}
    out.session = _sums(by_turn.values())  # the sum of its turns
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
