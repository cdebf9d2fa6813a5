"""What the explorer shows for one event: a one-line row (and, via ``.detail``, its sections).

Textual-free. Every string returned here has passed the sanitiser
(`safety.one_line` for rows, `safety.clean` for detail lines), so a widget can
put it into a Segment as is. Nothing here is O(log size): a row costs one
record parse (cached by the log), a detail a few more.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from msgspec import Struct
import orjson

from ...safety import one_line
from ..reading.sessionlog import EventView, SessionLog
from ..reading.deepvalue import short_repr
from ..reading.vocabulary import KNOWN_EVENT_TYPES, SURFACE_TYPES



class RowSummary(Struct):
    seq: int
    time_text: str  # "HH:MM:SS.mmm" (UTC) or ""
    turn_step: str  # "2/1", "2" or ""
    type: str
    badge: str  # "surface" | "log"
    text: str


class Section(Struct):
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


def event_data(ev: EventView) -> dict:
    data = ev.event.get("data") if isinstance(ev.event, dict) else None
    return data if isinstance(data, dict) else {}


def logical_type(ev: EventView) -> str:
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


def short_text(value: Any, n: int = 120) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()[: n * 4]
    except (TypeError, orjson.JSONEncodeError):  # past orjson's 254 levels too: repr would recurse
        return short_repr(value, n * 4)[: n * 4]


ABSENT = "absent"


def shown(value: Any, n: int = 120) -> str:
    """A value for the screen: "absent" for a field the log left out (None), a string as is,
    anything else in its JSON spelling (``true``, never Python's ``True``)."""
    return ABSENT if value is None else short_text(value, n)


def field_text(obj: Any, key: str, n: int = 120) -> str:
    """``obj[key]`` for the screen: "absent" when the key is missing (or ``obj`` is no object),
    "null" when it is JSON null, else as ``shown``."""
    if not isinstance(obj, dict) or key not in obj:
        return ABSENT
    return short_text(obj[key], n)  # None is "null"


def labelled(obj: Any, key: str, n: int = 120) -> str:
    """``field`` where nothing labels the value: a missing or null one names its key ("callId absent")."""
    if isinstance(obj, dict) and obj.get(key) is not None:
        return short_text(obj[key], n)
    return f"{key} {field_text(obj, key, n)}"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def torn_text(torn) -> str:
    """The torn tail in words, as its JSON (``records_lost``) has it: one wording for the text, the
    snippet, the markdown, the checklist and the explorer."""
    where = f"torn tail at byte {torn.offset:,} ({torn.unreadable_bytes:,} bytes unreadable)"
    if torn.lost:
        return f"{where}: the last write batch was lost"
    return f"{where}: only the last frame's checksum is cut, every record was read (its bytes are unverified)"


def decode_text(log) -> str:
    """``zstd, 1 frame, 23 records, 26 events``; a JSONL log has no frames to count."""
    raw = log.raw
    frames = f", {plural(raw.frames, 'frame')}" if raw.frames is not None else ""
    return f"{raw.encoding}{frames}, {plural(log.records, 'record')}, {plural(len(log), 'event')}"


def preset_text(log, diag) -> str:
    """The preset in effect (the last agent-preset/selected, else the header's); "absent" when neither says."""
    preset, header = diag.effective_preset, log.header.get("agentPreset")
    if preset == header:
        return field_text(log.header.raw, "agentPreset")
    return f"{shown(preset)} (header: {field_text(log.header.raw, 'agentPreset')})"


def depth_text(h) -> str:
    """delegationDepth; "(top-level)" only when the header says 0, never for an absent or bad depth."""
    if h.delegation_depth == 0:
        return "0 (top-level)"
    return field_text(h.raw, "delegationDepth")


def runs_text(log, diag) -> str:
    """How many times dsh resumed this session ("resumed at seq 36 after a crash dsh repaired"), "" for
    none. A fork's own seed boundary (its first session/end-seed, at seedLength) is not a resume."""
    seed = log.header.seed_length
    resumes = [s for s in diag.runs.get("end_seed_seqs", []) if s != seed]
    if not resumes:
        return ""
    repaired = any(f.repaired and f.run == "earlier" for f in diag.findings)
    times = f" ({len(resumes)} times, last at seq {resumes[-1]:,})" if len(resumes) > 1 else f" at seq {resumes[0]:,}"
    return f"resumed{times}" + (" after a crash dsh repaired" if repaired else "")


def turn_step(turn: Any, step: Any) -> str:
    """``2/1``, ``2`` (no step) or "" (no turn)."""
    if turn is None:
        return ""
    return f"{shown(turn)}/{shown(step)}" if step is not None else shown(turn)


def blocks_text(blocks: Any) -> str:
    """Text of a content-block list (text and reasoning blocks, images named)."""
    if isinstance(blocks, str):
        return blocks
    if not isinstance(blocks, list):
        return "" if blocks is None else short_text(blocks)
    parts = []
    for b in blocks:
        if not isinstance(b, dict):
            continue
        if isinstance(b.get("text"), str):
            parts.append(b["text"])
        elif b.get("type") == "image":
            parts.append(f"[image {b.get('mediaType') or b.get('mimeType') or ''}]")
    return "\n".join(parts)


def result_block(d: dict) -> dict:
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    content = msg.get("content")
    return content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}


