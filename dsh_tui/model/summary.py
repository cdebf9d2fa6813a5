"""What the explorer shows for one event: a one-line row (and, via ``.detail``, its sections).

Textual-free. Every string returned here has passed the sanitiser
(`safety.one_line` for rows, `safety.clean` for detail lines), so a widget can
put it into a Segment as is. Nothing here is O(log size): a row costs one
record parse (cached by the log), a detail a few more.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any

import orjson

from ..safety import one_line
from .session import EventView, SessionLog
from .vocabulary import KNOWN_EVENT_TYPES, SURFACE_TYPES



@dataclass(slots=True)
class RowSummary:
    seq: int
    time_text: str  # "HH:MM:SS.mmm" (UTC) or ""
    turn_step: str  # "2/1", "2" or ""
    type: str
    badge: str  # "surface" | "log"
    text: str


@dataclass(slots=True)
class Section:
    title: str
    lines: list[str]
    kind: str  # kv | text | json | args | diff | error | finding | raw | note


# -- access ----------------------------------------------------------------------


def light_event(log: SessionLog, i: int) -> EventView:
    """The event the list and the detail pane show: ``log.event(i)``.

    Kept as the one access point of the views: ``SessionLog.event`` once
    counted newlines up to the record (O(file)); it is O(log n) now.
    """
    return log.event(i)


def _d(ev: EventView) -> dict:
    data = ev.event.get("data") if isinstance(ev.event, dict) else None
    return data if isinstance(data, dict) else {}


def _logical_type(ev: EventView) -> str:
    t = ev.event.get("type") if isinstance(ev.event, dict) else None
    return t if isinstance(t, str) else ev.type


def time_text(ms: Any, *, date: bool = False) -> str:
    if not isinstance(ms, int) or isinstance(ms, bool) or not 0 <= ms < 2**53:
        return ""
    try:
        t = _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return ""
    text = t.strftime("%H:%M:%S.") + f"{ms % 1000:03d}"
    return t.strftime("%Y-%m-%d ") + text + "Z" if date else text


def _short(value: Any, n: int = 120) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()[: n * 4]
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)[: n * 4]


def blocks_text(blocks: Any) -> str:
    """Text of a content-block list (text and reasoning blocks, images named)."""
    if isinstance(blocks, str):
        return blocks
    if not isinstance(blocks, list):
        return "" if blocks is None else _short(blocks)
    parts = []
    for b in blocks:
        if not isinstance(b, dict):
            continue
        if isinstance(b.get("text"), str):
            parts.append(b["text"])
        elif b.get("type") == "image":
            parts.append(f"[image {b.get('mediaType') or b.get('mimeType') or ''}]")
    return "\n".join(parts)


def _result_block(d: dict) -> dict:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    content = msg.get("content")
    return content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}


def call_id_of(ev: EventView) -> str | None:
    """The callId an event is about (tool/call, tool/result, tool-call chunk, approval)."""
    d, t = _d(ev), _logical_type(ev)
    cid: Any = None
    if t in ("tool/call", "approval/asked"):
        cid = d.get("callId")
    elif t == "tool/result":
        msg = d.get("message") if isinstance(d.get("message"), dict) else {}
        src = msg.get("source") if isinstance(msg.get("source"), dict) else {}
        cid = src.get("callId", _result_block(d).get("toolCallId"))
    elif t == "assistant/chunk":
        ch = d.get("chunk") if isinstance(d.get("chunk"), dict) else {}
        block = ch.get("block") if isinstance(ch.get("block"), dict) else {}
        cid = ch.get("id") or block.get("id")
    return cid if isinstance(cid, str) else None


# -- the one-line row ----------------------------------------------------------------


def _sum_chunk(d: dict) -> str:
    ch = d.get("chunk") if isinstance(d.get("chunk"), dict) else {}
    ct = ch.get("type")
    if ct in ("text-delta", "reasoning-delta"):
        return f"{ct} {_short(ch.get('text'))!s}"
    if ct == "tool-call-delta":
        head = " ".join(str(x) for x in (ch.get("id"), ch.get("name")) if x)
        return f"tool-call-delta {head} {_short(ch.get('argumentsDelta'))}"
    if ct == "block-start":
        return f"block-start #{ch.get('index')} {ch.get('blockType')}"
    if ct == "block-end":
        b = ch.get("block") if isinstance(ch.get("block"), dict) else {}
        if b.get("type") == "tool-call":
            return f"block-end #{ch.get('index')} tool-call {b.get('name')} {b.get('id')} {_short(b.get('arguments'))}"
        return f"block-end #{ch.get('index')} {b.get('type')}: {_short(b.get('text', ''))}"
    if ct == "usage":
        return "usage " + _usage_line(ch.get("usage"))
    if ct == "finish":
        r = ch.get("reason")
        return f"finish {r.get('kind') if isinstance(r, dict) else _short(r)}"
    return f"{ct} {_short({k: v for k, v in ch.items() if k != 'type'})}"


def _usage_line(u: Any) -> str:
    if not isinstance(u, dict):
        return _short(u)
    return " ".join(f"{k.replace('Tokens', '')}={v:,}" if isinstance(v, int) else f"{k}={_short(v)}"
                    for k, v in u.items())


def _sum_tool_result(d: dict) -> str:
    block = _result_block(d)
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    src = msg.get("source") if isinstance(msg.get("source"), dict) else {}
    cid = src.get("callId", block.get("toolCallId"))
    err = d.get("error") if isinstance(d.get("error"), dict) else None
    head = f"{cid}"
    if err:
        head += f" ✗ {err.get('code') or err.get('name')}"
    elif block.get("isError") is True:
        head += " ✗ isError"
    else:
        head += " ✓"
    meta = d.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("diffs"), list) and meta["diffs"]:
        paths = [x.get("path") for x in meta["diffs"] if isinstance(x, dict)]
        head += f" [diff {', '.join(str(p) for p in dict.fromkeys(paths))}]"
    return f"{head}: {blocks_text(block.get('content'))}"


def _sum_turn_end(d: dict) -> str:
    r = d.get("reason")
    if not isinstance(r, dict):
        return f"turn {d.get('turn')} ended ({_short(r)})"
    kind = r.get("kind")
    extra = ""
    if isinstance(r.get("error"), dict):
        extra = f" {r['error'].get('code')}: {r['error'].get('message')}"
    elif isinstance(r.get("reason"), dict):
        extra = f" by {r['reason'].get('kind')}"
    return f"turn {d.get('turn')} {kind}{extra}"


def _sum_message(d: dict) -> str:
    msg = d.get("message") if isinstance(d.get("message"), dict) else d
    content = msg.get("content")
    calls = [b for b in content or () if isinstance(b, dict) and b.get("type") == "tool-call"] \
        if isinstance(content, list) else []
    texts = [b.get("text") for b in content or () if isinstance(b, dict) and b.get("type") == "text"] \
        if isinstance(content, list) else [content]
    out = " ".join(t for t in texts if isinstance(t, str))
    if calls:
        out += " → calls: " + ", ".join(f"{c.get('name')}({c.get('id')})" for c in calls)
    return out


def _sum_generic(t: str, d: dict) -> str:
    if t in ("turn/start",):
        return f"turn {d.get('turn')}"
    if t in ("step/start", "step/end"):
        return f"turn {d.get('turn')} step {d.get('step')}"
    if t == "request/header":
        h = d.get("header") if isinstance(d.get("header"), dict) else {}
        cfg = h.get("config") if isinstance(h.get("config"), dict) else {}
        tools = h.get("tools")
        n = f", {len(tools)} tools" if isinstance(tools, list) else f", tools {_short(tools)}" if tools else ""
        what = " ".join(str(x) for x in (cfg.get("provider"), cfg.get("model")) if x) or "request"
        return f"{what}{n} ({d.get('reason')})"
    if t == "llm/retry":
        f = d.get("failure") if isinstance(d.get("failure"), dict) else {}
        return f"retry {d.get('retry')}/{d.get('maxRetries')} after {f.get('code')}: {f.get('message')}"
    if t == "command/run":
        return f"/{d.get('name')}{d.get('args') or ''} ({d.get('commandId')})"
    if t == "command/done":
        return f"{d.get('kind')}: {d.get('text')} ({d.get('commandId')})"
    if t == "approval/asked":
        return f"{d.get('toolName')} {d.get('callId')}: {d.get('reason')}"
    if t == "approval/decided":
        return f"{d.get('outcome')} ({d.get('id')})"
    if t == "session/title":
        return str(d.get("title"))
    if t == "todo/write" and isinstance(d.get("todos"), list):
        todos = [x for x in d["todos"] if isinstance(x, dict)]
        states: dict[str, int] = {}
        for x in todos:
            states[str(x.get("status"))] = states.get(str(x.get("status")), 0) + 1
        return f"{len(todos)} todos: " + ", ".join(f"{v} {k}" for k, v in states.items())
    if t == "agent/inbox/spliced":
        ins = d.get("inserted") if isinstance(d.get("inserted"), list) else []
        text = " ".join(blocks_text(m.get("content")) for m in ins if isinstance(m, dict))
        removed = f" removed {d['removedCount']}" if "removedCount" in d else ""
        return f"inserted {len(ins)}{removed}{': ' + text if text else ''}"
    if t == "subagent/descriptor":
        return f"{d.get('label')} ({d.get('mode')}, {d.get('provider')})"
    return _short(d, 200)


def row_summary(ev: EventView, max_chars: int = 300) -> RowSummary:
    """One sanitised line for the event list."""
    d, t = _d(ev), _logical_type(ev)
    try:
        if t == "tool/call":
            text = f"{d.get('name')} {d.get('callId')} {_short(d.get('arguments'))}"
        elif t == "tool/result":
            text = _sum_tool_result(d)
        elif t in ("user/message", "assistant/message"):
            text = _sum_message(d)
        elif t == "assistant/chunk":
            text = _sum_chunk(d)
        elif t == "turn/end":
            text = _sum_turn_end(d)
        else:
            text = _sum_generic(t, d)
        if t not in KNOWN_EVENT_TYPES and t != "steering/message":
            text = ("unknown type" + (" (ignorable)" if ev.event.get("ignorable") is True else " (required)")
                    + ": " + text)
    except Exception as exc:  # noqa: BLE001 - a malformed event must not break the list
        text = f"(unreadable event: {type(exc).__name__})"
    turn, step = d.get("turn"), d.get("step")
    ts = "" if turn is None else (f"{turn}/{step}" if step is not None else f"{turn}")
    surface = "surfaceOp" in ev.event if isinstance(ev.event, dict) else False
    return RowSummary(ev.seq, time_text(ev.time), one_line(ts, 12), one_line(ev.type, 64),
                      "surface" if surface or t in SURFACE_TYPES else "log", one_line(text, max_chars))



def detail_sections(ev: EventView, log: SessionLog, diag: Any = None) -> list[Section]:
    """The detail pane's sections for ``ev`` (implemented in ``model.detail``)."""
    from .detail import detail_sections as sections

    return sections(ev, log, diag)
