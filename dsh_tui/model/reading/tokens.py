"""A usage object's token counts, as the scan reads them once per fact (facts.py) and the diagnosis
sums them (diagnosing/usage.py folds them as dsh's meter does)."""

from __future__ import annotations

from math import isfinite
from typing import Any

TOKEN_KEYS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")


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
