"""The model's context at an event: dsh's surface fold (surface.ts foldSurface), node by node.

Every `user/message`, `assistant/message` and `tool/result` is a surface node; one with
``surfaceOp: {op: replace, start, end}`` takes the place of the current nodes start..end for the
model (a compaction's summary, or a prune's rewritten result). A human transcript keeps showing the
originals; this shows what the model was sent. The nodes and the replacements come from the scan's
columns (``res.surface_seqs``, ``res.replacements``) when they are whole, so a fold parses only the
few compaction records; otherwise the surface events are read.
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from msgspec import Struct, field

from ..reading.contextfacts import as_int
from .select import SURFACE, data_of, envelope, indices_of

COMPACTION_RECORDS = ("compaction/summary", "compaction/prune")
MAX_REPLACEMENTS = 5_000  # folded; a log with more is folded up to there (each costs a pass over the nodes)


class Replacement(Struct, frozen=True):
    seq: int  # the replacing surface event
    index: int
    type: str  # user/message (a compaction) or tool/result (a prune)
    start: int
    end: int
    kind: str  # "compaction" | "prune" | "replace" (no compaction record before it)
    record_seq: int | None  # the compaction/summary or compaction/prune it follows
    compaction_id: str | None
    token_count: int | None  # the record's shadowedTokenCount
    shadowed: tuple[int, ...]  # the nodes it took the place of, in surface order
    summary: str = ""  # the compaction's summary text (its first text block)


class Node(NamedTuple):  # a tuple: ~26k on a 936k-event log, made in ~10 ms (a frozen dataclass: 0.25 s)
    seq: int
    index: int
    type: str
    state: str  # "current" | "shadowed" | "log-only" (a compaction record: in the log, never sent)
    by: int | None = None  # the seq of the replacement that shadowed it
    tokens: int | None = None  # a replacement's shadowedTokenCount; a record's too


class Context(Struct):
    """The fold up to (and including) event ``at``: what the next request after it is sent."""
    at: int
    nodes: list[Node] = field(default_factory=list)
    replacements: list[Replacement] = field(default_factory=list)
    partial: bool = False  # more replacements than MAX_REPLACEMENTS: folded up to there
    order: list[int] = field(default_factory=list)  # the current nodes' seqs in the order the model gets them

    @property
    def current(self) -> list[Node]:
        """The current nodes in the model's order (a summary stands where the range it replaced began)."""
        by_seq = {n.seq: n for n in self.nodes if n.state == "current"}
        return [by_seq[s] for s in self.order if s in by_seq]

    @property
    def shadowed(self) -> list[Node]:
        return [n for n in self.nodes if n.state == "shadowed"]


def surface(log) -> tuple[list[int], list[tuple]]:
    """(the surface nodes' event indices in order, the replacements as the scan keeps them:
    (place, index, seq, type, start, end, sourceEventSeqs))."""
    idx = indices_of(log, SURFACE)
    res = log.res
    if len(res.surface_seqs) == len(idx):
        return list(idx), list(res.replacements)
    out = []
    for place, i in enumerate(idx):  # read from a cache without the columns: read the events
        ev = envelope(log, i)
        op = ev.get("surfaceOp")
        if isinstance(op, dict) and op.get("op") == "replace":
            sources = ev.get("sourceEventSeqs")
            out.append((place, i, log.seq_of(i), log.type_of(i), op.get("start"), op.get("end"),
                        tuple(sources) if isinstance(sources, list) else ()))
    return list(idx), out


def context_at(log, at: int | None = None, *, cached: tuple | None = None, records=None) -> Context:
    """The model's context for the request after event ``at`` (None: after the last event).
    ``cached``: `surface(log)`, ``records``: the compaction records' indices, when the caller keeps them."""
    last = len(log) - 1
    at = last if at is None else max(-1, min(at, last))
    idx, reps = cached if cached is not None else surface(log)
    upto = bisect.bisect_right(idx, at)
    records = indices_of(log, COMPACTION_RECORDS) if records is None else records
    out = Context(at)
    current: list[int] = []  # event indices of the current nodes, in surface order
    seqs: list[int] = []
    shadowed_by: dict[int, int] = {}  # node index -> the replacement's seq
    done = 0
    folded = 0
    for place, index, seq, etype, start, end, _sources in reps:
        if place >= upto:
            break
        if folded >= MAX_REPLACEMENTS:
            out.partial = True
            break
        folded += 1
        for i in idx[done:place]:
            current.append(i)
            seqs.append(log.seq_of(i))
        done = place + 1
        try:
            a, b = seqs.index(start), seqs.index(end)
        except ValueError:  # a replacement dsh refuses (restore.py names it): it shadows nothing
            a, b = 0, -1
        gone = current[a:b + 1]
        for i in gone:
            shadowed_by[i] = seq
        current[a:b + 1] = [index]
        seqs[a:b + 1] = [seq]
        out.replacements.append(_replacement(log, index, seq, etype, start, end, tuple(seqs_of(log, gone)), records))
    seqs.extend(map(log.seq_of, idx[done:upto]))
    out.order = seqs
    tokens = {r.seq: r.token_count for r in out.replacements}
    kept = {r.record_seq for r in out.replacements if r.record_seq is not None}
    rows: list[tuple[int, Node]] = []
    seq_of = log.seq_of if log.res.seq_shift else None  # (no seq gap: an event's seq is its index)
    names = log.res.types
    for i, t in zip(idx[:upto], log.res.type_ids_of(idx[:upto])):
        seq = seq_of(i) if seq_of is not None else i
        by = shadowed_by.get(i)
        rows.append((i, Node(seq, i, names[t] if t < 255 else log.type_of(i), "shadowed" if by is not None else "current",
                            by, tokens.get(seq) if tokens else None)))
    for r in out.replacements:
        if r.record_seq is not None and r.record_seq in kept:
            ri = log.index_of_seq(r.record_seq)
            if ri is not None:
                rows.append((ri, Node(r.record_seq, ri, log.type_of(ri), "log-only", r.seq, r.token_count)))
    if kept:
        rows.sort(key=lambda x: x[0])
    out.nodes = [n for _i, n in rows]
    return out


def seqs_of(log, indices) -> list[int]:
    return [log.seq_of(i) for i in indices]


def _replacement(log, index: int, seq: int, etype: str, start, end, gone: tuple, records) -> Replacement:
    """What a replacement is: the compaction record right before it (dsh writes the summary or the
    prune immediately before its replacing event), its id and shadowed token count."""
    k = bisect.bisect_left(records, index) - 1
    rec = records[k] if k >= 0 and records[k] == index - 1 else None
    kind, rec_seq, cid, count, text = "replace", None, None, None, ""
    if rec is not None:
        d = data_of(log, rec)
        kind = "compaction" if log.type_of(rec) == "compaction/summary" else "prune"
        rec_seq = log.seq_of(rec)
        cid = d.get("compactionId") if isinstance(d.get("compactionId"), str) else None
        count = as_int(d.get("shadowedTokenCount"))
        text = _first_text(d.get("summary"))
    if cid is None and etype == "user/message":
        source = data_of(log, index).get("source")
        if isinstance(source, dict) and isinstance(source.get("compactionId"), str):
            cid = source["compactionId"]
    return Replacement(seq, index, etype, as_int(start) if as_int(start) is not None else -1,
                       as_int(end) if as_int(end) is not None else -1, kind, rec_seq, cid, count, gone, text)


def _first_text(blocks) -> str:
    if isinstance(blocks, list):
        for b in blocks:
            if isinstance(b, dict) and isinstance(b.get("text"), str):
                return b["text"][:2000]
    return ""
