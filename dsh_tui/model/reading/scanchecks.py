"""What the scan (scan.py) does off its common path: a line that is no record, a seq gap, a malformed
packed row, a problem dsh's own load refuses, and the limits that stop a read whose input is out of
proportion to the index it would cost.

`ScanChecks` is the Scanner's base. Its methods read and note the scanner's state (``res``,
``skipped``, ``bad_lines``, ``expected``, ``bounded``, ``where``, ``facts_kept``, ``max_facts``) and ask it
for a line's offset in the window being read (``_offset``); the hot loop calls them only where a
record is unusual.
"""

from __future__ import annotations

import os
from typing import Any

from .deepvalue import said, spelled
from .restore import RESTORE, VOCABULARY, Problem, envelope_problem, shape_problem, vocabulary_message, vocabulary_order
from .scanresult import SeqGap, extend_offsets, extend_seqs
from .source import Corruption, LogUnreadable
from .vocabulary import MAX_SAFE

ROW_KEYS = frozenset({"type", "seq0", "time0", "data"})
_STR = frozenset({str})
_INT = frozenset({int})
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


def _gap_cause(expected: int, found: int) -> str:
    if found < expected:
        return f"seq {found} repeats or goes back (expected {expected}): duplicated or reordered lines"
    missing = found - expected
    if missing >= 3:
        return (f"{missing} events missing: likely a dropped packed chunk row (rows hold >= 3 deltas) "
                "or lines removed by a tool that skipped an unknown row or event type")
    return f"{missing} event(s) missing: lines removed, or an event type a copying tool dropped"


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


class ScanChecks:
    """The Scanner's handling of what is not the common shape (module docstring)."""

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

    def check_facts(self, events: int) -> None:
        """Refuse a log most of whose events keep a fact, once they pass max_facts (MAX_FACTS)."""
        if self.facts_kept * 4 > events:
            raise LogUnreadable("mostly-facts", (
                f"{self.where}: {self.facts_kept:,} of its first {events:,} events are calls, results, turns or "
                f"messages (dsh's logs are mostly model-stream chunks); past {self.max_facts:,} of them, more than "
                f"a quarter of the events, the diagnosis would cost memory out of proportion to the log: refusing "
                f"to read on (${MAX_FACTS_ENV} raises the count)"))

    def check_gaps(self, records: int) -> None:
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
                self.check_gaps(rec + 1)
        if bad:
            return expected
        res.seq_shift.append((index, found - index))
        return found

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
