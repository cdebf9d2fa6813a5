"""Event indices by type, from the scan's one-byte type column (no event is parsed); the context
records, and which call a tool result answers, from their columns."""

from __future__ import annotations

import itertools
from array import array
from bisect import bisect_left
from itertools import compress, islice
from operator import lt
from typing import Any, Iterable, Iterator

from ..reading.contextcolumns import Columns
from ..reading.contextfacts import CONTEXT_TYPES, record
from ..reading.jsonparse import parse_json
from ..reading.legacy import upgrade
from ..reading.vocabulary import PACKED_ROWS

SURFACE = ("user/message", "assistant/message", "tool/result")


def records(log, kinds: tuple[str, ...]) -> Iterator[tuple]:
    """The context records (reading/contextfacts.py) of the events of ``kinds``, in log order."""
    return context_columns(log).records(kinds)


def context_columns(log) -> Columns:
    """The log's context records: the ones the scan kept, or, for an index read from the cache without
    them, made now from the events (once: kept on the log as the scan would have)."""
    cols = getattr(log.res, "context", None)
    if cols is None:
        cols, memo, seq_of = Columns(), {}, log.seq_of
        for i, ev in events(log, tuple(CONTEXT_TYPES)):
            cols.append(record(ev.get("type"), i, seq_of(i), ev.get("data"), ev, memo))
        log.res.context = cols
    return cols


def call_positions(index, seq, r_index, call_seq, wanted: Iterable[int]) -> Iterator[tuple[int, int]]:
    """(k, the position of result k's call) for each result position k of ``wanted`` (ascending): the
    latest call before the result (by event ``index``) whose seq is its ``call_seq``, as a walk of the
    records in log order keeping the last call of each seq finds it; -1 for none. ``index`` and ``seq``:
    the calls' columns, ``r_index`` and ``call_seq`` the results'. Calls' seqs ascend in every log
    without a seq gap: their column is searched then, no dict of every call made."""
    n = len(seq)
    if all(map(lt, seq, islice(seq, 1, None))):
        for k in wanted:
            s = call_seq[k]
            pos = bisect_left(seq, s) if type(s) is int else n
            yield k, pos if pos < n and seq[pos] == s and index[pos] < r_index[k] else -1
        return
    wanted = list(wanted)
    named = {call_seq[k] for k in wanted}
    calls: dict[object, list[tuple[int, int]]] = {}  # a named seq -> (index, position) of its calls, in order
    for pos in compress(range(n), map(named.__contains__, seq)):
        calls.setdefault(seq[pos], []).append((index[pos], pos))
    for k in wanted:
        seen = calls.get(call_seq[k], ())
        at = bisect_left(seen, (r_index[k], -1))  # the calls of that seq before the result
        yield k, seen[at - 1][1] if at else -1


def indices_of(log, names: Iterable[str]) -> array:
    """The indices of the events whose type is one of ``names``, in log order, found by the scan's
    type column (a byte a record: C-speed passes over it, a step a hit)."""
    res = log.res
    names = set(names)
    got = res.events_of({tid for tid, name in enumerate(res.types) if name in names and tid < 255})
    if len(res.types) < 255:
        return got
    extra = [i for i in res.events_of((255,)) if log.type_of(i) in names]  # past 254 types: read their records
    return array("I", sorted(itertools.chain(got, extra))) if extra else got


def data_of(log, i: int) -> dict:
    """Event ``i``'s data (an empty dict when it is not an object)."""
    data = envelope(log, i).get("data")
    return data if isinstance(data, dict) else {}


def envelope(log, i: int) -> dict:
    """Event ``i`` as `SessionLog.event` gives it (legacy shapes upgraded), for the types read here
    (never a packed row's member), without slicing its record a second time for the raw bytes."""
    obj, _lenient = log.parse_record(log.res.record_of(i))
    if not isinstance(obj, dict):
        return {}
    if obj.get("type") in PACKED_ROWS:
        ev = log.event(i).event
        return ev if isinstance(ev, dict) else {}
    etype = obj.get("type")
    new_type, new_data, tag = upgrade(etype, obj.get("data"), log.seq_of(i), log.session_id)
    return obj if tag is None else {**obj, "type": new_type, "data": new_data}


WINDOW = 4 << 20  # plaintext read at once: frames decoded once each, not per event
WINDOW_EVENTS = 4096


def events(log, names: Iterable[str]) -> Iterator[tuple[int, dict]]:
    """(index, event) of every event whose type is one of ``names``, in log order, the plaintext read a
    window at a time (a frame is decoded once for all the events it holds: reading them one by one
    decoded a frame per event, the whole file several times over on a log that writes a frame a step)."""
    idx = indices_of(log, names)
    res, store, sid = log.res, log.store, log.session_id
    k = 0
    while k < len(idx):
        r0 = res.record_of(idx[k])
        base = res.rec_start[r0]
        j = k
        while j + 1 < len(idx) and j + 1 - k < WINDOW_EVENTS and res.end_of(res.record_of(idx[j + 1])) - base <= WINDOW:
            j += 1
        end = res.end_of(res.record_of(idx[j]))
        text = store.slice(base, end)
        for i in idx[k:j + 1]:
            r = res.record_of(i)
            a = res.rec_start[r] - base
            obj, _ = parse_json(text[a:res.end_of(r) - base])
            yield i, _upgraded(log, i, obj, sid)
        k = j + 1


def _upgraded(log, i: int, obj: Any, sid) -> dict:
    if not isinstance(obj, dict):
        return {}
    if obj.get("type") in PACKED_ROWS:
        ev = log.event(i).event
        return ev if isinstance(ev, dict) else {}
    new_type, new_data, tag = upgrade(obj.get("type"), obj.get("data"), log.seq_of(i), sid)
    return obj if tag is None else {**obj, "type": new_type, "data": new_data}
