"""The detail pane's content for one event: sections of sanitised, capped lines.

Textual-free. Order: findings and pairs first (why this event matters), then
the payload (raw ``arguments`` exactly as emitted plus pretty JSON or a note,
result content, ``error {name, code}``, ``meta``, fs ``meta.diffs`` as
unified diffs, usage), the envelope, and the raw record. Each section is capped
at 64 KiB with a note; the full event can be saved from the UI.
"""

from __future__ import annotations

import difflib
import json
import os
from array import array
from typing import Any

import orjson

from ...safety import clean_bytes, one_line
from ..columns.pairtable import event_places
from ..reading.sessionlog import EventView, SessionLog
from ..reading.deepjson import loads_deep
from ..reading.deepvalue import deeper_than, folded
from .summary import (Section, event_data, logical_type, result_block, short_text, blocks_text, field_text, labelled, shown,
                      time_text)
from ..reading.vocabulary import SURFACE_TYPES

SECTION_CAP = 64 * 1024  # characters shown per detail section
DIFF_INPUT_CAP = 256 * 1024  # oldText/newText larger than this are not diffed


_MAPS: dict[int, tuple[Any, Any, FindingsAt]] = {}


class FindingsAt:
    """Event index -> its findings, in the diagnosis's order, as ``get`` (the dict it stands for): one
    int a finding (its event, then its place) in a sorted array, not a dict entry and a list an event
    (~3 MiB for the 24.6k findings of the benchmark's x11 file, as pairtable.PairsAt for the pairs)."""

    __slots__ = ("findings", "n", "keys")

    def __init__(self, findings: list) -> None:
        self.findings = list(findings)  # (positions into this copy: the diagnosis's list may be changed)
        self.n = n = len(self.findings)
        keys = sorted(f.index * n + k for k, f in enumerate(self.findings) if type(f.index) is int and f.index >= 0)
        try:
            self.keys: Any = array("q", keys)
        except OverflowError:  # (past int64: a list, searched alike)
            self.keys = keys

    def get(self, index: Any, default: Any = None) -> Any:
        places = event_places(self.keys, self.n, index)
        return [self.findings[p] for p in places] if places else default


def event_maps(diag: Any) -> tuple[Any, FindingsAt]:
    """(event index -> [Pair], event index -> [Finding]) for ``diag``, built once per Diagnosis, each
    read by ``get`` (pairtable.PairsAt, FindingsAt).

    Pairs of one event are in log order (an assistant/message asks for its calls in order).
    """
    hit = _MAPS.get(id(diag))
    if hit is not None and hit[0] is diag:
        return hit[1], hit[2]
    pairs = diag.pairs.by_event()  # (an index into the pairs, each made as read: not a list an event)
    findings = FindingsAt(diag.findings)
    _MAPS.clear()  # one log at a time
    _MAPS[id(diag)] = (diag, pairs, findings)
    return pairs, findings


def _line(text: str) -> str:
    """One line of the pane: sanitised, and a line break left in a value (a callId holding ``\\n``
    in a ``callId … name …`` line) shown as ``⏎``, so it cannot draw over the rows below."""
    return one_line(text, None)


def _section(title: str, lines: list[str], kind: str) -> Section:
    return Section(one_line(title, 400), lines, kind)


def _cap(title: str, lines: list[str], kind: str) -> Section:
    out: list[str] = []
    total = 0
    for k, line in enumerate(lines):
        if total + len(line) > SECTION_CAP:
            room = SECTION_CAP - total
            if room > 0:
                out.append(_line(line[:room].expandtabs(4)))
            rest = sum(len(x) + 1 for x in lines[k:]) - max(room, 0)
            out.append(f"… capped at 64 KiB: {rest:,} more chars not shown (press s to save the full event)")
            return _section(title, out, kind)
        out.append(_line(line.expandtabs(4)))
        total += len(line) + 1
    return _section(title, out, kind)


FOLD_LEVELS = 64  # a value nested deeper is shown to this depth, its deeper lists/objects folded


def pretty_json(value: Any) -> str:
    if deeper_than(value, FOLD_LEVELS):  # a record dsh reads may nest 3,000 deep (deepjson.py)
        value = folded(value, FOLD_LEVELS)
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except (TypeError, orjson.JSONEncodeError):  # lone surrogates from a lenient parse
        return json.dumps(value, indent=2, ensure_ascii=False, default=repr)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_arguments(text: str) -> tuple[Any, str | None]:
    """(value, None) when ``text`` is valid JSON the way dsh's JSON.parse sees it, else (None, error)."""
    try:
        return orjson.loads(text), None
    except orjson.JSONDecodeError:
        try:
            return json.loads(text, parse_constant=_reject_constant), None
        except ValueError as exc:
            return None, str(exc)
        except RecursionError:  # valid JSON nested deeper than a recursive parser goes
            try:
                return loads_deep(text), None
            except ValueError as exc:
                return None, str(exc)


