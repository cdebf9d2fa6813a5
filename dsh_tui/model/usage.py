"""Token usage per turn and per session.

One model call is one (turn, step). Its `usage` chunk is the source; the
assistant/message's `usage` counts only where the call had no usage chunk, so
nothing is counted twice. Events inherited through a fork (seq < seedLength)
are summed apart: they were the parent's calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


def _add(into: dict[str, int], usage: dict) -> None:
    for k in TOKEN_KEYS:
        v = usage.get(k)
        if type(v) is int:
            into[k] += v
        elif type(v) is float:
            into[k] += int(v)


def compute_usage(log, per_call: dict | None = None, fed: int = 0) -> Usage:
    """``per_call``: `usage_calls` of the log's first ``fed`` facts, if already done."""
    seed = log.header.get("seedLength")
    seed = int(seed) if isinstance(seed, (int, float)) and not isinstance(seed, bool) else 0
    per_call = usage_calls(log.res.facts[fed:], {} if per_call is None else per_call)
    out = Usage()
    turns = out.turns
    for (turn, _step), (seq, usage, from_chunk) in per_call.items():
        if seq < seed:
            _add(out.inherited, usage)
            continue
        out.calls += 1
        out.from_message += not from_chunk
        into = turns.get(turn)
        if into is None:
            into = turns[turn] = dict.fromkeys(TOKEN_KEYS, 0)
        _add(into, usage)
    for into in turns.values():  # the session is the sum of its turns: half the additions of adding each call twice
        for k in TOKEN_KEYS:
            out.session[k] += into[k]
    return out


def usage_calls(facts, per_call: dict) -> dict[tuple, tuple[int, dict, bool]]:
    """(turn, step) -> (seq, usage, from a usage chunk), facts after those already in ``per_call``."""
    for f in facts:
        if f.type == "chunk/usage" and isinstance(f.data.get("usage"), dict):
            key = (f.data.get("turn"), f.data.get("step"))
            per_call[key] = (f.seq, f.data["usage"], True)
        elif f.type == "assistant/message" and isinstance(f.data.get("usage"), dict):
            key = (f.data.get("turn"), f.data.get("step"))
            if key not in per_call or not per_call[key][2]:
                per_call[key] = (f.seq, f.data["usage"], False)
    return per_call
