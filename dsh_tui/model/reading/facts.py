"""Facts: the compact subset of an event the diagnosis needs (never whole payloads).

The scan (scan.py) keeps one fact per event of the types below, built by these
extractors; pairing, diagnosis and usage read nothing else of the log. A fact is
a plain ``(type, index, seq, data)`` tuple: built ~80k times on a big log, sent
through the tail helper's pipe as it is (marshal), and unpacked in the loops
that read it. ``data`` is a tuple laid out per type for the frequent types (a
tuple costs half a dict to build, to send and to read back) and a dict of the
event's scalar fields for the rare, free-form ones:

    turn/start, step/start, step/end, session/end-seed   (turn, step, time)
    turn/end            (turn, reason, time)
    tool/call           (turn, step, callId, name, arguments preview, time)
    tool/result         (turn, step, callId, isError, error, text preview, replaces an earlier result, time)
    assistant/chunk finish  (turn, step, kind, failure message, code): only for a finish reason error/aborted
    assistant/message   (turn, step, calls, interrupted, time): calls a tuple of (id, name, arguments preview);
                        interrupted is True for a prefix kept from a cancelled stream
    request/header      (tool names, time)
    tool/code-dispatch-start, tool/code-dispatch
                        (rootCallId, subCallId, name, isError, text preview, time)
    goal/change         (operation, goal id, objective, blockedReason, time)
    assistant/chunk run [turn, step, events, first time, last time, longest gap, its offset, events without a time]
                        (CHUNKS: chunkclock.ChunkClock, one per run of consecutive chunk events; a list grown in place)

``time`` is the event's envelope time when it is an int (epoch ms, dsh's Date.now()), else None;
the free-form dict facts carry it under TIME_KEY. The timing model (diagnosing/timing.py) reads
only these.
"""

from __future__ import annotations

from typing import Any

import sys

import orjson

from ..columns.calltable import CallTable
from .tokens import tokens
from .deepvalue import said, short_repr

PREVIEW = 240
CHUNK = "assistant/chunk"
MESSAGE = "assistant/message"
FINISH = "assistant/chunk finish"  # a finish chunk whose reason is error or aborted (finish_fact)
CHUNKS = sys.intern("assistant/chunk run")  # a run of consecutive chunk events (ChunkClock)
RETRY_MESSAGE = 160  # a retry failure's message as a finding quotes it (findings.retry_findings)
TIME_KEY = "@time"  # a dict fact's envelope time (a key set after the event's own: it wins)


Fact = tuple  # (type: str, index: int, seq: int, data: tuple | dict): the layouts above


def _preview(value: Any) -> str:
    if isinstance(value, str):
        return value[:PREVIEW]
    try:
        return orjson.dumps(value).decode()[:PREVIEW]
    except (TypeError, orjson.JSONEncodeError):  # past orjson's 254 levels (a record may nest 3,000)
        return short_repr(value, PREVIEW)[:PREVIEW]


def _text_of(blocks: Any) -> str:
    if isinstance(blocks, list):
        for b in blocks:  # the first text block is enough for a preview
            if isinstance(b, dict) and isinstance(b.get("text"), str):
                return b["text"][:PREVIEW]
        return ""
    return _preview(blocks) if blocks is not None else ""


_PLAIN = frozenset({type(None), str, int, float, bool})  # JSON values fit for a dict key as they are
_SAFE = 2**53 - 1  # vocabulary.MAX_SAFE


def _when(time: Any) -> int | None:
    """An event's time as a fact keeps it: an int in JavaScript's safe range, else None."""
    return time if type(time) is int and -_SAFE <= time <= _SAFE else None


def key_value(value: Any) -> Any:
    """A JSON value fit for a dict key: turn and step numbers key the diagnosis's tables, and a
    crafted log may hold a list or an object there (shown then as its JSON text)."""
    return value if type(value) in _PLAIN else _preview(value)


def turn_step(d: dict, _op: Any = None, time: Any = None) -> tuple:
    t, s = d.get("turn"), d.get("step")
    # Inlined key_value: this runs for most facts of a big log. The frequent extractors below and
    # note_chunk_usage inline these two expressions in turn (calling turn_step from them measured
    # +0.5% of a check's instructions).
    return (t if type(t) in _PLAIN else _preview(t), s if type(s) in _PLAIN else _preview(s),
            _when(time))


def is_usage_chunk(chunk: Any) -> bool:
    """The one kind of loose chunk the scan reads: a call's token counts (`usage.py`)."""
    return type(chunk) is dict and chunk.get("type") == "usage"  # ==, not a set lookup: any JSON type is safe


