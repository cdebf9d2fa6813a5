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
from typing import Any, Iterator

from msgspec import Struct, field

from ..reading.contextfacts import HEADER, MESSAGE, value
from .select import indices_of, records
from .surface import COMPACTION_RECORDS


class Header(Struct):  # one per request: 145k on a 10M-event log (a __dict__ each was ~40 MiB)
    index: int
    seq: int
    reason: str | None
    provider: str | None
    model: str | None
    config: dict  # key -> value as contextfacts.flat keeps it (one dict for the headers that repeat it)
    adapter_defaults: dict | None
    tools: tuple[str, ...]  # (shared by the headers that offer the same tools)
    tools_total: int
    system_chars: int | None  # the system prompt's length (None: absent)
    system_hash: int | None
    changes: dict = field(default_factory=dict)  # from the previous header (the first: empty)

    def as_dict(self) -> dict:
        return {"seq": self.seq, "reason": self.reason, "provider": self.provider, "model": self.model,
                "tools": self.tools, "tools_total": self.tools_total, "system_chars": self.system_chars,
                "changed": self.changes}


class Request(Struct, frozen=True):
    index: int  # the assistant/message
    seq: int
    turn: Any
    step: Any
    input_tokens: int | None  # None: the message carries no usage
    compactions: tuple[int, ...]  # seqs of the compaction/summary and compaction/prune records since the previous request

    def as_dict(self) -> dict:
        return {"seq": self.seq, "turn": self.turn, "step": self.step, "input_tokens": self.input_tokens,
                "compactions_before": list(self.compactions)}


def headers(log, recs=None) -> list[Header]:
    """Every request header in log order, each with its ``changes`` from the one before it (``recs``:
    the headers' records, when the caller has them)."""
    return [h for _i, _seq, _changes, h in walk_headers(log, recs)]


def walk_headers(log, recs=None, made_first: int | None = None) -> Iterator[tuple[int, int, dict, Header | None]]:
    """(index, seq, changes, header) of every request header in log order; with ``made_first``, the
    `Header` is made only for the first ``made_first`` and for those that changed (`check` lists
    only those: the 936k log's 13,200 headers are one header with two reasons)."""
    recs = records(log, (HEADER,)) if recs is None else recs
    # A header's config items -> its config dicts: one pair for the headers that share them (bodies
    # that differ only in their reason share their items), so `diff` knows them by identity.
    dicts: dict[tuple[int, int], tuple] = {}
    prev = prev_h = None  # the previous record (and its Header, once made)
    n = 0
    for rec in recs:
        n += 1
        body = rec[3]
        h = None
        if prev is not None and body[3] is prev[3][3] and body[4] is prev[3][4] and body[5] == prev[3][5] \
                and body[7] == prev[3][7] and body[8] == prev[3][8]:
            changes = NO_CHANGES  # what `diff` answers for the same config objects, tools and prompt
        else:
            h = _header(rec, dicts)
            changes = NO_CHANGES
            if prev is not None:
                changes = diff(prev_h if prev_h is not None else _header(prev, dicts), h)
                if changes is not NO_CHANGES:
                    h.changes = changes
        if h is None and (made_first is None or n <= made_first):
            h = _header(rec, dicts)
        yield rec[1], rec[2], changes, h
        prev, prev_h = rec, h


def _header(rec: tuple, dicts: dict) -> Header:
    _type, i, seq, body = rec
    reason, provider, model, config, ad, names, total, chars, digest = body
    got = dicts.get((id(config), id(ad)))  # by identity: == would take 1 and true for one value
    if got is None:
        got = dicts[(id(config), id(ad))] = (dict(config), dict(ad) if ad is not None else None)
    return Header(i, seq, reason, provider, model, got[0], got[1], names, total, chars, digest, NO_CHANGES)


NO_CHANGES: dict = {}  # what most headers changed, one dict for all of them: read, never written


def diff(a: Header, b: Header) -> dict:
    """What changed from header ``a`` to ``b``: only the keys that did."""
    if ((a.tools, a.system_hash, a.system_chars) == (b.tools, b.system_hash, b.system_chars)
            and _same(a.config, b.config) and _same(a.adapter_defaults, b.adapter_defaults)):
        return NO_CHANGES
    out: dict[str, Any] = {}
    had, has = set(a.tools), set(b.tools)
    added = [t for t in b.tools if t not in had]
    removed = [t for t in a.tools if t not in has]
    if added:
        out["tools_added"] = added
    if removed:
        out["tools_removed"] = removed
    config = {k: [value(a.config.get(k)), value(b.config.get(k))]
              for k in sorted(set(a.config) | set(b.config), key=str) if _differs(a.config.get(k), b.config.get(k))}
    if config:
        out["config"] = config
    if not _same(a.adapter_defaults, b.adapter_defaults):
        out["adapter_defaults"] = [_values(a.adapter_defaults), _values(b.adapter_defaults)]
    if a.system_hash != b.system_hash or a.system_chars != b.system_chars:
        out["system"] = [a.system_chars, b.system_chars]
    return out


def in_force(hs: list[Header], at: int) -> Header | None:
    """The header in force at event ``at``: the last written before it (or at it)."""
    k = bisect.bisect_right([h.index for h in hs], at) - 1
    return hs[k] if k >= 0 else None


def requests(log, recs=None) -> list[Request]:
    """Every model request (assistant/message) with its input tokens and the compactions before it
    (``recs``: the messages' records, when the caller has them)."""
    return list(iter_requests(log, recs))


def iter_requests(log, recs=None) -> Iterator[Request]:
    """`requests` one at a time (`check` keeps only the few it lists)."""
    compactions = indices_of(log, COMPACTION_RECORDS)
    prev = -1
    for _type, i, seq, turn, step, tokens in (records(log, (MESSAGE,)) if recs is None else recs):
        if compactions:
            lo, hi = bisect.bisect_right(compactions, prev), bisect.bisect_right(compactions, i)
            before = tuple(log.seq_of(r) for r in compactions[lo:hi])
        else:
            before = ()
        yield Request(i, seq, value(turn), value(step), tokens, before)
        prev = i


def request_before(reqs: list[Request], at: int) -> Request | None:
    """The last model request at or before event ``at``."""
    k = bisect.bisect_right([r.index for r in reqs], at) - 1
    return reqs[k] if k >= 0 else None


def _differs(x: Any, y: Any) -> bool:
    """Two config values differ: by JSON type too (Python's == takes 1, 1.0 and true for one)."""
    return type(x) is not type(y) or x != y


def _same(a: dict | None, b: dict | None) -> bool:
    if a is b:
        return True  # the headers that share a body share its dicts
    if a is None or b is None or a.keys() != b.keys():
        return False
    return not any(_differs(v, b[k]) for k, v in a.items())


def _values(d: dict | None) -> dict | None:
    return None if d is None else {k: value(v) for k, v in d.items()}
