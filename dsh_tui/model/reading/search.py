"""Every event whose record holds a needle: built once per needle, then n/N bisect it.

Textual-free. Case-insensitive (ASCII, as ``re.IGNORECASE`` on bytes) over the
raw text of the whole log, so types, tool names, callIds and message text are
all found. The scan reads the plaintext in fixed windows (``store.slice``: a
zstd log decodes each frame once and never holds the whole text), lower-cases
each and uses
``bytes.find`` (about 6x faster than an ignore-case regex), and checks
``cancel`` between windows, so a UI thread sharing the GIL waits at most one
window (a few ms) and a newer needle stops an older scan promptly.

A packed row (several chunk deltas in one record) counts each member whose
text holds the needle; a hit elsewhere in the row (its keys, ids) counts the
row's first member, as `SessionLog.search` does.

A regex (`query.Query`) runs on the raw bytes of each window, which ends at a
record's end (a match cannot span records, so no overlap is needed); each
call is bounded in time (query.py) and raises `PatternTooSlow` past it.
"""

from __future__ import annotations

import bisect
from array import array

from msgspec import Struct, field

from .jsonparse import parse_json
from .query import Query, find_in, make_query
from .source import Cancelled
from .vocabulary import PACKED_ROWS

MAX_HITS = 1_000_000
WINDOW = 2 * 1024 * 1024


def needle_key(needle: str) -> bytes:
    """What the scan compares: the needle's UTF-8 bytes, ASCII-lower-cased."""
    return needle.encode("utf-8", "replace").lower()


class HitList(Struct):
    needle: str
    events: int  # len(log) when built: a log that grew (live follow) needs a new list
    indices: array = field(default_factory=lambda: array("I"))  # sorted, distinct event indices
    capped: bool = False  # stopped at ``max_hits``: hits past the last one are not listed

    def __len__(self) -> int:
        return len(self.indices)

    def next_after(self, index: int) -> tuple[int | None, bool]:
        """The first hit after ``index`` (wrapping to the first hit): (hit, wrapped)."""
        idx = self.indices
        if not idx:
            return None, False
        k = bisect.bisect_right(idx, index)
        return (idx[k], False) if k < len(idx) else (idx[0], True)

    def previous_before(self, index: int) -> tuple[int | None, bool]:
        """The last hit before ``index`` (wrapping to the last hit): (hit, wrapped)."""
        idx = self.indices
        if not idx:
            return None, False
        k = bisect.bisect_left(idx, index) - 1
        return (idx[k], False) if k >= 0 else (idx[-1], True)

    def step(self, index: int, direction: int) -> tuple[int | None, bool]:
        return self.next_after(index) if direction >= 0 else self.previous_before(index)


