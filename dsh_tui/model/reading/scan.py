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

import sys
from itertools import accumulate, repeat
from operator import add

import orjson

from ..columns.calltable import CallTable
from .chunkclock import R_EVENTS, R_GAP, R_GAP_AT, R_LAST, ChunkClock
from .facts import (CHUNK, FACT_EXTRACTORS, FINISH, LEGACY_CANDIDATES, MESSAGE, finish_fact, is_usage_chunk,
                    note_chunk_usage, note_message_usage)
from .contextcolumns import Columns
from .contextfacts import RECORDERS
from .jsonparse import parse_json
from .legacy import upgrade
from .restore import (LEGACY, UNKNOWN, VOCABULARY, envelope_plain, legacy_problem, vocabulary_message,
                      vocabulary_order)
from .scanchecks import ROW_KEYS, ScanChecks, max_facts
from .scanresult import ScanResult, UnknownType, extend_offsets
from .source import Cancelled
from .vocabulary import KNOWN_EVENT_TYPES, LEGACY_TYPES, MAX_SAFE, PACKED_ROWS, SURFACE_TYPES

ENVELOPE_KEYS = frozenset({"type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp", "ignorable"})
WINDOW = 4 << 20  # plaintext split into lines at once: bounds the lines held (a decoded chunk is ~1 MiB)
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


class Scanner(ScanChecks):
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
        self.clock = ChunkClock()  # the model stream's times: one fact per run of chunk events (chunkclock.py)
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
            self.check_facts(nev)

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