def call_id_of(ev: EventView) -> str | None:
    """The callId an event is about (tool/call, tool/result, tool-call chunk, approval)."""
    d, t = event_data(ev), logical_type(ev)
    cid: Any = None
    if t in ("tool/call", "approval/asked"):
        cid = d.get("callId")
    elif t == "tool/result":
        msg = d.get("message") if isinstance(d.get("message"), dict) else {}
        src = msg.get("source") if isinstance(msg.get("source"), dict) else {}
        cid = src.get("callId", result_block(d).get("toolCallId"))
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
        return f"{ct} {short_text(ch.get('text'))!s}"
    if ct == "tool-call-delta":
        head = " ".join(shown(x) for x in (ch.get("id"), ch.get("name")) if x)
        return f"tool-call-delta {head} {short_text(ch.get('argumentsDelta'))}"
    index = f"#{shown(ch['index'])}" if ch.get("index") is not None else labelled(ch, "index")
    if ct == "block-start":
        return f"block-start {index} {labelled(ch, 'blockType')}"
    if ct == "block-end":
        b = ch.get("block") if isinstance(ch.get("block"), dict) else {}
        if b.get("type") == "tool-call":
            return (f"block-end {index} tool-call {labelled(b, 'name')} {labelled(b, 'id')} "
                    f"{short_text(b.get('arguments'))}")
        return f"block-end {index} {labelled(b, 'type')}: {short_text(b.get('text', ''))}"
    if ct == "usage":
        return "usage " + _usage_line(ch.get("usage"))
    if ct == "finish":
        r = ch.get("reason")
        return f"finish {labelled(r, 'kind') if isinstance(r, dict) else labelled(ch, 'reason')}"
    return f"{labelled(ch, 'type')} {short_text({k: v for k, v in ch.items() if k != 'type'})}"


def _usage_line(u: Any) -> str:
    if not isinstance(u, dict):
        return short_text(u)
    return " ".join(f"{k.replace('Tokens', '')}={v:,}" if isinstance(v, int) else f"{k}={short_text(v)}"
                    for k, v in u.items())


def _sum_tool_result(d: dict) -> str:
    block = result_block(d)
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    src = msg.get("source") if isinstance(msg.get("source"), dict) else {}
    cid = src.get("callId", block.get("toolCallId"))
    err = d.get("error") if isinstance(d.get("error"), dict) else None
    head = shown(cid) if cid is not None else "callId absent"
    if err:
        head += f" ✗ {shown(err.get('code') or err.get('name') or 'error')}"
    elif block.get("isError") is True:
        head += " ✗ isError"
    else:
        head += " ✓"
    meta = d.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("diffs"), list) and meta["diffs"]:
        paths = [field_text(x, "path") for x in meta["diffs"] if isinstance(x, dict)]
        head += f" [diff {', '.join(dict.fromkeys(paths))}]"
    return f"{head}: {blocks_text(block.get('content'))}"


def _sum_turn_end(d: dict) -> str:
    r = d.get("reason")
    if not isinstance(r, dict):
        return f"turn {field_text(d, 'turn')} ended ({labelled(d, 'reason')})"
    extra = ""
    if isinstance(r.get("error"), dict):
        extra = f" {labelled(r['error'], 'code')}: {field_text(r['error'], 'message')}"
    elif isinstance(r.get("reason"), dict):
        extra = f" by {labelled(r['reason'], 'kind')}"
    return f"turn {field_text(d, 'turn')} {labelled(r, 'kind')}{extra}"


