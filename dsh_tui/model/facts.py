"""Facts: the compact subset of an event the diagnosis needs (never whole payloads).

The scan (scan.py) keeps one Fact per event of the types below, built by these
extractors; pairing, diagnosis and usage read nothing else of the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

PREVIEW = 240
CHUNK = "assistant/chunk"


@dataclass(slots=True)
class Fact:
    type: str
    index: int
    seq: int
    data: dict


def _preview(value: Any) -> str:
    if isinstance(value, str):
        return value[:PREVIEW]
    try:
        return orjson.dumps(value).decode()[:PREVIEW]
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)[:PREVIEW]


def _text_of(blocks: Any) -> str:
    if isinstance(blocks, list):
        for b in blocks:  # the first text block is enough for a preview
            if isinstance(b, dict) and isinstance(b.get("text"), str):
                return b["text"][:PREVIEW]
        return ""
    return _preview(blocks) if blocks is not None else ""


def key_value(value: Any) -> Any:
    """A JSON value fit for a dict key: turn and step numbers key the diagnosis's tables, and a
    crafted log may hold a list or an object there (shown then as its JSON text)."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    return _preview(value)


def turn_step(d: dict) -> dict:
    return {"turn": key_value(d.get("turn")), "step": key_value(d.get("step"))}


def is_usage_chunk(chunk: Any) -> bool:
    """The one kind of loose chunk kept as a fact: a call's token counts (`usage.py`)."""
    return type(chunk) is dict and chunk.get("type") == "usage"  # ==, not a set lookup: any JSON type is safe


def usage_fact(d: dict, chunk: dict, index: int, seq: int) -> Fact:
    """The ``chunk/usage`` fact of an assistant/chunk event whose ``data`` is ``d``."""
    return Fact("chunk/usage", index, seq, {**turn_step(d), "usage": chunk.get("usage"), "reason": chunk.get("reason")})


def _turn_step(d: dict, _op: Any) -> dict:
    return turn_step(d)


def _turn_end(d: dict, _op: Any) -> dict:
    return {"turn": key_value(d.get("turn")), "reason": d.get("reason")}


def _tool_call(d: dict, _op: Any) -> dict:
    args = d.get("arguments")
    return {**turn_step(d), "callId": d.get("callId"), "name": d.get("name"),
            "args": _preview(args), "args_len": len(args) if isinstance(args, str) else None}


def _tool_result(d: dict, op: Any) -> dict:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    src = msg.get("source") if isinstance(msg.get("source"), dict) else {}
    content = msg.get("content")
    block = content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}
    meta = d.get("meta")
    err = d.get("error")
    return {**turn_step(d),
            "callId": src.get("callId", block.get("toolCallId")),
            "isError": block.get("isError") is True, "error": err if isinstance(err, dict) else None,
            "text": _text_of(block.get("content")),
            "diffs": isinstance(meta, dict) and isinstance(meta.get("diffs"), list) and bool(meta["diffs"]),
            "replace": isinstance(op, dict)}


def _assistant_message(d: dict, _op: Any) -> dict:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    blocks = msg.get("content") if isinstance(msg.get("content"), list) else ()
    calls = [{"id": b.get("id"), "name": b.get("name"), "args": _preview(b.get("arguments"))}
             for b in blocks if isinstance(b, dict) and b.get("type") == "tool-call"]
    return {**turn_step(d), "calls": calls, "usage": d.get("usage"), "interrupted": d.get("interrupted") is True}


def _small_fields(d: dict, _op: Any) -> dict:
    out = {k: (v[:PREVIEW] if isinstance(v, str) else v) for k, v in d.items() if k != "source"}
    for k in ("turn", "step"):
        if k in out:
            out[k] = key_value(out[k])
    return out


def _request_header(d: dict, _op: Any) -> dict:
    header = d.get("header") if isinstance(d.get("header"), dict) else {}
    tools = header.get("tools")
    names = tuple(t.get("name") for t in tools if isinstance(t, dict)) if isinstance(tools, list) else None
    config = header.get("config") if isinstance(header.get("config"), dict) else {}
    return {"tools": names, "provider": config.get("provider"), "model": config.get("model"), "reason": d.get("reason")}


def _scalars(d: dict, _op: Any) -> dict:
    return {k: v for k, v in d.items() if isinstance(v, (str, int, float, bool))}


# The compact subset of an event the diagnosis needs (never whole payloads).
FACT_EXTRACTORS = {
    "turn/start": _turn_step, "step/start": _turn_step, "step/end": _turn_step, "session/end-seed": _turn_step,
    "turn/end": _turn_end, "tool/call": _tool_call, "tool/result": _tool_result,
    "assistant/message": _assistant_message, "request/header": _request_header, "subagent/descriptor": _scalars,
    **{t: _small_fields for t in ("command/run", "command/done", "approval/asked", "approval/decided", "llm/retry",
                                  "llm/retry-started", "agent-preset/selected", "compaction/start", "compaction/end")},
}


# Types whose data the legacy upgrade looks at (legacy.py).
LEGACY_CANDIDATES = frozenset({"turn/start", "turn/end", "steering/message", "user/message",
                               "assistant/message", "tool/result"})


