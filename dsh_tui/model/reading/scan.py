"""One linear pass over the plaintext: index every record and logical event.

The pass parses each line once (orjson), expands packed chunk rows, checks
that seq is contiguous, counts unknown and legacy types, and keeps compact
"facts" (facts.py) only for the events the diagnosis needs. It holds no parsed
object per event: the views re-parse the few records they show.

Lines that are not records (blank, not JSON, not an event) cost nothing per line:
a run of them is one entry (ScanResult.skip_*), the first MAX_CORRUPTION reports
are kept and the rest counted, and a log where they pass MAX_SKIPPED_LINES and
outnumber the records is refused (LogUnreadable) instead of read on.
"""

from __future__ import annotations

import os
import sys
from array import array
from itertools import accumulate, repeat
from operator import add
from typing import Any

import orjson

from ..columns.calltable import CallTable
from .facts import (CHUNK, FACT_EXTRACTORS, FINISH, LEGACY_CANDIDATES, MESSAGE, R_EVENTS, R_GAP, R_GAP_AT, R_LAST,
                    ChunkClock, finish_fact, is_usage_chunk, join_tail_runs, note_chunk_usage,
                    note_message_usage)
from .contextcolumns import Columns
from .contextfacts import RECORDERS
from .deepvalue import said, spelled
from .jsonparse import parse_json
from .legacy import upgrade
from .restore import (LEGACY, RESTORE, UNKNOWN, VOCABULARY, Problem, envelope_plain, envelope_problem,
                      legacy_problem, shape_problem, vocabulary_message, vocabulary_order)
from .scanresult import ScanResult, SeqGap, UnknownType, extend_offsets, extend_seqs
from .source import Cancelled, Corruption, LogUnreadable
from .vocabulary import KNOWN_EVENT_TYPES, LEGACY_TYPES, MAX_SAFE, PACKED_ROWS, SURFACE_TYPES

ENVELOPE_KEYS = frozenset({"type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp", "ignorable"})
ROW_KEYS = frozenset({"type", "seq0", "time0", "data"})
_STR = frozenset({str})
_INT = frozenset({int})
WINDOW = 4 << 20  # plaintext split into lines at once: bounds the lines held (a decoded chunk is ~1 MiB)
MAX_CORRUPTION = 1000  # corruption reports kept; the rest are counted (ScanResult.corruption_dropped)
# A log with more lines that are not records than this, and more of them than records, is refused:
# dsh writes none, and each one costs the scan an exception (a few-KB zstd file holds millions).
MAX_SKIPPED_LINES = 10_000
# Seq gaps kept (SeqGap); the rest are counted (ScanResult.gaps_dropped). dsh reads nothing past the
# first gap (a zstd log with one is corrupt to it), so a log with more than this, and more gaps than a
# quarter of its records, is refused: a few KB of repeated records would otherwise cost a gap each.
MAX_GAPS = 10_000
# Events that keep a fact (calls, results, turns, messages: facts.py) cost the diagnosis ~1-2 KB each,
# the rest ~10 bytes of index. dsh's logs are mostly model-stream chunks (a tenth of a big one's events
# keep a fact), so a log with more than this many, and more than a quarter of its events, is refused
# ($DSH_TUI_MAX_FACTS raises the count): memory stays a bounded multiple of the index.
MAX_FACTS = 100_000
MAX_FACTS_ENV = "DSH_TUI_MAX_FACTS"
SHAPED = frozenset({"request/header", "user/message", "assistant/message", "tool/result"})  # restore.shape_problem
LEGACY_SHAPED = frozenset({"turn/start", "turn/end", "steering/message"})  # restore.legacy_problem
# A legacy candidate's kind (the plan's legacy field; 0: not a candidate): what proves it is of the
# current shape, so neither restore.legacy_problem nor legacy.upgrade has anything to do with it.
# none; "message" in data; no "trigger"; "id" and "role" in data; a turn/end of {"turn": a safe int
# from 1, "reason": {"kind": "completed"}} (a turn's usual end)
_OTHER, _MSG, _START, _USER, _END = 1, 2, 3, 4, 5
_LEGACY_KIND = {"assistant/message": _MSG, "tool/result": _MSG, "turn/start": _START, "user/message": _USER,
                "turn/end": _END}
_COMPLETED = {"kind": "completed"}