def _sum_message(d: dict) -> str:
    msg = d.get("message") if isinstance(d.get("message"), dict) else d
    content = msg.get("content")
    calls = [b for b in content or () if isinstance(b, dict) and b.get("type") == "tool-call"] \
        if isinstance(content, list) else []
    texts = [b.get("text") for b in content or () if isinstance(b, dict) and b.get("type") == "text"] \
        if isinstance(content, list) else [content]
    out = " ".join(t for t in texts if isinstance(t, str))
    if calls:
        out += " → calls: " + ", ".join(f"{labelled(c, 'name')}({labelled(c, 'id')})" for c in calls)
    return out


def _sum_generic(t: str, d: dict) -> str:
    if t in ("turn/start",):
        return f"turn {field_text(d, 'turn')}"
    if t in ("step/start", "step/end"):
        return f"turn {field_text(d, 'turn')} step {field_text(d, 'step')}"
    if t == "request/header":
        h = d.get("header") if isinstance(d.get("header"), dict) else {}
        cfg = h.get("config") if isinstance(h.get("config"), dict) else {}
        tools = h.get("tools")
        n = f", {len(tools)} tools" if isinstance(tools, list) else f", tools {short_text(tools)}" if tools else ""
        what = " ".join(str(x) for x in (cfg.get("provider"), cfg.get("model")) if x) or "request"
        return f"{what}{n} ({labelled(d, 'reason')})"
    if t == "llm/retry":
        f = d.get("failure") if isinstance(d.get("failure"), dict) else {}
        return (f"retry {field_text(d, 'retry')}/{field_text(d, 'maxRetries')} after {labelled(f, 'code')}: "
                f"{field_text(f, 'message')}")
    if t == "llm/retry-started":  # the retried request is in flight
        return (f"retry {field_text(d, 'retry')} started: turn {field_text(d, 'turn')} step {field_text(d, 'step')} "
                f"({labelled(d, 'retryId')})")
    if t == "command/run":
        return f"/{field_text(d, 'name')}{short_text(d.get('args') or '')} ({labelled(d, 'commandId')})"
    if t == "command/done":
        return f"{labelled(d, 'kind')}: {field_text(d, 'text')} ({labelled(d, 'commandId')})"
    if t == "approval/asked":
        return f"{labelled(d, 'toolName')} {labelled(d, 'callId')}: {field_text(d, 'reason')}"
    if t == "approval/decided":
        return f"{labelled(d, 'outcome')} ({labelled(d, 'id')})"
    if t == "session/title":
        return field_text(d, "title")
    if t == "todo/write" and isinstance(d.get("todos"), list):
        todos = [x for x in d["todos"] if isinstance(x, dict)]
        states: dict[str, int] = {}
        for x in todos:
            states[field_text(x, "status")] = states.get(field_text(x, "status"), 0) + 1
        return f"{len(todos)} todos: " + ", ".join(f"{v} {k}" for k, v in states.items())
    if t == "agent/inbox/spliced":
        ins = d.get("inserted") if isinstance(d.get("inserted"), list) else []
        text = " ".join(blocks_text(m.get("content")) for m in ins if isinstance(m, dict))
        removed = f" removed {d['removedCount']}" if "removedCount" in d else ""
        return f"inserted {len(ins)}{removed}{': ' + text if text else ''}"
    if t == "subagent/descriptor":
        return f"{field_text(d, 'label')} ({labelled(d, 'mode')}, {labelled(d, 'provider')})"
    return short_text(d, 200)


def row_summary(ev: EventView, max_chars: int = 300) -> RowSummary:
    """One sanitised line for the event list."""
    d, t = event_data(ev), logical_type(ev)
    try:
        if t == "tool/call":
            text = f"{labelled(d, 'name')} {labelled(d, 'callId')} {short_text(d.get('arguments'))}"
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
    ts = turn_step(d.get("turn"), d.get("step"))
    surface = "surfaceOp" in ev.event if isinstance(ev.event, dict) else False
    return RowSummary(ev.seq, time_text(ev.time), one_line(ts, 12), one_line(ev.type, 64),
                      "surface" if surface or t in SURFACE_TYPES else "log", one_line(text, max_chars))



END_SEED = "session/end-seed"


def seed_boundary(log: SessionLog) -> int | None:
    """Index of the last ``session/end-seed`` event, or None."""
    res = log.res
    try:
        tid = res.types.index(END_SEED)
    except ValueError:
        return None
    if tid >= 255:
        return None
    r = res.rec_type.tobytes().rfind(bytes([tid]))  # (a record of one event: not a chunk)
    return res.first_event(r) if r >= 0 else None
