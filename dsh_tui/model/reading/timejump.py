"""What ``:`` was given: a seq, a time of day or an ISO time (UTC unless it names an offset), or an offset
from the session start (``+5m``, ``+90s``, ``+1h2m``, ``+1.5s``, ``+250ms``); and the event it lands on.

Textual-free. The session start is the first timed event's time (a header's ``createdAt`` is often 0);
for a seeded child, its first own event's after the seed (the caller says where the seed ends).
A time of day is on the session start's date, or a later date of the session when it would fall before
the start (a session over midnight). The landing is the first event at or after the time: dsh stamps each
event as it writes it, so times rise with seq (a seeded child's inherited events come first and are
older still); the search bisects, skipping untimed events, never parsing the whole log.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re

from msgspec import Struct

UTC = _dt.timezone.utc
DAY_MS = 86_400_000
PROBE = 64  # untimed events stepped over to find a time near a bisect's probe
_OFFSET = re.compile(r"\+\s*((?:\d+(?:\.\d+)?\s*(?:ms|h|m|s)\s*)+)", re.IGNORECASE)
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|h|m|s)", re.IGNORECASE)
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?Z?", re.IGNORECASE)
UNIT_MS = {"h": 3_600_000, "m": 60_000, "s": 1000, "ms": 1}
ALLOWED = r"[0-9A-Za-z:+\-. ]*"  # what the prompt takes: digits, ISO times, offsets


class BadTarget(ValueError):
    """Not a seq, a time or an offset: ``str(exc)`` is one line for a notice."""


class Target(Struct, frozen=True):
    kind: str  # "seq" | "time"
    value: int  # a seq, or epoch milliseconds
    text: str  # how a notice names it


def parse_target(text: str, start_ms: int | None, end_ms: int | None = None) -> Target:
    """``text`` as a seq (digits), an offset from ``start_ms`` or a time; raises `BadTarget`."""
    t = text.strip()
    if not t:
        raise BadTarget("nothing to go to")
    if t.isdigit():
        return Target("seq", int(t), t)
    m = _OFFSET.fullmatch(t)
    if m:
        if start_ms is None:
            raise BadTarget("this log has no timed event to count from")
        ms = sum(round(float(n) * UNIT_MS[u.lower()]) for n, u in _PART.findall(m.group(1)))
        return Target("time", start_ms + ms, f"+{_span_text(ms)} from the start")
    m = _CLOCK.fullmatch(t)
    if m:
        if start_ms is None:
            raise BadTarget("this log has no timed event to take the date from")
        h, mi, s = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        frac = (m.group(4) or "").ljust(3, "0")[:3]
        if h > 23 or mi > 59 or s > 59:
            raise BadTarget(f"not a time of day: {t[:40]}")
        clock = ((h * 60 + mi) * 60 + s) * 1000 + int(frac or 0)
        day = start_ms - start_ms % DAY_MS
        at = day + clock
        last_day = (end_ms if end_ms is not None else start_ms) // DAY_MS * DAY_MS
        while at < start_ms and day < last_day:  # before the start: a later day of the session
            day += DAY_MS
            at = day + clock
        return Target("time", at, t)
    try:
        when = _dt.datetime.fromisoformat(t.replace("z", "Z"))
    except ValueError:
        raise BadTarget("not a seq, a time (12:03:04, 2026-05-01T12:03:04Z) or an offset (+5m, +1h2m, +90s)") \
            from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        ms = round(when.timestamp() * 1000)
    except (OverflowError, OSError, ValueError):
        raise BadTarget(f"not a usable time: {t[:40]}") from None
    return Target("time", ms, t)


def _span_text(ms: int) -> str:
    s, rest = divmod(ms, 1000)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    parts = [f"{h}h" if h else "", f"{m}m" if m else "", f"{s}s" if s or not (h or m or rest) else ""]
    return "".join(parts) + (f"{rest}ms" if rest else "")


def time_at(log, i: int, step: int = 1) -> tuple[int, int | None]:
    """The nearest timed event from ``i`` in direction ``step`` (at most `PROBE` events): (index, ms)."""
    n = len(log)
    for k in range(PROBE):
        j = i + k * step
        if not 0 <= j < n:
            break
        t = log.event(j).time
        if t is not None:
            return j, t
    return i, None


def session_span(log, start: int = 0) -> tuple[int | None, int | None]:
    """(first, last) event time in ms, from the events nearest each end; the first from event ``start``
    on (a seeded child's own first event: its seed rows keep the parent's older times)."""
    if not len(log):
        return None, None
    first = time_at(log, min(max(0, start), len(log) - 1), 1)[1]
    return first if first is not None else time_at(log, 0, 1)[1], time_at(log, len(log) - 1, -1)[1]


def first_at_or_after(log, ms: int) -> int | None:
    """The first event whose time is at or after ``ms`` (bisecting; untimed events take a neighbour's
    time); None when every event is before it."""
    n = len(log)

    def key(i: int) -> int:
        t = time_at(log, i, 1)[1]
        if t is None:
            t = time_at(log, i, -1)[1]
        return t if t is not None else -1

    k = bisect.bisect_left(range(n), ms, key=key)
    return k if k < n else None


def landing(log, target: Target) -> tuple[int | None, str | None]:
    """Where a time target lands (an event index) and, when it is outside the session, a notice."""
    first, last = session_span(log)
    if first is None:
        return None, "this log has no timed event"
    if target.value < first:
        return 0, f"{target.text} is before the session's first event ({_clock(first)}): showing the first"
    if last is not None and target.value > last:
        return len(log) - 1, f"{target.text} is after the session's last event ({_clock(last)}): showing the last"
    return first_at_or_after(log, target.value), None


def _clock(ms: int) -> str:
    try:
        return _dt.datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return str(ms)
