"""What `check` shows of the context, the requests and the files, computed once per log.

`Insight` reads each thing at most once (a `check` run asks for all of it; the UI for one at a
time). The JSON lists are bounded: the first LIMIT entries and a count of all of them.
"""

from __future__ import annotations

import threading
from functools import cached_property
from itertools import islice
from typing import Any, Iterable, Iterator

from ...safety import one_line
from ..diagnosing.findings import Finding
from ..reading.contextfacts import HEADER, MESSAGE
from ..reading.gcpause import gc_paused
from .files import Files, files_touched
from .loops import LOOP_KINDS, calls, loop_findings
from .requests import Header, Request, headers, iter_requests, request_before, requests, walk_headers
from .select import context_columns, indices_of, records
from .surface import COMPACTION_RECORDS, Context, context_at, surface

LIMIT = 1_000  # entries per JSON list
HEADER_LIMIT = 200  # headers listed (each holds its tool names); changed ones first past it
FILES_SHOWN = 20  # files listed in the markdown report


class Insight:
    def __init__(self, log) -> None:
        self.log = log
        self._lock = threading.Lock()  # the views' workers may ask at once: one read

    def _records(self, kinds: tuple[str, ...]) -> Iterator[tuple]:
        """The context records of ``kinds``, one at a time (never all held as tuples); made from the
        events once, under the lock, when the scan kept none (an index from the cache)."""
        with self._lock, gc_paused():
            return records(self.log, kinds)

    @cached_property
    def requests(self) -> list[Request]:
        with gc_paused():  # tens of thousands of small objects: no collector pass over the log's heap
            return requests(self.log, self._records((MESSAGE,)))

    @cached_property
    def headers(self) -> list[Header]:
        with gc_paused():
            return headers(self.log, self._records((HEADER,)))

    def _columns(self) -> None:
        """The context records' columns, made from the events once, under the lock, when the scan kept
        none (an index from the cache): what the files and loops read."""
        with self._lock, gc_paused():
            context_columns(self.log)

    @cached_property
    def files(self) -> Files:
        self._columns()
        with gc_paused():
            return files_touched(self.log)

    @cached_property
    def loops(self) -> list:
        files = self.files
        self._columns()
        with gc_paused():
            return loop_findings(self.log, files, cs=calls(self.log))

    @cached_property
    def surface(self) -> tuple:
        """(the surface's event indices, its replacements) and the compaction records' indices."""
        return surface(self.log), indices_of(self.log, COMPACTION_RECORDS)

    def context(self, at: int | None = None) -> Context:
        fold, records = self.surface
        with gc_paused():  # tens of thousands of small tuples: a collector pass over the log's heap each time
            return context_at(self.log, at, cached=fold, records=records)


def add_loop_findings(diag, found: list) -> None:
    """Put the loop findings among the diagnosis's, newest first as diagnosis.py orders them (they are
    `info`: the verdict and the exit code do not move). Any already there (a diagnosis `check` saved
    in the index cache after adding them) are replaced, never doubled."""
    if any(f.kind in LOOP_KINDS for f in diag.findings):
        diag.findings[:] = [f for f in diag.findings if f.kind not in LOOP_KINDS]
    if not found:
        return
    from ..diagnosing.diagnosis import _rank
    diag.findings.extend(found)
    diag.findings.sort(key=lambda f: (-1 if f.index is None else f.index, _rank(f.kind)), reverse=True)


def _requests(ins: Insight) -> Iterable[Request]:
    """The requests as the views hold them once made, else one at a time."""
    made = ins.__dict__.get("requests")
    return made if made is not None else iter_requests(ins.log, ins._records((MESSAGE,)))


def _verdict_at(ins: Insight, diag) -> int:
    """The event the run ended at: the verdict's, else the last one."""
    v = diag.verdict if diag is not None else None
    return v.index if v is not None and v.index is not None else len(ins.log) - 1


def context_json(ins: Insight, at: int | None = None) -> dict[str, Any]:
    """``context``: the first LIMIT requests, their count and (``at`` given) the last one at or before
    ``at``. Unless the views made them all, only the listed ones are made: the rest are counted from
    their records (a 10M-event log's 145k requests held at once were ~35 MiB at the end of `check`)."""
    made = ins.__dict__.get("requests")
    recs = iter(made if made is not None else ins._records((MESSAGE,)))
    listed = list(islice(recs, LIMIT))
    head = listed if made is not None else list(iter_requests(ins.log, listed))
    before = request_before(head, at) if at is not None else None
    total = len(head)
    for r in recs:  # the rest, a Request or a record (MESSAGE, index, seq, turn, step, input tokens)
        total += 1
        if at is not None and (r.index if made is not None else r[1]) <= at:
            before = r
    out: dict[str, Any] = {"total": total, "shown": len(head), "items": [r.as_dict() for r in head]}
    if at is not None:
        if before is None or type(before) is Request:
            out["at_verdict"] = None if before is None else {"seq": before.seq, "input_tokens": before.input_tokens}
        else:
            out["at_verdict"] = {"seq": before[2], "input_tokens": before[5]}
    return out