def find_all(log, needle: str | Query, *, cancel=None, max_hits: int = MAX_HITS, window: int = WINDOW,
             start: int | None = None, progress=None) -> HitList:
    """Every event whose record holds ``needle`` (case-insensitive), in log order.

    The text is read a window at a time (a zstd log decodes each frame once and never holds the
    whole text): from event ``start`` (the cursor) to the end, then from the first event up to it,
    so the hits near the cursor are found first. ``progress(done, total)`` (text bytes) runs after
    each window; ``cancel`` (a ``threading.Event``) is checked between windows: raises
    `Cancelled`. At most ``max_hits`` indices are kept (``capped`` is then set).
    """
    query = needle if isinstance(needle, Query) else make_query(needle)
    needle = query.text
    n_events = len(log)
    out = HitList(needle, n_events)
    key = needle_key(needle) if not query.regex else query.key
    if not key or not n_events:
        return out
    res = log.res
    n_records = len(res.rec_start)
    end = min(len(log.store), res.end_of(n_records - 1)) if n_records else 0
    at = res.body_start
    if start is not None and 0 < start < n_events:
        at = max(at, res.rec_start[res.record_of(start)])
    total = max(1, end - res.body_start)
    done = [0]

    def report(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(min(done[0], total), total)
    first = _scan(log, key, query, at, end, out, cancel, max_hits, window, report)
    if at > res.body_start and not out.capped:
        wrapped = HitList(needle, n_events)
        _scan(log, key, query, res.body_start, at, wrapped, cancel, max_hits - len(first), window, report)
        out.indices = wrapped.indices + first
        out.capped = wrapped.capped
    return out


def _scan(log, key: bytes, query: Query, a: int, end: int, out: HitList, cancel, max_hits: int, window: int,
          report) -> array:
    """Append to ``out.indices`` the events whose record holds ``key`` (or matches the regex) and starts
    in [a, end)."""
    res = log.res
    record_at, end_of, record_events = res.record_at, res.end_of, res.record_events
    n_records = len(res.rec_start)
    store = log.store
    text_end = min(len(store), end_of(n_records - 1)) if n_records else 0
    hits = out.indices
    append = hits.append
    overlap = len(key) - 1
    is_regex = query.regex
    while a < end:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        b = min(end, a + window)
        if is_regex:  # the window ends with a record (bisect: b may fall inside a long one)
            r_b = record_at(b - 1)
            cut = min(text_end, max(b, end_of(r_b) if r_b >= 0 else b))
            low = store.slice(a, cut)
            limit = b - a
            find = lambda at: find_in(query, low, at, len(low))  # noqa: E731
        else:
            low = store.slice(a, min(text_end, b + overlap)).lower()  # a copy: a followed log's buffer may grow
            limit = b - a  # a match must start inside [a, b); the overlap only completes it
            find = lambda at: low.find(key, at)  # noqa: E731
        resume = b
        p = find(0)
        while 0 <= p < limit:
            pos = a + p
            r = record_at(pos)
            if r < 0 or (pos + len(key) > end_of(r) if not is_regex else pos >= end_of(r)):
                p = find(p + 1)  # in the header or a skipped line: no event shows it
                continue
            first, count = record_events(r)
            if count == 1:
                append(first)
            elif count > 1:
                for k in _members_holding(log, r, query, count):
                    append(first + k)
            if len(hits) >= max_hits:
                del hits[max_hits:]
                out.capped = True
                return hits
            r_end = end_of(r)
            resume = max(b, r_end)  # one hit per record: go on after its end
            p = find(r_end - a)
        report(resume - a)
        a = resume
    return hits


def first_offset(store, key: bytes, lo: int, hi: int, window: int = WINDOW) -> int | None:
    """The first offset in [lo, hi) where ``key`` (lower-cased) starts, case-insensitively (ASCII)."""
    overlap = len(key) - 1
    a = lo
    while a < hi:
        b = min(hi, a + window)
        p = store.slice(a, min(hi, b + overlap)).lower().find(key)
        if 0 <= p < b - a:
            return a + p
        a = b
    return None


def last_offset(store, key: bytes, lo: int, hi: int, window: int = WINDOW) -> int | None:
    """The last offset in [lo, hi) where ``key`` (lower-cased) starts and ends before ``hi``."""
    overlap = len(key) - 1
    b = hi
    while b > lo:
        a = max(lo, b - window)
        p = store.slice(a, min(hi, b + overlap)).lower().rfind(key)
        if p >= 0:
            return a + p
        b = a
    return None


def _members_holding(log, r: int, query: Query, count: int) -> list[int]:
    """The members of packed record ``r`` whose text holds the needle, else its first."""
    obj, _ = parse_json(log.record_bytes(r))
    row = PACKED_ROWS.get(obj.get("type")) if isinstance(obj, dict) else None
    data = obj.get("data") if row is not None else None
    members = data.get(row[1]) if isinstance(data, dict) else None
    if isinstance(members, list):
        found = [k for k, text in enumerate(members[:count]) if isinstance(text, str) and query.holds(text)]
        if found:
            return found
    return [0]
