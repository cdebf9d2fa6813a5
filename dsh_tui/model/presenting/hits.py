"""What a search's hits mean to a reader: chunk deltas of one block as one hit, "k of n", the matched spans.

Textual-free. The hit list (model/reading/search.py) has one entry per event; a streamed answer is
hundreds of ``assistant/chunk`` deltas, so a word the model wrote once would count once per delta that
holds it. ``collapse_chunk_runs`` keeps the first of each run of hits in one content block (the same
turn, step and block index, with only chunk events between them), so n steps from block to block.
"""

from __future__ import annotations

import bisect
import re
from array import array

from ..reading.query import row_spans
from ..reading.search import HitList
from ..reading.source import Cancelled

CHUNK = "assistant/chunk"


def _block_key(log, i: int) -> tuple | None:
    """(turn, step, block index) of chunk event ``i``, or None when it names none."""
    data = log.event(i).event.get("data")
    if not isinstance(data, dict):
        return None
    chunk = data.get("chunk")
    index = chunk.get("index") if isinstance(chunk, dict) else None
    key = (data.get("turn"), data.get("step"), index)
    return key if all(type(k) is int for k in key) else None


def collapse_chunk_runs(log, hits: HitList, *, cancel=None) -> HitList:
    """``hits`` with each run of chunk hits in one content block reduced to its first hit.

    Only chunk hits whose previous hit is a chunk of the same block, with nothing but chunks between
    them, are parsed for their block: other hits cost one byte lookup. ``cancel`` is checked every
    4096 hits (the caller's worker).
    """
    res = log.res
    if CHUNK not in res.types or len(hits) < 2:
        return hits
    chunk_id = res.types.index(CHUNK)
    types, record_of = res.rec_type, res.record_of
    out = array("I")
    prev = prev_key = None  # (prev: the record of the previous hit, a chunk)
    for n, i in enumerate(hits.indices):
        if cancel is not None and not n & 4095 and cancel.is_set():
            raise Cancelled()
        r = record_of(i)
        if types[r] != chunk_id:  # (a packed row's members are chunks, as its record: ScanResult.rec_type)
            out.append(i)
            prev = prev_key = None
            continue
        key = _block_key(log, i)
        between = types[prev + 1:r] if prev is not None else None  # the records between: chunks only?
        same = (key is not None and key == prev_key and between is not None
                and between.count(chunk_id) == len(between))
        if not same:
            out.append(i)
        prev, prev_key = r, key
    return HitList(hits.needle, hits.events, out, hits.capped)


def hit_position(hits: HitList, index: int | None) -> int | None:
    """1-based rank of the last hit at or before event ``index`` (the cursor), or None before the first."""
    if index is None or not len(hits):
        return None
    k = bisect.bisect_right(hits.indices, index)
    return k or None


def count_text(hits: HitList, index: int | None) -> str:
    """"3 of 17" ("3 of 17+" when the list is capped; "17 hits" before the first)."""
    n = f"{len(hits):,}{'+' if hits.capped else ''}"
    k = hit_position(hits, index)
    return f"{k:,} of {n}" if k is not None else f"{n} hits"


def match_spans(text: str, pattern: re.Pattern | None, limit: int = 64) -> list[tuple[int, int]]:
    """The [start, end) spans of ``pattern`` in ``text`` (at most ``limit``), for a highlight style."""
    if pattern is None or not text:
        return []
    if not isinstance(pattern, re.Pattern):  # a `regex` pattern (a search's query): bounded in time
        return row_spans(pattern, text, limit)
    spans = []
    for m in pattern.finditer(text):
        if m.end() > m.start():
            spans.append(m.span())
            if len(spans) >= limit:
                break
    return spans
