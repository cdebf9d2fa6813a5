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
from array import array
from dataclasses import dataclass, field

from ..reading.source import Cancelled

MAX_ROWS = 2_000_000
CHECK = 4096  # events between two cancel checks


@dataclass
class Member:
    """One session of the timeline: its log, its tag ("main", "↳1 3f2a"), depth, and what opens it."""

    log: object
    tag: str
    depth: int
    target: object = None  # what opens it (a path); None for the session shown
    first: int = 0  # the first event in the timeline (after a child's seed)


@dataclass
class Timeline:
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


def event_times(log, first: int = 0, cancel=None) -> list[int]:
    """The time of each event from ``first`` on (an untimed one takes the one before; -1 before any)."""
    out: list[int] = []
    last = -1
    for i in range(first, len(log)):
        if cancel is not None and not i % CHECK and cancel.is_set():
            raise Cancelled()
        t = log.event(i).time
        if t is not None:
            last = t
        out.append(last)
    return out


def _stream(times: list[int], m: int, first: int):
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