def _args_sections(title: str, args: Any) -> list[Section]:
    if not isinstance(args, str):
        return [_cap(f"{title} (not a string: shown as JSON)", pretty_json(args).split("\n"), "json")]
    out = [_cap(f"{title}: raw string exactly as emitted ({len(args):,} chars)", args.split("\n"), "args")]
    value, error = parse_arguments(args)
    if error is None:
        out.append(_cap(f"{title}: pretty JSON", pretty_json(value).split("\n"), "json"))
    else:
        out.append(_section(f"{title}: NOT valid JSON", [one_line(error, 300)], "error"))
    return out


def diff_lines(fd: Any) -> list[str]:
    """One FileDiff {path, oldText|null, newText} as unified-diff lines (headers first)."""
    if not isinstance(fd, dict):
        return ["(not a FileDiff object)", "", pretty_json(fd)]
    path, old, new = field_text(fd, "path"), fd.get("oldText"), fd.get("newText")
    head = [f"--- {'/dev/null' if old is None else 'a/' + path}",
            f"+++ {'/dev/null' if new is None else 'b/' + path}"]
    if (old is not None and not isinstance(old, str)) or (new is not None and not isinstance(new, str)):
        return head + ["(oldText/newText is not a string: raw FileDiff)"] + pretty_json(fd).split("\n")
    old_l = [] if old is None else old.split("\n")
    new_l = [] if new is None else new.split("\n")
    if len(old or "") + len(new or "") > DIFF_INPUT_CAP:
        return head + [f"(texts too large to diff here: {len(old or ''):,} + {len(new or ''):,} chars; "
                       "press s to save the full event)"]
    if old_l == new_l:
        return head + ["(no textual change)"]
    body = list(difflib.unified_diff(old_l, new_l, lineterm="", n=3))[2:]
    return head + body


def _kv_usage(u: Any) -> list[str]:
    if not isinstance(u, dict):
        return [short_text(u)]
    return [f"{k}: {v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{k}: {short_text(v)}"
            for k, v in u.items()]


def _event_lines(ev: EventView, log: SessionLog) -> list[str]:
    t = logical_type(ev)
    out = [f"seq {ev.seq}   index {ev.index}   type {ev.type}"
           + (f"   (legacy shape {ev.legacy}: read as {t})" if ev.legacy else "")]
    if ev.time is not None:
        out.append(f"time {time_text(ev.time, date=True)} ({ev.time} ms)")
    d = event_data(ev)
    if d.get("turn") is not None:
        out.append(f"turn {shown(d['turn'])}" + (f"   step {shown(d['step'])}" if d.get("step") is not None else ""))
    line = ev.line or log.line_of_record(ev.record)
    out.append(f"record {ev.record}   line {line}")
    if ev.packed:
        out.append(f"member {ev.packed[1] + 1} of {ev.packed[2]} in a packed {ev.packed[0]} row (storage-only)")
    surface = ev.event.get("surfaceOp") if isinstance(ev.event, dict) else None
    if surface is not None or t in SURFACE_TYPES:
        out.append(f"surface event (model-visible){' surfaceOp ' + short_text(surface) if surface is not None else ''}")
    else:
        out.append("log-only event (not model-visible)")
    if isinstance(ev.event, dict) and "sourceEventSeqs" in ev.event:
        out.append(f"sourceEventSeqs {short_text(ev.event['sourceEventSeqs'])}")
    if ev.lenient:
        out.append("this record is not strict JSON: read leniently")
    return out


def _type_sections(ev: EventView) -> list[Section]:
    d, t = event_data(ev), logical_type(ev)
    out: list[Section] = []
    if t == "tool/call":
        out.append(_section("call", [_line(f"callId {field_text(d, 'callId')}   name {field_text(d, 'name')}")], "kv"))
        out += _args_sections("arguments", d.get("arguments"))
    elif t == "tool/result":
        block = result_block(d)
        flag = " (isError)" if block.get("isError") is True else ""
        out.append(_cap(f"result content{flag}", blocks_text(block.get("content")).split("\n"), "text"))
        if "error" in d:
            err = d["error"]
            lines = ([f"{k}: {short_text(v)}" for k, v in err.items()] if isinstance(err, dict) else [short_text(err)])
            out.append(_cap("error {name, code}", lines, "error"))
        meta = d.get("meta")
        if meta is not None:
            diffs = meta.get("diffs") if isinstance(meta, dict) else None
            rest = {k: v for k, v in meta.items() if k != "diffs"} if isinstance(meta, dict) else meta
            if not isinstance(meta, dict) or rest:
                out.append(_cap("meta", pretty_json(rest).split("\n"), "json"))
            if isinstance(diffs, list):
                for k, fd in enumerate(diffs, 1):
                    path = field_text(fd, "path")
                    out.append(_cap(f"meta.diffs {k}/{len(diffs)}: {path}", diff_lines(fd), "diff"))
    elif t in ("assistant/message", "user/message"):
        msg = d.get("message") if isinstance(d.get("message"), dict) else d
        content = msg.get("content")
        for b in content if isinstance(content, list) else [{"type": "text", "text": short_text(content)}]:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool-call":
                out += _args_sections(f"tool-call {labelled(b, 'name')} {labelled(b, 'id')} arguments",
                                      b.get("arguments"))
            elif isinstance(b.get("text"), str):
                out.append(_cap(shown(b.get("type") or "text"), b["text"].split("\n"), "text"))
            else:
                out.append(_cap(f"{labelled(b, 'type')} block", pretty_json(b).split("\n"), "json"))
        if d.get("usage") is not None:
            out.append(_cap("usage", _kv_usage(d.get("usage")), "kv"))
    elif t == "assistant/chunk":
        ch = d.get("chunk") if isinstance(d.get("chunk"), dict) else {}
        block = ch.get("block") if isinstance(ch.get("block"), dict) else {}
        if ch.get("type") == "tool-call-delta":
            out.append(_cap("argumentsDelta (a fragment of the arguments string)",
                            short_text(ch.get("argumentsDelta")).split("\n"), "args"))
        elif block.get("type") == "tool-call":
            out += _args_sections(f"tool-call {labelled(block, 'name')} {labelled(block, 'id')} arguments",
                                  block.get("arguments"))
        elif ch.get("type") == "usage":
            out.append(_cap("usage", _kv_usage(ch.get("usage")), "kv"))
        elif isinstance(ch.get("text"), str):
            out.append(_cap(labelled(ch, "type"), ch["text"].split("\n"), "text"))
        out.append(_cap("chunk", pretty_json(ch).split("\n"), "json"))
    else:
        out.append(_cap("data", pretty_json(ev.event.get("data") if isinstance(ev.event, dict) else None)
                        .split("\n"), "json"))
    return out