# Token counts are not facts: the scan keeps one entry per model call, (turn, step) -> (seq, counts,
# from a usage chunk), in the order calls first appear (a CallTable: columns, not tuples). The last
# usage of a call wins, as in dsh's own fold: the usage chunk is an early sample that survives a
# request failing after it, the assistant/message's the final one (equal in every real log here).
# Kept apart from the facts, this is 1/7 fewer facts to build, send from the tail helper and walk
# three times.

def _tokens(usage: Any) -> tuple[int, ...] | None:
    """usage.tokens, with no call per key for the usual object (exact ints, a key or two missing)."""
    if type(usage) is dict:
        get = usage.get  # (TOKEN_KEYS, unrolled: this runs for every model call, twice)
        a, b, c, d, e = (get("inputTokens"), get("outputTokens"), get("cacheReadTokens"), get("cacheWriteTokens"),
                         get("reasoningTokens"))
        if ((type(a) is int or a is None) and (type(b) is int or b is None) and (type(c) is int or c is None)
                and (type(d) is int or d is None) and (type(e) is int or e is None)):
            return (a or 0, b or 0, c or 0, d or 0, e or 0)
    return tokens(usage)


def _meter_nan(calls: CallTable, usage: Any) -> None:
    """dsh's meter adds ``usage.inputTokens`` and ``usage.outputTokens`` as they are: a sample without
    one (a damaged key, a usage that is no object) makes that bucket NaN for good (CallTable.nan)."""
    if type(usage) is not dict:
        calls.nan |= 3
    else:
        calls.nan |= ("inputTokens" not in usage) | ("outputTokens" not in usage) << 1


def note_chunk_usage(calls: CallTable, d: dict, chunk: dict, seq: int) -> None:
    """The usage chunk ``chunk`` of an assistant/chunk event whose ``data`` is ``d``."""
    usage = chunk.get("usage")
    counts = _tokens(usage)
    if counts is None or not counts[0] or not counts[1]:  # (rare: the usual sample counts both)
        _meter_nan(calls, usage)
    if counts is not None:
        t, s = d.get("turn"), d.get("step")
        calls.put((t if type(t) in _PLAIN else _preview(t), s if type(s) in _PLAIN else _preview(s)), seq, counts, True)


def note_message_usage(calls: CallTable, fact: tuple, d: dict, seq: int) -> None:
    """The usage of an assistant/message whose fact is ``fact`` and ``data`` is ``d``."""
    usage = d.get("usage")
    counts = _tokens(usage)
    if counts is None and usage is not None or counts is not None and (not counts[0] or not counts[1]):
        _meter_nan(calls, usage)
    if counts is not None:
        calls.put(fact[:2], seq, counts, False)  # an assistant/message fact starts (turn, step)


def finish_fact(d: dict) -> tuple | None:
    """The fact of an assistant/chunk ``finish`` whose reason is ``error`` or ``aborted`` (the model's
    stream ended badly): (turn, step, kind, failure message, failure code); None for a normal finish."""
    chunk = d.get("chunk")
    reason = chunk.get("reason") if type(chunk) is dict else None
    kind = reason.get("kind") if type(reason) is dict else None
    if kind not in ("error", "aborted"):
        return None
    failure = reason.get("failure") if type(reason.get("failure")) is dict else {}
    t, s = d.get("turn"), d.get("step")
    return (key_value(t), key_value(s), kind, _preview(failure.get("message")) if failure.get("message") else None,
            key_value(failure.get("code")))


def _turn_end(d: dict, _op: Any, time: Any = None) -> tuple:
    return (key_value(d.get("turn")), d.get("reason"), _when(time))


def _tool_call(d: dict, _op: Any, time: Any = None) -> tuple:
    t, s, args = d.get("turn"), d.get("step"), d.get("arguments")
    return (t if type(t) in _PLAIN else _preview(t), s if type(s) in _PLAIN else _preview(s), d.get("callId"),
            d.get("name"), args[:PREVIEW] if type(args) is str else _preview(args), _when(time))


def _tool_result(d: dict, op: Any, time: Any = None) -> tuple:
    t, s, msg = d.get("turn"), d.get("step"), d.get("message")
    if not isinstance(msg, dict):
        msg = {}
    src = msg.get("source")
    content = msg.get("content")
    block = content[0] if type(content) is list and content and isinstance(content[0], dict) else {}
    err = d.get("error")
    return (t if type(t) in _PLAIN else _preview(t), s if type(s) in _PLAIN else _preview(s),
            src.get("callId", block.get("toolCallId")) if isinstance(src, dict) else block.get("toolCallId"),
            block.get("isError") is True, err if isinstance(err, dict) else None, _text_of(block.get("content")),
            isinstance(op, dict), _when(time))


