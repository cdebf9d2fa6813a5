"""Read many chosen events of a log in one forward pass: each zstd frame decoded once.

`SessionLog.event` reads a record through the frame cache (fine for a screen of rows); reading
tens of thousands of records scattered over a big log that way decoded frames again and again
(~3.5 s of ~4 for the 936k-event log). Here the records are taken in order, a window of text at a
time (the store decodes a window's frames from one read), parsed, and upgraded from legacy shapes
as `SessionLog.event` does. Only the event's ``data`` is given: the diff needs no more.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..reading.jsonparse import parse_json
from ..reading.legacy import upgrade

WINDOW = 4 << 20  # text read at once (a record longer than this is read alone)


def read_data(log, indices: Iterable[int]) -> Iterator[tuple[int, dict]]:
    """(index, data) for each event index in ``indices`` (ascending), data {} where it is not an object."""
    res = log.res
    sid = log.session_id  # (a property that reads the header: once, not per event)
    wanted = sorted(set(indices))
    k = 0
    while k < len(wanted):
        r0 = res.record_of(wanted[k])
        start = res.rec_start[r0]
        group, stop = [], k
        while stop < len(wanted):
            r = res.record_of(wanted[stop])
            if group and res.end_of(r) - start > WINDOW:
                break
            group.append((wanted[stop], r))
            stop += 1
        end = res.end_of(group[-1][1])
        text = log.store.slice(start, end)
        parsed: dict[int, object] = {}
        for i, r in group:
            obj = parsed.get(r)
            if obj is None:
                lo = res.rec_start[r] - start
                obj, _lenient = parse_json(memoryview(text)[lo:res.end_of(r) - start])
                parsed[r] = obj if obj is not None else {}
            yield i, _data(log, obj, i, sid)
        k = stop


def _data(log, obj, i: int, sid) -> dict:
    if not isinstance(obj, dict):
        return {}
    etype, data = obj.get("type"), obj.get("data")
    if isinstance(etype, str):
        _t, new_data, tag = upgrade(etype, data, log.seq_of(i), sid)
        if tag is not None:
            data = new_data
    return data if isinstance(data, dict) else {}
