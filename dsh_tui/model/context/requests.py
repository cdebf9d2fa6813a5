"""Request headers and the input tokens of every model request.

A `request/header` is the envelope dsh sends (provider, model, reasoning effort, adapter defaults,
system prompt, tools offered), written inside the step before dispatch with a reason (initial,
resume, change). Each is compared with the one before it: tools added or removed, config keys
changed, adapter defaults changed, the system prompt changed. The header in force for an event is
the last one before it. A model request is an `assistant/message` (one per completed call); its
input tokens are its usage's inputTokens + cacheReadTokens + cacheWriteTokens (dsh's counts are
disjoint: together they are what the request sent).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

from .select import as_int, envelope, events, indices_of
from .surface import COMPACTION_RECORDS

MAX_TOOLS = 500  # tool names kept per header (a hostile header can offer a million)


@dataclass
class Header:
    index: int
    seq: int
    reason: str | None
    provider: str | None
    model: str | None
    config: dict
    adapter_defaults: dict | None
    tools: list[str]
    tools_total: int
    system_chars: int | None  # the system prompt's length (None: absent)
    system_hash: int | None
    changes: dict = field(default_factory=dict)  # from the previous header (the first: empty)

    def as_dict(self) -> dict:
        return {"seq": self.seq, "reason": self.reason, "provider": self.provider, "model": self.model,
                "tools": self.tools, "tools_total": self.tools_total, "system_chars": self.system_chars,
                "changed": self.changes}


@dataclass(frozen=True, slots=True)
class Request:
    index: int  # the assistant/message
    seq: int
    turn: Any
    step: Any
    input_tokens: int | None  # None: the message carries no usage
    compactions: tuple[int, ...]  # seqs of the compaction/summary and compaction/prune records since the previous request

    def as_dict(self) -> dict:
        return {"seq": self.seq, "turn": self.turn, "step": self.step, "input_tokens": self.input_tokens,
                "compactions_before": list(self.compactions)}


def read_header(log, i: int, ev: dict | None = None) -> Header:
    d = (ev if ev is not None else envelope(log, i)).get("data")
    d = d if isinstance(d, dict) else {}
    h = d.get("header") if isinstance(d.get("header"), dict) else {}
    config = h.get("config") if isinstance(h.get("config"), dict) else {}
    tools_raw = h.get("tools") if isinstance(h.get("tools"), list) else []
    names = [t.get("name") if isinstance(t, dict) and isinstance(t.get("name"), str) else "?" for t in tools_raw[:MAX_TOOLS]]
    system = h.get("system")
    ad = h.get("adapterDefaults")
    return Header(i, log.seq_of(i), d.get("reason") if isinstance(d.get("reason"), str) else None,
                  _str(config.get("provider")), _str(config.get("model")), _scalars(config),
                  _scalars(ad) if isinstance(ad, dict) else None, names, len(tools_raw),
                  len(system) if isinstance(system, str) else None,
                  hash(system) if isinstance(system, str) else None)


def headers(log, evs=None) -> list[Header]:
    """Every request header in log order, each with its ``changes`` from the one before it (``evs``:
    the (index, event) of each, when the caller reads them with others)."""
    return with_changes([read_header(log, i, ev) for i, ev in (evs if evs is not None
                                                                 else events(log, ("request/header",)))])


def with_changes(hs: list[Header]) -> list[Header]:
    """``hs`` with each header's ``changes`` from the one before it."""
    for a, b in zip(hs, hs[1:]):
        b.changes = diff(a, b)
    return hs


def diff(a: Header, b: Header) -> dict:
    """What changed from header ``a`` to ``b``: only the keys that did."""
    out: dict[str, Any] = {}
    if (a.tools, a.config, a.adapter_defaults, a.system_hash, a.system_chars) == \
            (b.tools, b.config, b.adapter_defaults, b.system_hash, b.system_chars):
        return out
    had, has = set(a.tools), set(b.tools)
    added = [t for t in b.tools if t not in had]
    removed = [t for t in a.tools if t not in has]
    if added:
        out["tools_added"] = added
    if removed:
        out["tools_removed"] = removed
    config = {k: [a.config.get(k), b.config.get(k)] for k in sorted(set(a.config) | set(b.config), key=str)
              if a.config.get(k) != b.config.get(k)}
    if config:
        out["config"] = config
    if a.adapter_defaults != b.adapter_defaults:
        out["adapter_defaults"] = [a.adapter_defaults, b.adapter_defaults]
    if a.system_hash != b.system_hash or a.system_chars != b.system_chars:
        out["system"] = [a.system_chars, b.system_chars]
    return out


def in_force(hs: list[Header], at: int) -> Header | None:
    """The header in force at event ``at``: the last written before it (or at it)."""
    k = bisect.bisect_right([h.index for h in hs], at) - 1
    return hs[k] if k >= 0 else None


def requests(log, evs=None) -> list[Request]:
    """Every model request (assistant/message) with its input tokens and the compactions before it."""
    records = indices_of(log, COMPACTION_RECORDS)
    out: list[Request] = []
    prev = -1
    for i, ev in (evs if evs is not None else events(log, ("assistant/message",))):
        d = ev.get("data") if isinstance(ev.get("data"), dict) else {}
        lo, hi = bisect.bisect_right(records, prev), bisect.bisect_right(records, i)
        out.append(Request(i, log.seq_of(i), d.get("turn"), d.get("step"), input_tokens(d.get("usage")),
                           tuple(log.seq_of(r) for r in records[lo:hi])))
        prev = i
    return out


def input_tokens(usage: Any) -> int | None:
    if not isinstance(usage, dict):
        return None
    parts = [as_int(usage.get(k)) for k in ("inputTokens", "cacheReadTokens", "cacheWriteTokens")]
    return sum(p for p in parts if p is not None) if parts[0] is not None else None


def request_before(reqs: list[Request], at: int) -> Request | None:
    """The last model request at or before event ``at``."""
    k = bisect.bisect_right([r.index for r in reqs], at) - 1
    return reqs[k] if k >= 0 else None


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _scalars(d: dict) -> dict:
    """A config object's keys with their values (a nested value kept as it is: compared, not shown)."""
    return {str(k): v for k, v in list(d.items())[:200]}