def _assistant_message(d: dict, _op: Any, time: Any = None) -> tuple:
    t, s, msg = d.get("turn"), d.get("step"), d.get("message")
    blocks = msg.get("content") if isinstance(msg, dict) else None
    calls = tuple([(b.get("id"), b.get("name"), _preview(b.get("arguments")))
                   for b in blocks if isinstance(b, dict) and b.get("type") == "tool-call"]) if type(blocks) is list else ()
    return (t if type(t) in _PLAIN else _preview(t), s if type(s) in _PLAIN else _preview(s), calls,
            d.get("interrupted") is True, _when(time))


def _code_dispatch(d: dict, _op: Any, time: Any = None) -> tuple:
    """A tool called from a run_code program (nested under the root call)."""
    return (key_value(d.get("rootCallId")), key_value(d.get("subCallId")), key_value(d.get("name")),
            d.get("isError") is True, _text_of(d.get("content")), _when(time))


def _goal_change(d: dict, _op: Any, time: Any = None) -> tuple:
    goal = d.get("goal") if isinstance(d.get("goal"), dict) else {}
    return (key_value(d.get("operation")), key_value(goal.get("id")), _preview(goal.get("objective")),
            _preview(goal.get("blockedReason")) if goal.get("blockedReason") is not None else None,
            _when(time))


def _small_fields(d: dict, _op: Any, time: Any = None) -> dict:
    out = {k: (v[:PREVIEW] if isinstance(v, str) else v) for k, v in d.items() if k != "source"}
    for k in ("turn", "step"):
        if k in out:
            out[k] = key_value(out[k])
    out[TIME_KEY] = _when(time)
    return out


def _retry(d: dict, _op: Any, time: Any = None) -> dict:
    """An llm/retry(-started): the fields the diagnosis and the timing read, as `_small_fields` keeps
    them, and of its failure only what a finding says (its code, its message's first RETRY_MESSAGE
    characters): a big log has tens of thousands of retries, each a dozen fields."""
    out = {k: (v[:PREVIEW] if isinstance(v, str) else v) for k in _RETRY_FIELDS if (v := d.get(k, d)) is not d}
    for k in ("turn", "step"):
        if k in out:
            out[k] = key_value(out[k])
    failure = d.get("failure")
    if type(failure) is dict:
        message = failure.get("message")  # words, not Python's repr, for a message that is no string
        out["failure"] = {"code": failure.get("code"),
                          "message": None if message is None else said(message, RETRY_MESSAGE)[:RETRY_MESSAGE]}
    out[TIME_KEY] = _when(time)
    return out


_RETRY_FIELDS = ("turn", "step", "retry", "maxRetries", "delayMs")


_TOOL_SETS: dict[tuple, tuple] = {}  # one tuple per distinct tool set (marshal sends a repeat as a reference)


def _request_header(d: dict, _op: Any, time: Any = None) -> tuple:
    """Only the tool names: what a later tool/call is checked against (NOT_IN_TOOL_SET)."""
    header = d.get("header")
    tools = header.get("tools") if isinstance(header, dict) else None
    time = _when(time)
    if not isinstance(tools, list):
        return (None, time)
    names = tuple([t.get("name") for t in tools if isinstance(t, dict)])
    try:  # a long session sends the same tools with every request
        if len(_TOOL_SETS) > 64:
            _TOOL_SETS.clear()
        names = _TOOL_SETS.setdefault(names, names)
    except TypeError:  # a name that is not a JSON scalar: not shared
        pass
    return (names, time)


def _scalars(d: dict, _op: Any, _time: Any = None) -> dict:
    return {k: v for k, v in d.items() if isinstance(v, (str, int, float, bool))}


# The compact subset of an event the diagnosis needs (never whole payloads).
FACT_EXTRACTORS = {
    "turn/start": turn_step, "step/start": turn_step, "step/end": turn_step, "session/end-seed": turn_step,
    "turn/end": _turn_end, "tool/call": _tool_call, "tool/result": _tool_result,
    "assistant/message": _assistant_message, "request/header": _request_header, "subagent/descriptor": _scalars,
    "tool/code-dispatch-start": _code_dispatch, "tool/code-dispatch": _code_dispatch, "goal/change": _goal_change,
    "llm/retry": _retry, "llm/retry-started": _retry,
    **{t: _small_fields for t in ("command/run", "command/done", "approval/asked", "approval/decided",
                                  "agent-preset/selected", "compaction/start", "compaction/end",
                                  "tool-workflow/agent-start", "tool-workflow/agent-end", "tool-workflow/run-end",
                                  "hook/result")},
}


# Types whose data the legacy upgrade looks at (legacy.py).
LEGACY_CANDIDATES = frozenset({"turn/start", "turn/end", "steering/message", "user/message",
                               "assistant/message", "tool/result"})
