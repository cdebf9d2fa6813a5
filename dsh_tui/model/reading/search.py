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
"""

from __future__ import annotations

import bisect
from array import array
from dataclasses import dataclass, field

from .jsonparse import parse_json
from .source import Cancelled
from .vocabulary import PACKED_ROWS

MAX_HITS = 1_000_000
WINDOW = 2 * 1024 * 1024


def needle_key(needle: str) -> bytes:
    """What the scan compares: the needle's UTF-8 bytes, ASCII-lower-cased."""
    return needle.encode("utf-8", "replace").lower()


@dataclass
class HitList:
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


def find_all(log, needle: str, *, cancel=None, max_hits: int = MAX_HITS, window: int = WINDOW) -> HitList:
    """Every event whose record holds ``needle`` (case-insensitive), in log order.

    ``cancel`` (a ``threading.Event``) is checked between windows: raises
    `Cancelled`. At most ``max_hits`` indices are kept (``capped`` is then set).
    """
    n_events = len(log)
    out = HitList(needle, n_events)
    key = needle_key(needle)
    if not key or not n_events:
        return out
    res = log.res
    rec_start, end_of, rec_first_ev = res.rec_start, res.end_of, res.rec_first_ev
    n_records = len(rec_start)
    store = log.store  # read window by window: a zstd log's plaintext is never held whole
    end = min(len(store), end_of(n_records - 1)) if n_records else 0
    hits = out.indices
    append = hits.append
    low_needle = needle.lower()
    overlap = len(key) - 1
    a = res.body_start
    while a < end:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        b = min(end, a + window)
        low = store.slice(a, min(end, b + overlap)).lower()  # a copy: a followed log's buffer may grow
        limit = b - a  # a match must start inside [a, b); the overlap only completes it
        resume = b
        p = low.find(key)
        while 0 <= p < limit:
            pos = a + p
            r = bisect.bisect_right(rec_start, pos) - 1
            if r < 0 or pos + len(key) > end_of(r):  # in the header or a skipped line: no event shows it
                p = low.find(key, p + 1)
                continue
            first = rec_first_ev[r]
            count = (rec_first_ev[r + 1] if r + 1 < n_records else n_events) - first
            if count == 1:
                append(first)
            elif count > 1:
                for k in _members_holding(log, r, low_needle, count):
                    append(first + k)
            if len(hits) >= max_hits:
                del hits[max_hits:]
                out.capped = True
                return out
            r_end = end_of(r)
            resume = max(b, r_end)  # one hit per record: go on after its end
            p = low.find(key, r_end - a)
        a = resume
    return out


def _members_holding(log, r: int, low_needle: str, count: int) -> list[int]:
    """The members of packed record ``r`` whose text holds the needle, else its first."""
    obj, _ = parse_json(log.record_bytes(r))
    row = PACKED_ROWS.get(obj.get("type")) if isinstance(obj, dict) else None
    data = obj.get("data") if row is not None else None
    members = data.get(row[1]) if isinstance(data, dict) else None
    if isinstance(members, list):
        found = [k for k, text in enumerate(members[:count]) if isinstance(text, str) and low_needle in text.lower()]
        if found:
            return found
    return [0]
