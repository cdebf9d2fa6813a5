"""One timeline of a session and its subagent children: every event of each, interleaved by time.

Textual-free. Each session keeps its own order (its events by index); the sessions are merged by event
time, ties in family order (the session shown first, then its children as the lineage lists them). An
untimed event keeps the time of the event before it in its session, so it stays next to it. A child's
seed (the parent's history it was started with, up to its end-seed: `summary.seed_boundary`) is left
out: those events are the parent's own, already in the timeline.

Bounded: the children are the lineage's (at most `lineage.MAX_CHILDREN`), and at most `MAX_ROWS`
events are merged; past that the timeline is cut (``truncated``) at the latest time all sessions reach.
The rows are two compact arrays (session number, event index): 5 bytes per row.
"""

from __future__ import annotations

import heapq
import re
from array import array

from msgspec import Struct, field

from ..reading.source import Cancelled
from ..reading.vocabulary import PACKED_ROWS

MAX_ROWS = 2_000_000
CHECK = 4096  # records between two cancel checks
# The start of a record as dsh's writer orders it: {"type":"...","seq":N,"time":T, (or }).
_WRITER_TIME = re.compile(rb'\{"type":"(?:[^"\\]|\\.)*","seq":\d{1,16},"time":(\d{1,16})[,}]')


class Member(Struct):
    """One session of the timeline: its log, its tag ("main", "↳1 3f2a"), depth, and what opens it."""

    log: object
    tag: str
    depth: int
    target: object = None  # what opens it (a path); None for the session shown
    first: int = 0  # the first event in the timeline (after a child's seed)


class Timeline(Struct):
    members: list[Member]
    session: array = field(default_factory=lambda: array("B"))  # row -> member number
    index: array = field(default_factory=lambda: array("I"))  # row -> event index in that member's log
    truncated: bool = False

    def __len__(self) -> int:
        return len(self.index)

    def row(self, r: int) -> tuple[Member, int]:
        return self.members[self.session[r]], self.index[r]

    def row_of(self, member: int, index: int) -> int | None:
        """The row of event ``index`` of member ``member`` (the nearest later one of that member), or None."""
        for r in range(len(self.index)):
            if self.session[r] == member and self.index[r] >= index:
                return r
        return None


def session_tag(session_id: str | None, depth: int) -> str:
    """How a row names its session: "main" for the one shown, "↳<depth> <id's last 4>" for a child (the
    end of an id: siblings written in a row share their first characters more often than their last)."""
    if depth == 0:
        return "main"
    sid = "".join(c for c in str(session_id or "?") if c.isalnum())[-4:] or "?"
    return f"↳{min(depth, 9)} {sid}"


def event_times(log, first: int = 0, cancel=None) -> array:
    """The time of each event from ``first`` on (an untimed one takes the one before; -1 before any):
    8 bytes an event.

    A record in dsh's key order (type, seq, time) gives its time to an anchored byte match, without a
    parse; a packed record is parsed once for all its members; any other record is read as the views
    read it (``log.event``).
    """
    res = log.res
    n = len(log)
    out = array("q")
    if not 0 <= first < n:
        return out
    r = res.record_of(first)
    skip = first - res.first_event(r)
    last = -1
    for lo, hi in res.spans(r):
        if cancel is not None and not r % CHECK and cancel.is_set():
            raise Cancelled()
        if hi - lo == 1:
            m = _WRITER_TIME.match(log.record_bytes(r))
            times = [int(m.group(1)) if m is not None else log.event(lo).time]
        else:
            times = _packed_times(log, r, lo, hi)
        for t in times:
            if type(t) is int and 0 <= t < 2**53:  # a hostile time out of a JS number's range: untimed
                last = t
            out.append(last)
        r += 1
    return out[skip:]


def _packed_times(log, r: int, lo: int, hi: int) -> list:
    """The times of the members of packed record ``r`` (time0 plus the dt before each, as
    `sessionlog._expand_member` reads them), from one parse; else each event's own."""
    obj, _ = log.parse_record(r)
    data = obj.get("data") if isinstance(obj, dict) and obj.get("type") in PACKED_ROWS else None
    time0 = obj.get("time0") if data is not None else None
    if type(time0) is not int or not isinstance(data, dict):
        return [log.event(i).time for i in range(lo, hi)]
    dt = data.get("dt") if isinstance(data.get("dt"), list) else []
    out, t = [], time0
    for k in range(hi - lo):
        out.append(t)
        x = dt[k] if k < len(dt) else 0
        if type(x) is int:
            t += x
    return out


def _stream(times: array, m: int, first: int):
    """(time, member, index) of each event of one member, in its own order."""
    return ((t, m, first + k) for k, t in enumerate(times))


def merge(members: list[Member], *, cancel=None, max_rows: int = MAX_ROWS) -> Timeline:
    """The members' events interleaved by time (each member's own order kept), at most ``max_rows``."""
    out = Timeline(members)
    streams = []
    for m, member in enumerate(members):
        times = event_times(member.log, member.first, cancel)
        streams.append(_stream(times, m, member.first))
    session, index = out.session, out.index
    for n, (_, m, i) in enumerate(heapq.merge(*streams)):
        if n >= max_rows:
            out.truncated = True
            break
        if cancel is not None and not n % CHECK and cancel.is_set():
            raise Cancelled()
        session.append(m)
        index.append(i)
    return out