def _gap_cause(expected: int, found: int) -> str:
    if found < expected:
        return f"seq {found} repeats or goes back (expected {expected}): duplicated or reordered lines"
    missing = found - expected
    if missing >= 3:
        return (f"{missing} events missing: likely a dropped packed chunk row (rows hold >= 3 deltas) "
                "or lines removed by a tool that skipped an unknown row or event type")
    return f"{missing} event(s) missing: lines removed, or an event type a copying tool dropped"


class Scanner:
    """Indexes records fed in chunks; every chunk must end on a record boundary.

    zstd frames end on record boundaries, so frames can be fed as they are
    decoded (and, when following a growing log, as they are appended). Offsets
    are absolute plaintext offsets (``base`` is the chunk's offset).
    """

    def __init__(self, body_start: int, session_id: str | None, *, cancel=None, where: object = "the log") -> None:
        self.res = ScanResult(body_start)
        self.res.context = Columns()  # kept from the first event on (an index read from the cache has none)
        self.context_memo: dict = {}  # contextfacts.record's: a repeated tool list or config kept once
        self.session_id = session_id
        self.cancel = cancel
        self.where = where  # the log's name, for the refusal of a log that is mostly not records
        self.expected = 0  # seq the next event must carry
        self.projected: bool | None = None
        self.skipped = 0  # blank or unparsable lines so far (for physical line numbers)
        self.bad_lines = 0  # of those, the ones that are not blank
        self.chunk_id = -1
        self.type_ids: dict[str, int] = {}
        self.plans: dict[str, tuple] = {}  # event type -> what feed does with it (_plan)
        self.clock = ChunkClock()  # the model stream's times: one fact per run of chunk events (facts.py)
        self.index_base = 0  # added to every event index: a tail helper's guess of where its part starts
        self.facts_kept = 0  # facts made so far (the list may be handed over: take_facts)
        self.max_facts = max_facts()  # (a segment of the split read counts for the merge to check: `bounded`)
        self.bounded = True
        self._lines: list[bytes] | None = None  # the window being read, its offset and (once asked) line offsets
        self._base = 0
        self._starts: list[int] | None = None

    @classmethod
    def segment(cls, session_id: str | None, first_seq: int, index_base: int) -> Scanner:
        """A scanner for a later segment of a log that carries seqs (the split read's helper): it expects
        ``first_seq`` first and numbers its events from ``index_base``, for `merge` to append."""
        out = cls(0, session_id)
        out.projected = False
        out.chunk_id = type_id(CHUNK, out.type_ids, out.res.types)
        out.expected, out.index_base = first_seq, index_base
        out.res.first_base = index_base
        out.bounded = False  # its counts are its slice's: the parent checks the whole after `merge`
        return out

    def take_facts(self) -> tuple[list, tuple, tuple]:
        """The facts, per-call usage and context records read so far, handed over and let go of (a
        segment's slice): (facts, the usage table's plain form, the records' `Columns.pack`) for `merge`."""
        res = self.res
        out = (res.facts, res.usage_calls.pack(), res.context.pack())
        res.facts, res.usage_calls, res.context = [], CallTable(), Columns()
        return out

    def finish(self) -> ScanResult:
        self.res.projected = bool(self.projected)
        return self.res

    def line_no(self, rec: int) -> int:
        return rec + self.skipped + 2  # the header is line 1

    def _skip(self, rec: int, bad: bool) -> None:
        """Count a line that is not a record; refuse the log once they are most of it."""
        self.skipped += 1
        self.bad_lines += bad
        if self.skipped > MAX_SKIPPED_LINES and self.skipped > rec:
            blank = self.skipped - self.bad_lines
            raise LogUnreadable("mostly-not-records", (
                f"{self.where}: {self.skipped:,} of its first {self.skipped + rec + 1:,} lines are not dsh records "
                f"({self.bad_lines:,} not JSON or not an event, {blank:,} blank), more than the {rec:,} that are; "
                "refusing to read on: not a session log, or mostly corrupt"))

    def feed(self, buf: bytes | bytearray | memoryview, base: int, start: int = 0) -> None:
        """Index the records of ``buf`` from ``start`` (offsets absolute: ``base`` is buf's)."""
        n = len(buf)
        if start == 0 and n <= WINDOW and type(buf) is bytes:
            self._feed_window(buf, base)  # a decoded chunk: the usual case, no copy
            return
        if type(buf) is memoryview:
            buf = bytes(buf)  # for find and rfind
        with memoryview(buf) as view:  # released before returning: a followed log's buffer grows after
            pos = start
            while pos < n:
                if n - pos <= WINDOW:
                    self._feed_window(bytes(view[pos:]), base + pos)
                    return
                cut = buf.rfind(b"\n", pos, pos + WINDOW)  # windows end on a newline
                if cut >= 0:
                    self._feed_window(bytes(view[pos:cut + 1]), base + pos)
                    pos = cut + 1
                    continue
                # A line longer than a window is read where it lies: splitting it from a copy of
                # its window copied it twice (and the line is parsed from it once more).
                nl = buf.find(b"\n", pos + WINDOW)
                end = nl if nl >= 0 else n
                self._feed_lines([view[pos:end]], base + pos, end - pos + (nl >= 0), nl >= 0)
                pos = end + 1

    def _feed_window(self, chunk: bytes, base: int) -> None:
        lines = chunk.split(b"\n")
        if not lines[-1]:
            lines.pop()  # the newline that ends the chunk's last record (or an empty chunk)
        self._feed_lines(lines, base, len(chunk), chunk.endswith(b"\n"))

    def _feed_lines(self, lines: list, base: int, length: int, terminated: bool) -> None:
        """Index ``lines``, the lines of ``length`` bytes of text from ``base`` (``terminated``: it
        ends with a newline). One C-level split made the lines, and the record offsets are summed
        from their lengths after the loop (in C): a find, a slice and two offset appends per line
        were ~3% of a check's instructions."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()
        res = self.res
        facts, usage_calls = res.facts, res.usage_calls
        types, type_ids, session_id, plans = res.types, self.type_ids, self.session_id, self.plans
        loads, JSONError = orjson.loads, orjson.JSONDecodeError
        self._lines, self._base, self._starts = lines, base, None
        skipped: list[int] = []  # window line numbers of the lines that are not records
        expected, projected, chunk_id = self.expected, self.projected, self.chunk_id
        rec0 = rec = len(res.rec_start)  # (extended after each window: the records before this one)
        facts0 = len(facts)
        nev = res.event_end()
        # This window's record types, added to the column at its end: a bytearray takes an int as it is,
        # an array("B") parses it as a call's argument (~180 instructions a record).
        window_types = bytearray()
        et_append, facts_append = window_types.append, facts.append
        clock, context = self.clock, res.context
        kept: list = []  # this window's context records: the columns take them in one go (`extend`)
        keep = kept.append
        for line in lines:
            try:
                obj = loads(line)
            except JSONError:
                if len(line) <= 2 and not bytes(line).strip():  # a blank line: not a record, not corruption
                    k = rec - rec0 + len(skipped)
                    if res.first_issue is None:  # but dsh's loader stops at it (JSON.parse of "" throws)
                        self._note_issue("unparsable", rec, self._offset(k), rec + self.skipped + 2)
                    skipped.append(k)
                    self._skip(rec, False)
                    continue
                obj, _lenient = parse_json(line)
                if obj is not None:
                    res.lenient_records += 1
            etype = obj.get("type") if type(obj) is dict else None
            if type(etype) is not str:
                what = "not valid JSON" if obj is None else "not an event object with a string type"
                line_no = rec + self.skipped + 2
                k = rec - rec0 + len(skipped)
                self._report(k, "bad-record", f"line {line_no} is {what}", line_no)
                if res.first_issue is None:
                    self._first_bad_line(obj, rec, k, line_no, expected)
                skipped.append(k)
                self._skip(rec, True)
                continue
            if etype == CHUNK and projected is False:
                # Hot path: most records of a big log are loose chunk deltas.
                seq = obj.get("seq")
                if seq != expected:
                    expected = self.note_gap(rec, nev, expected, seq)
                time = obj.get("time")
                if (len(obj) != 4 or type(time) is not int or type(seq) is not int or "data" not in obj
                        or not -MAX_SAFE <= time <= MAX_SAFE):
                    self._check_envelope(obj, nev, expected)  # rare: what dsh's restore refuses
                seq = expected  # the int seq this event answers to (resynchronised on gaps)
                expected += 1
                et_append(chunk_id)
                run = clock.run  # ChunkClock.tick's usual case inlined: a timed event going on a run
                if type(time) is int and nev == clock.next and run is not None and run[R_LAST] is not None:
                    clock.next = nev + 1
                    if time - run[R_LAST] > run[R_GAP]:
                        run[R_GAP], run[R_GAP_AT] = time - run[R_LAST], run[R_EVENTS]
                    run[R_LAST] = time
                    run[R_EVENTS] += 1
                else:
                    clock.tick(facts_append, time, obj, seq, nev)
                try:  # inlined is_usage_chunk: this runs for most records of a big log
                    ctype = obj["data"]["chunk"]["type"]
                except (KeyError, TypeError):  # not the dicts dsh writes: no usage, no finish
                    ctype = None
                if ctype == "usage":
                    note_chunk_usage(usage_calls, obj["data"], obj["data"]["chunk"], seq)
                elif ctype == "finish":
                    finish = finish_fact(obj["data"])
                    if finish is not None:
                        facts_append((FINISH, nev, seq, finish))
                nev += 1
                rec += 1
                continue
            if projected is None:
                projected = "seq" not in obj and "seq0" not in obj
            if chunk_id < 0:
                chunk_id = type_id(CHUNK, type_ids, types)
            plan = plans.get(etype)
            if plan is None:
                plan = self._plan(etype)
            tid, row, known, legacy, extract, name = plan
            if row is not None:
                m, top = self._row_members(obj, row, rec, rec - rec0 + len(skipped))
                seq = obj.get("seq0")
                if not projected and seq != expected:
                    expected = self.note_gap(rec, nev, expected, seq)
                self.clock.row(facts_append, obj, expected, nev, m, top)
                if m > 1:  # (a record of one event is not listed: ScanResult.first_event)
                    res.row_rec.append(rec)
                    res.row_after.append(nev + m)
                expected += m
                et_append(chunk_id)  # (its members are all chunks: ScanResult.rec_type)
                nev += m
                rec += 1
                continue
            seq = obj.get("seq")
            if not projected and seq != expected:
                expected = self.note_gap(rec, nev, expected, seq)
            # By position in projected logs; resynchronised on gaps otherwise. Where it equals the index
            # (until a gap, always) the facts carry one int object for both: pairs, findings and timing
            # keep hundreds of thousands of them on a big log.
            seq = nev if expected == nev else expected
            expected += 1
            if len(obj) > 4 and not ENVELOPE_KEYS.issuperset(obj) and len(res.envelope_issues) < 50:
                extra = sorted(set(obj) - ENVELOPE_KEYS)
                res.envelope_issues.append(f"seq {seq}: unknown envelope key(s) {', '.join(extra)} (dsh rejects the log)")
            if not projected:  # a projected fixture is no on-disk log: dsh's load checks do not apply
                if (len(obj) != 4 or etype in SURFACE_TYPES or type(obj.get("time")) is not int
                        or type(obj.get("seq")) is not int or "data" not in obj) and not envelope_plain(obj):
                    self._check_envelope(obj, nev, seq)  # (the usual surface event is proven plain above)
                if not known and obj.get("ignorable") is not True:
                    order = vocabulary_order(etype, None)
                    if order is not None:
                        self._refuse(VOCABULARY, order, nev, seq, "UNSUPPORTED_LEGACY", vocabulary_message(order, seq))
                    self._refuse(UNKNOWN, 0, nev, seq, "UNKNOWN_TYPE",
                                 f"contains event type {etype} (seq {seq}) unknown to dsh and not marked "
                                 "ignorable: dsh refuses to interpret the log")
            if not known:
                u = res.unknown.get(etype)
                if u is None:
                    u = res.unknown[etype] = UnknownType(etype, first_index=nev,
                                                         first_seq=seq)
                u.count += 1
                if obj.get("ignorable") is not True:
                    u.ignorable = False
            data = obj.get("data")
            if type(data) is dict:
                etype_fact = name
                # A legacy candidate of the current shape (most of them) has nothing to check or upgrade.
                if legacy and not (legacy == _MSG and "message" in data or legacy == _START and "trigger" not in data
                                   or legacy == _USER and "id" in data and "role" in data
                                   or legacy == _END and len(data) == 2 and data.get("reason") == _COMPLETED
                                   and type(turn := data.get("turn")) is int and 1 <= turn <= MAX_SAFE):
                    if not projected and etype in LEGACY_SHAPED:
                        problem = legacy_problem(etype, data)
                        if problem is not None:
                            self._refuse(LEGACY, 0, nev, seq, "MALFORMED_LEGACY", f"contains {problem} at seq {seq}")
                    new_type, data, tag = upgrade(etype, data, seq, session_id)
                    if tag is not None:
                        res.legacy[tag] += 1
                        etype_fact = new_type
                        extract = FACT_EXTRACTORS.get(new_type)
                if not projected and etype_fact in SHAPED:
                    self._check_shape(etype_fact, data, obj, nev, seq)
                if extract is not None:
                    fact = extract(data, obj.get("surfaceOp"), obj.get("time"))
                    facts_append((etype_fact, nev, seq, fact))
                    if etype_fact == MESSAGE:
                        note_message_usage(usage_calls, fact, data, seq)
                    if context is not None and (recorder := RECORDERS.get(etype_fact)) is not None:
                        keep(recorder(nev, seq, data, obj, self.context_memo))
                elif etype == CHUNK and is_usage_chunk(ch := data.get("chunk")):
                    note_chunk_usage(usage_calls, data, ch, seq)  # chunks off the hot path (projected, first record)
                elif etype == CHUNK and type(ch) is dict and ch.get("type") == "finish":
                    finish = finish_fact(data)
                    if finish is not None:
                        facts_append((FINISH, nev, seq, finish))
            elif not projected and (etype in SHAPED or etype in LEGACY_SHAPED):  # data not an object
                if etype in LEGACY_SHAPED and (problem := legacy_problem(etype, data)) is not None:
                    self._refuse(LEGACY, 0, nev, seq, "MALFORMED_LEGACY", f"contains {problem} at seq {seq}")
                if etype in SHAPED:
                    self._check_shape(etype, data, obj, nev, seq)
            if context is not None and type(data) is not dict and (recorder := RECORDERS.get(etype)) is not None:
                keep(recorder(nev, seq, {}, obj, self.context_memo))  # (as `record` reads such data)
            et_append(tid)
            nev += 1
            rec += 1
        self.expected, self.projected, self.chunk_id = expected, projected, chunk_id
        res.rec_type.frombytes(window_types)
        if kept:
            context.extend(kept)
        starts = self._starts
        if starts is None or len(starts) <= len(lines):  # none, or only the first lines' (_offset)
            starts = _line_starts(lines, base)
        self._lines = self._starts = None
        if skipped:  # rare: blank or bad lines hold no record, and end the record before them
            self._note_skipped(skipped, starts, rec0, len(lines))
        else:
            extend_offsets(res, starts[:-1])
        if lines and not terminated and rec > rec0 and skipped[-1:] != [len(lines) - 1]:
            res.rec_ends[rec - 1] = starts[-1] - 1  # an unterminated last line: it ends with the text
        res.text_end = base + length
        self.facts_kept += len(facts) - facts0
        if self.facts_kept > self.max_facts and self.bounded:
            self._check_facts(nev)

    def _note_skipped(self, skipped: list[int], starts: list[int], rec0: int, n: int) -> None:
        """The record offsets of a window whose lines ``skipped`` (ascending) are not records, and
        one run entry per run of those (a run goes on from the previous window when no record is
        between: the entry is per run, not per line)."""
        res = self.res
        skip_rec, skip_lines, skip_at = res.skip_rec, res.skip_lines, res.skip_at
        total = self.skipped - len(skipped)  # skipped before this window
        prev = 0
        for j, k in enumerate(skipped):
            if k > prev:
                extend_offsets(res, starts[prev:k])
            prev = k + 1
            total += 1
            r = rec0 + k - j  # the record this line comes before
            if skip_rec and skip_rec[-1] == r:
                skip_lines[-1] = total
            else:
                skip_rec.append(r)
                skip_lines.append(total)
                skip_at.append(starts[k])
        extend_offsets(res, starts[prev:n])

    def _check_facts(self, events: int) -> None:
        """Refuse a log most of whose events keep a fact, once they pass max_facts (MAX_FACTS)."""
        if self.facts_kept * 4 > events:
            raise LogUnreadable("mostly-facts", (
                f"{self.where}: {self.facts_kept:,} of its first {events:,} events are calls, results, turns or "
                f"messages (dsh's logs are mostly model-stream chunks); past {self.max_facts:,} of them, more than "
                f"a quarter of the events, the diagnosis would cost memory out of proportion to the log: refusing "
                f"to read on (${MAX_FACTS_ENV} raises the count)"))

    def _check_gaps(self, records: int) -> None:
        """Refuse a log whose seq gaps pass MAX_GAPS and a quarter of its records."""
        res = self.res
        gaps = len(res.gaps) + res.gaps_dropped
        if gaps > MAX_GAPS and gaps * 4 > records:
            raise LogUnreadable("mostly-seq-gaps", (
                f"{self.where}: {gaps:,} seq gaps in its first {records:,} records (repeated or reordered records; "
                f"dsh reads nothing past the first gap); refusing to read on past {MAX_GAPS:,}"))

    def _refuse(self, stage: int, order: int, index: int, seq: int, code: str, message: str) -> None:
        """Keep the first problem of its stage (restore.py): what dsh's load would refuse."""
        held = self.res.refusals.first.get((stage, order))
        if held is None or index < held.index:
            self.res.refusals.note(Problem(stage, order, index, seq, code, message))

    def _check_envelope(self, obj: dict, index: int, seq: int) -> None:
        problem = envelope_problem(obj)
        if problem is not None:
            self._refuse(RESTORE, 0, index, seq, "INVALID_EVENT", f"event at seq {seq} {problem}")

    def _check_shape(self, etype: str, data: Any, obj: dict, index: int, seq: int) -> None:
        """A request header's and a message's shape, the refused `fallback` reason, and the surface:
        each surface event's seq in order, a replacement with what the fold needs."""
        problem = shape_problem(etype, data)
        if problem is not None:
            self._refuse(RESTORE, 0, index, seq, "INVALID_EVENT", f"event at seq {seq}: {problem}")
        if etype == "request/header":
            order = vocabulary_order(etype, data)
            if order is not None:
                self._refuse(VOCABULARY, order, index, seq, "UNSUPPORTED_LEGACY", vocabulary_message(order, seq))
            return
        op, res = obj.get("surfaceOp"), self.res
        if type(op) is dict and op.get("op") == "replace":
            sources = obj.get("sourceEventSeqs")
            res.replacements.append((len(res.surface_seqs), index, seq, etype, op.get("start"), op.get("end"),
                                     tuple(sources) if type(sources) is list else ()))
        try:
            res.surface_seqs.append(seq)
        except OverflowError:  # past uint32 (a crafted log's seq)
            extend_seqs(res, (seq,))

    def _report(self, k: int, kind: str, message: str, line: int) -> None:
        """A corruption report for line ``k`` of the window; past MAX_CORRUPTION only counted."""
        res = self.res
        if len(res.corruption) < MAX_CORRUPTION:
            res.corruption.append(Corruption(self._offset(k), kind, message, line))
        else:
            res.corruption_dropped += 1

    def _offset(self, k: int) -> int:
        """The absolute offset of line ``k`` of the window being read (only for reports: rare). The
        offsets are summed for the first lines only, twice as many each time more are needed: a
        window of millions of bad lines is refused after its first MAX_SKIPPED_LINES."""
        starts = self._starts
        if starts is None or k >= len(starts):
            lines = self._lines
            n = min(len(lines), max(k + 1, 2 * len(starts or ()), 1024))
            starts = self._starts = _line_starts(lines[:n] if n < len(lines) else lines, self._base)
        return starts[k]

    def merge(self, other: Scanner, base: int, first_seq: int, index_base: int, facts: list, calls: Any,
              context: tuple) -> None:
        """Append what ``other`` read of a later segment (from plaintext byte ``base`` on, its first seq
        ``first_seq``, its events numbered from ``index_base``; its ``facts``, per-call ``calls`` and
        ``context`` records) as if this scanner had read on: the split read's merge (model/reading/split/)."""
        res, t = self.res, other.res
        rec0, nev0, skip0 = len(res.rec_start), res.event_end(), self.skipped
        if self.expected != first_seq:  # the boundary gap, exactly as a linear scan records it
            self.note_gap(rec0, nev0, self.expected, first_seq)
        table = bytearray(range(256))
        for cid, name in enumerate(t.types):
            tid = self.type_ids.get(name)
            table[cid] = type_id(name, self.type_ids, res.types) if tid is None else tid
        extend_offsets(res, array("Q", map(base.__add__, t.rec_start)))
        res.rec_ends.update({r + rec0: end + base for r, end in t.rec_ends.items()})
        res.text_end = base + t.text_end
        shift = nev0 - index_base
        res.row_rec.extend(array("I", map(rec0.__add__, t.row_rec)) if rec0 else t.row_rec)
        res.row_after.extend(array("I", map(shift.__add__, t.row_after)) if shift else t.row_after)
        res.rec_type.frombytes(t.rec_type.tobytes().translate(table))
        for g in t.gaps:
            g.index += shift
            g.line += rec0 + skip0
        room = max(0, MAX_GAPS - len(res.gaps))
        res.gaps.extend(t.gaps[:room])
        res.gaps_dropped += t.gaps_dropped + max(0, len(t.gaps) - room)
        res.seq_shift.extend((i + shift, d - shift) for i, d in t.seq_shift)
        for name, u in t.unknown.items():
            mine = res.unknown.get(name)
            if mine is None:
                u.first_index += shift
                res.unknown[name] = u
            else:
                mine.count += u.count
                mine.ignorable = mine.ignorable and u.ignorable
        res.legacy.update(t.legacy)
        for p in t.refusals.first.values():  # the first problem of each stage stays the first
            p.index += shift
            res.refusals.note(p)
        place0 = len(res.surface_seqs)
        res.replacements.extend((place + place0, index + shift, *rest) for place, index, *rest in t.replacements)
        extend_seqs(res, t.surface_seqs)
        start = len(res.facts)
        if shift:
            res.facts.extend([(kind, i + shift, seq, d) for kind, i, seq, d in facts])
        else:  # the other guessed the indices right (the usual case): no Python loop over the facts
            res.facts.extend(facts)
        join_tail_runs(res.facts, start, self.clock, other.clock, shift)  # a run the segment boundary cut
        res.usage_calls.merge(calls)
        if res.context is not None:
            res.context.merge(context, shift)
        if res.first_issue is None and t.first_issue is not None:  # (a boundary gap was noted above)
            kind, r, offset, line, detail = t.first_issue
            res.first_issue = (kind, r + rec0, offset + base if offset >= 0 else -1, line + rec0 + skip0, detail)
        res.envelope_issues.extend(t.envelope_issues[:max(0, 50 - len(res.envelope_issues))])
        res.lenient_records += t.lenient_records
        self.expected = other.expected  # a slice holds no skipped line (split/helper.py): no skip_* to shift
        self.facts_kept += other.facts_kept
        if self.bounded:  # the whole read so far, as a linear read checks it
            if res.gaps_dropped:
                self._check_gaps(len(res.rec_start))
            if self.facts_kept > self.max_facts:
                self._check_facts(res.event_end())

    def note_gap(self, rec: int, index: int, expected: int, found: Any) -> int:
        """Record a seq mismatch; resynchronise on the file's seq. Returns the new expectation."""
        res = self.res
        line = self.line_no(rec)
        if isinstance(found, float) and found.is_integer():
            found = int(found)
        if res.first_issue is None:
            self._note_issue("gap", rec, -1, line, f"expected {expected}, got {js_text(found)}")
        bad = not isinstance(found, int) or isinstance(found, bool) or found < 0
        if len(res.gaps) < MAX_GAPS:
            res.gaps.append(SeqGap(expected, -1, line, index, f"seq is {spelled(found)}, not a non-negative integer")
                            if bad else SeqGap(expected, found, line, index, _gap_cause(expected, found)))
        else:
            res.gaps_dropped += 1
            if self.bounded:
                self._check_gaps(rec + 1)
        if bad:
            return expected
        res.seq_shift.append((index, found - index))
        return found

    def _plan(self, etype: str) -> tuple:
        """(type id, packed-row spec, known type, legacy candidate, fact extractor, the type's one string):
        one lookup per event. Facts share that string: one object per type, not one per fact, makes
        the tail helper's facts 11% smaller to send and a third faster to unmarshal (marshal refers
        back to an object it has written)."""
        row = PACKED_ROWS.get(etype)
        tid = self.type_ids.get(etype)
        if tid is None and row is None:  # a row's members are chunk events: the row type gets no id
            tid = type_id(etype, self.type_ids, self.res.types)
        plan = (tid, row, etype in KNOWN_EVENT_TYPES or etype in LEGACY_TYPES,
                _LEGACY_KIND.get(etype, _OTHER) if etype in LEGACY_CANDIDATES else 0, FACT_EXTRACTORS.get(etype),
                sys.intern(etype))
        self.plans[etype] = plan
        return plan

    def _row_members(self, obj: dict, row: tuple[str, str], rec: int, k: int) -> tuple[int, int | None]:
        """Member count of a packed row, and the largest of its well-formed 'dt' (None if not known
        here): the clock needs it too (ChunkClock.row). A malformed row is reported (dsh calls it
        corruption)."""
        d = obj.get("data")
        if type(d) is dict:  # fast path: the checks below, done with C-level passes
            members, dt = d.get(row[1]), d.get("dt")
            if (type(members) is list and type(dt) is list and len(dt) == len(members) - 1
                    and ROW_KEYS.issuperset(obj)):
                try:
                    "".join(members)  # TypeError unless every member is a str
                except TypeError:
                    pass
                else:
                    if not dt:
                        return len(members), None
                    if list(map(type, dt)).count(int) == len(dt):  # exact ints only: no bool
                        top = max(dt)
                        if -MAX_SAFE <= min(dt) and top <= MAX_SAFE:
                            return len(members), top
        return self._row_checked(obj, row, rec, k), None

    def _row_checked(self, obj: dict, row: tuple[str, str], rec: int, k: int) -> int:
        res = self.res
        d = obj.get("data")
        members = d.get(row[1]) if isinstance(d, dict) else None
        m = len(members) if isinstance(members, list) and members else 1
        problem = None
        if not ROW_KEYS.issuperset(obj) or not isinstance(d, dict):
            problem = "unexpected keys"
        elif not isinstance(members, list) or not members or not set(map(type, members)) <= _STR:
            problem = f"{row[1]} is not a non-empty list of strings"
        else:
            dt = d.get("dt")
            if not isinstance(dt, list) or len(dt) != m - 1:
                problem = f"dt has {len(dt) if isinstance(dt, list) else 'no'} entries for {m} members (needs {m - 1})"
            elif dt and (not set(map(type, dt)) <= _INT or min(dt) < -MAX_SAFE or max(dt) > MAX_SAFE):
                problem = "'dt' holds a non-integer or out-of-range value"
        if problem is not None:
            res.malformed_rows += 1
            line = self.line_no(rec)
            self._report(k, "malformed-row", f"line {line}: malformed {said(obj.get('type'))} row: {problem}", line)
            if res.first_issue is None:  # dsh's row decode throws: an unparsable committed event
                self._note_issue("unparsable", rec, self._offset(k), line)
        return m

    # -- where dsh's own loader stops (model/reading/damage.py, model/diagnosing/resume.py) -------------
    def _note_issue(self, kind: str, rec: int, offset: int, line: int, detail: str = "") -> None:
        """The first line dsh's scanner stops at: ``kind`` "unparsable" (not JSON, blank, a malformed
        row) or "gap" (an event whose seq is not the next); ``rec``: the record it is or comes before;
        ``offset``: its plaintext offset (-1 for a gap: the record's start, known once the window is
        indexed); ``line``: its physical line. Only the first is kept (dsh's message names it)."""
        if self.res.first_issue is None:
            self.res.first_issue = (kind, rec, offset, line, detail)

    def _first_bad_line(self, obj: Any, rec: int, k: int, line: int, expected: int) -> None:
        """A line that is no dsh record here, as dsh's scanner sees it: JSON.parse fails (unparsable),
        or a value with no seq, or a seq that is not the next (a gap); an object with the next seq is an
        event to dsh (no issue)."""
        if obj is None:
            self._note_issue("unparsable", rec, self._offset(k), line)
            return
        seq = obj.get("seq") if type(obj) is dict else None
        if seq == expected and type(seq) in (int, float):
            return
        self._note_issue("gap", rec, self._offset(k), line, f"expected {expected}, got {js_text(seq)}")


def js_text(v: Any) -> str:
    """``v`` as a JavaScript template literal shows it (dsh's messages): undefined for an absent seq."""
    if v is None:
        return "undefined"
    if type(v) is bool:
        return "true" if v else "false"
    if type(v) is float:
        return str(int(v)) if v.is_integer() and abs(v) < 1e21 else repr(v)
    return str(v) if type(v) in (int, str) else "[object Object]" if type(v) is dict else str(v)


def max_facts() -> int:
    """The facts limit: $DSH_TUI_MAX_FACTS, else MAX_FACTS."""
    env = os.environ.get(MAX_FACTS_ENV, "").strip()
    return int(env) if env.isdigit() else MAX_FACTS


def _line_starts(lines: list[bytes], base: int) -> list[int]:
    """The offset of each line and, last, of the end of the window (all summed in C)."""
    return list(accumulate(map(add, map(len, lines), repeat(1)), initial=base))


def type_id(name: str, ids: dict[str, int], types: list[str]) -> int:
    """A new event type's id (its place in ``types``, noted in ``ids``); past 254 types, the overflow bucket."""
    if len(types) >= 255:
        return 255  # overflow bucket: the view re-reads the record for its type
    ids[name] = len(types)
    types.append(name)
    return ids[name]