def requests_json(ins: Insight, at: int | None = None) -> dict[str, Any]:
    """``requests``: the first HEADER_LIMIT headers and as many changed ones after them, the counts, and
    (``at`` given) the header in force at ``at``."""
    made = ins.__dict__.get("headers")
    walk = ((h.index, h.seq, h.changes, h) for h in made) if made is not None else \
        walk_headers(ins.log, ins._records((HEADER,)), made_first=HEADER_LIMIT)
    total, changes, shown, changed_later, in_force_at = 0, 0, [], [], None
    for i, seq, changed, h in walk:
        total += 1
        if changed:
            changes += 1
            if total > HEADER_LIMIT and len(changed_later) < HEADER_LIMIT:
                changed_later.append(h)
        if total <= HEADER_LIMIT:
            shown.append(h)
        if at is not None and i <= at:
            in_force_at = seq
    out: dict[str, Any] = {"total": total, "shown": len(shown) + len(changed_later), "changes": changes,
                           "items": [h.as_dict() for h in shown + changed_later]}
    if at is not None:
        out["in_force_at_verdict"] = in_force_at
    return out


def files_json(ins: Insight) -> dict[str, Any]:
    fs = ins.files
    items = list(fs.files.values())
    return {"total": len(items), "shown": min(len(items), LIMIT), "dropped_operations": fs.dropped,
            "changed": sum(1 for f in items if f.changed),
            "items": [f.as_dict() for f in items[:LIMIT]]}


def check_json_extra(ins: Insight, diag=None) -> dict[str, Any]:
    """`check --format json`'s ``context``, ``requests`` and ``files``; what was in force where the run
    ended (the verdict's event, else the last one)."""
    at = _verdict_at(ins, diag)
    return {"context": context_json(ins, at), "requests": requests_json(ins, at), "files": files_json(ins)}


def context_at_verdict(ins: Insight, diag) -> str | None:
    """One line: the input tokens of the last request before the verdict's event."""
    v = diag.verdict
    r = None
    at = _verdict_at(ins, diag)
    for req in _requests(ins):
        if req.index > at:
            break
        r = req
    if r is None:
        return None
    size = f"{r.input_tokens:,} input tokens" if r.input_tokens is not None else "no usage recorded"
    where = f"the verdict (seq {v.seq:,})" if v is not None and isinstance(v.seq, int) else "the end"
    return f"context before {where}: {size} at the model request seq {r.seq:,} (turn {one_line(repr(r.turn), 20)}, step {one_line(repr(r.step), 20)})"


def markdown_lines(ins: Insight, diag, md, val) -> list[str]:
    """The markdown report's section: the context size at the verdict and the files the run changed
    (``md``: model.markdown's escapes; ``val``: the report's masking and cutting of a log value)."""
    out = ["## Context and files", ""]
    line = context_at_verdict(ins, diag)
    out.append(f"- {md.text(val(line, 300))}" if line else "- no model request with usage before the verdict")
    changed = ins.files.changed
    if not changed:
        out.append("- files changed: none recorded by fs tools")
    else:
        out.append(f"- files changed ({len(changed):,}):")
        for f in changed[:FILES_SHOWN]:
            counts = ", ".join(f"{k} {v}" for k, v in f.counts().items())
            seqs = ", ".join(str(o.seq) for o in f.ops[:8]) + (" ..." if len(f.ops) > 8 else "")
            out.append(f"  - {md.code(val(f.path, 160))}: {md.text(counts)} (seqs {seqs})")
        if len(changed) > FILES_SHOWN:
            out.append(f"  - ... and {len(changed) - FILES_SHOWN:,} more (`check --format json` lists them)")
    out.append("")
    return out


def insight(log) -> Insight:
    """The log's one `Insight` while it has this many events (kept on it: the check's findings, JSON
    and report, and the explorer's views, share the reads; a live log that grew gets a new one). An
    index from the cache may bring the loops and files a `check` read (`derived`)."""
    got = getattr(log, "_insight", None)
    if got is None or got[0] != len(log):
        got = (len(log), Insight(log))
        log._insight = got
        _seed(got[1], getattr(log, "derived", None))
        log.derived = None  # taken or refused: not held beside what it made
    return got[1]


def derived(ins: Insight) -> dict | None:
    """What was read of the log alone, for the index cache: its loop findings and the files touched
    (each a pass over every call and result), with the event count they were read at; None unless
    both were read."""
    loops, files = ins.__dict__.get("loops"), ins.__dict__.get("files")
    if loops is None or files is None:
        return None
    return {"events": len(ins.log), "loops": list(loops), "files": files.plain()}


def _seed(ins: Insight, got) -> None:
    """Take `derived`'s values as read, when they are what it writes and for this many events."""
    if type(got) is not dict or got.get("events") != len(ins.log):
        return
    loops = got.get("loops")
    if type(loops) is not list or not all(type(f) is Finding and f.kind in LOOP_KINDS for f in loops):
        return
    try:
        files = Files.from_plain(got.get("files"))
    except ValueError:
        return
    ins.__dict__["files"], ins.__dict__["loops"] = files, loops