TORN_SHOWN = 512  # bytes of a torn tail shown as hex


def torn_lines(log: SessionLog) -> list[str]:
    """What the torn tail holds: its size, whether records were lost, the readable start of the lost
    record (sanitised), and its first bytes as hex with file offsets (read now, bounded)."""
    torn = log.raw.torn
    out = [f"{torn.kind}: {torn.unreadable_bytes:,} bytes from byte {torn.offset:,} to the end of the file; "
           + (f"{torn.recovered_records} record(s) recovered; " if torn.recovered_records else "")
           + ("records were lost" if torn.lost else "every record was read (only the frame's checksum is cut)")]
    if torn.partial:
        out.append("readable start of the lost record: " + one_line(clean_bytes(torn.partial), 2000))
    try:
        fd = os.open(log.raw.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            data = os.pread(fd, min(torn.unreadable_bytes, TORN_SHOWN), torn.offset)
        finally:
            os.close(fd)
    except OSError as exc:  # a ZIP member (no file of its own), or the file is gone
        return out + [f"(the bytes cannot be read back: {one_line(str(exc.strerror or exc), 200)})"]
    for k in range(0, len(data), 16):
        row = data[k:k + 16]
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in row)
        out.append(f"{torn.offset + k:>10,}  {row.hex(' '):<47}  {text}")
    if torn.unreadable_bytes > len(data):
        out.append(f"… {torn.unreadable_bytes - len(data):,} more bytes")
    return out


def detail_sections(ev: EventView, log: SessionLog, diag: Any = None) -> list[Section]:
    """Everything the detail pane shows for one event, sanitised and capped per section.

    Order: findings and pair first (why this event matters), then the payload
    (arguments, result, error, meta, diffs, usage), the envelope, the raw record.
    """
    out: list[Section] = []
    if diag is not None:
        pairs, findings = event_maps(diag)
        for f in findings.get(ev.index, ()):
            out.append(_cap(f"finding {f.kind} ({f.severity})", [f.message] + (
                [f"callId {shown(f.call_id)}   name {shown(f.name)}"] if f.call_id else [])
                + ([f"advice: {f.advice}"] if f.advice else []), "finding"))
            if f.kind == "TORN_TAIL" and log.raw.torn is not None:
                out.append(_cap(f"torn bytes at byte {log.raw.torn.offset:,}", torn_lines(log), "raw"))
        for p in pairs.get(ev.index, ()):
            roles = " → ".join(f"{role} seq {seq}" for role, seq in p.seqs.items())
            out.append(_cap(f"{p.kind} pair {shown(p.key)}", [
                f"{shown(p.name)}: {p.status}" + (f" ({p.code})" if p.code and p.code != p.status else "")
                + (" - closed by dsh crash repair" if p.repaired else ""), roles or "-"], "kv"))
    try:
        out += _type_sections(ev)
    except Exception as exc:  # noqa: BLE001 - show the raw record whatever the payload shape
        out.append(_section("payload", [_line(f"cannot show this payload: {type(exc).__name__}: {exc}")], "error"))
    out.append(_section("event", [_line(x) for x in _event_lines(ev, log)], "kv"))
    title = (f"raw record exactly as written ({len(ev.raw):,} bytes"
             + (", the packed row holding this event)" if ev.packed else ")"))
    out.append(_cap(title, [clean_bytes(ev.raw[: SECTION_CAP * 4])], "raw"))  # a record is one line
    return out
