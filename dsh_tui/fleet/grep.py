"""`dsh-tui grep PATTERN ROOT...`: the calls' arguments, the results and the messages of every session
under the roots that match a regular expression, each as an ``ID@SEQ`` permalink. Model code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .rows import SessionRef

# What of each event is searched: the part a person means by "the arguments", "the result", "the message".
SEARCHED = {"tool/call": ("arguments",), "tool/result": ("message", "error"), "assistant/message": ("message",),
            "user/message": None}  # None: the whole data (a user message is its data)
MAX_TEXT = 1 << 20  # characters of one event searched: a huge result is searched in its first MiB
MAX_STRINGS = 100_000  # strings gathered from one event (a crafted event of a million tiny strings)


@dataclass(frozen=True, slots=True)
class Hit:
    session_id: str | None
    seq: int
    type: str
    tool: str | None
    call_id: str | None
    text: str  # the matching line, cut around the match
    path: str

    @property
    def permalink(self) -> str:
        return f"{self.session_id}@{self.seq}"


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value (keys left out), depth first, without recursion (a crafted log
    nests deeper than Python's stack)."""
    stack = [value]
    n = 0
    while stack and n < MAX_STRINGS:
        v = stack.pop()
        if isinstance(v, str):
            n += 1
            yield v
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        elif isinstance(v, list):
            stack.extend(reversed(v))


def _text(kind: str, data: dict) -> str:
    keys = SEARCHED[kind]
    parts = [data] if keys is None else [data.get(k) for k in keys]
    out, size = [], 0
    for part in parts:
        for s in strings(part):
            out.append(s)
            size += len(s)
            if size >= MAX_TEXT:
                return "\n".join(out)[:MAX_TEXT]
    return "\n".join(out)


def _around(text: str, m: re.Match, width: int = 160) -> str:
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    end = len(text) if end < 0 else end
    lo = max(start, m.start() - width // 3)
    hi = min(end, max(m.end(), lo + width))
    return ("…" if lo > start else "") + text[lo:hi] + ("…" if hi < end else "")


def grep_session(ref: SessionRef, pattern: str, flags: int = 0, *, max_hits: int = 100,
                 max_plain: int | None = None) -> tuple[list[Hit], str | None]:
    """(hits, why the log could not be read)."""
    from ..model.reading.source import LogUnreadable
    from ..model.opening.target import OpenOptions, Target, load_log
    from ..model.presenting.summary import event_data, logical_type
    rx = re.compile(pattern, flags)
    try:
        log = load_log(Target(Path(ref.path), ref.member), OpenOptions(max_plain=max_plain, lenient=True))
    except LogUnreadable as exc:
        return [], exc.message
    except (MemoryError, RecursionError, OSError) as exc:
        return [], f"{ref.key}: {type(exc).__name__}"
    sid = log.session_id if isinstance(log.session_id, str) else None
    hits: list[Hit] = []
    for i in range(len(log)):
        if log.type_of(i) not in SEARCHED:
            continue
        ev = log.event(i)
        kind = logical_type(ev)
        if kind not in SEARCHED:
            continue
        data = event_data(ev)
        text = _text(kind, data)
        m = rx.search(text)
        if m is None:
            continue
        call_id = data.get("callId")
        if call_id is None and kind == "tool/result":
            source = (data.get("message") or {}).get("source") if isinstance(data.get("message"), dict) else None
            call_id = source.get("callId") if isinstance(source, dict) else None
        hits.append(Hit(sid, log.seq_of(i), kind, data.get("name") if isinstance(data.get("name"), str) else None,
                        call_id if isinstance(call_id, str) else None, _around(text, m), ref.key))
        if len(hits) >= max_hits:
            break
    return hits, None
