"""The full header view: every field of the session header, what the session is, and the raw header line.

The explorer's header bar has two rows and cuts `cwd` at 80 columns; this is the whole of it, for the key
that opens it and for a bug report. Fields dsh defines come first in dsh's order, explained where a bare
value misleads (createdAt as a UTC date, delegationDepth never claiming top-level without saying 0);
any other field the header holds follows in the header's own order. Sections as the detail pane's, so the
UI renders them the same way; every line is sanitised.
"""

from __future__ import annotations

from typing import Any

from ...safety import clean_bytes, one_line
from ..reading.sessionlog import SessionLog
from .summary import (Section, decode_text, depth_text, field_text, plural, preset_text, runs_text, short_text,
                      time_text)

KNOWN = ("type", "version", "id", "cwd", "createdAt", "parentSession", "delegationDepth", "agentPreset", "origin",
         "seedLength")
VALUE_CAP = 4096  # characters of one field's value (a cwd is whole; a nested object is cut, with a note)
RAW_CAP = 64 * 1024


def header_sections(log: SessionLog, diag: Any = None) -> list[Section]:
    h = log.header
    raw = h.raw if isinstance(h.raw, dict) else {}
    fields: list[str] = []
    for key in KNOWN:
        fields.append(f"{key}: {_field(h, raw, key)}")
    extra = [k for k in raw if k not in KNOWN]
    for key in extra[:200]:
        fields.append(f"{one_line(str(key), 80)}: {_value(raw[key])}")
    if len(extra) > 200:
        fields.append(f"… {len(extra) - 200:,} more fields (see the raw header line)")
    if h.raw is not None and not isinstance(h.raw, dict):
        fields.append(f"the header line is not a JSON object: {one_line(short_text(h.raw), 200)}")
    out = [Section("Header (every field)", [one_line(x, None) for x in fields], "kv"),
           Section("Session", [one_line(x, None) for x in _session_lines(log, diag)], "kv")]
    if h.rejection is not None:
        out.append(Section("Refused by dsh's load", [one_line(str(h.rejection), 400)], "error"))
    if h.notes:
        out.append(Section("Header notes", [one_line(n, 400) for n in h.notes], "note"))
    out.append(Section("Raw header line", _raw_lines(log), "raw"))
    return out


def _field(h, raw: dict, key: str) -> str:
    if key == "createdAt":
        value = raw.get(key)
        date = time_text(value, date=True)
        return f"{field_text(raw, key)}  ({date})" if date else field_text(raw, key)
    if key == "delegationDepth":
        return depth_text(h)
    if key not in raw:
        return field_text(raw, key)
    return _value(raw[key])


def _value(value: Any) -> str:
    text = short_text(value, VALUE_CAP)
    if len(text) > VALUE_CAP:
        return one_line(text[:VALUE_CAP], None) + f" … ({len(text) - VALUE_CAP:,} more characters)"
    return one_line(text, None)


def _session_lines(log: SessionLog, diag: Any) -> list[str]:
    h = log.header
    lines = [f"file: {log.path}", f"decode: {decode_text(log)}",
             "whole: yes" if getattr(log, "whole", False) else "whole: no (see the integrity findings)"]
    if h.forked:
        lines.append(f"a fork (parentSession {field_text(h.raw, 'parentSession')}, seedLength "
                     f"{field_text(h.raw, 'seedLength')}): a user's copy of another session, not its child")
    elif h.delegated:
        lines.append(f"a subagent child of {field_text(h.raw, 'parentSession')} "
                     f"(delegationDepth {field_text(h.raw, 'delegationDepth')}, origin {field_text(h.raw, 'origin')})")
    else:
        lines.append("a top-level session" if h.delegation_depth == 0 else "top-level or not: the header does not say")
    if diag is not None:
        lines.append(f"agent preset in effect: {preset_text(log, diag)}")
        runs = runs_text(log, diag)
        if runs:
            lines.append(runs)
    lines.append(f"events: {plural(len(log), 'event')}")
    return lines


def _raw_lines(log: SessionLog) -> list[str]:
    end = getattr(log.res, "body_start", 0) or 0
    try:
        data = log.store.slice(0, min(end, RAW_CAP + 1)) if end else b""
    except (OSError, ValueError):
        return ["the header line could not be read back from the file"]
    if not data:
        return ["(no header line)"]
    text = clean_bytes(bytes(data[:RAW_CAP]).rstrip(b"\r\n"))
    lines = [one_line(text, None)]
    if end > RAW_CAP:
        lines.append(f"… capped at 64 KiB: {end - RAW_CAP:,} more bytes not shown")
    return lines


def no_failure_note(log) -> str:
    """What the explorer says when the log has no verdict to jump to: never a plain "no failure" over a
    log dsh would refuse to load (one read past the refusal with L or --lenient)."""
    if not log.accepted:
        return "No failure found, but dsh refuses this log (UNVERIFIED): a resume fails before any repair."
    return "No failure found in this log."
