"""What one pass over a log's plaintext yields (scan.py's Scanner): the index of every record and event,
the seq gaps, the unknown and legacy types, the facts the diagnosis reads, and what was refused or
skipped. Plain data: the index cache keeps it (cachecodec.py), the split read appends one to another
(split/merge.py's `append_segment`)."""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import compress
from typing import Collection, Iterator

from msgspec import Struct, field

from ..columns.calltable import CallTable
from ..columns.offsets import Offsets
from .contextcolumns import Columns
from .facts import Fact
from .restore import Refusals
from .source import Corruption

class SeqGap(Struct):
    expected: int
    found: int
    line: int
    index: int  # event index where the file's seq stops matching
    cause: str

    def as_dict(self) -> dict:
        return {"expected": self.expected, "found": self.found, "line": self.line, "cause": self.cause}


class UnknownType(Struct):
    type: str
    count: int = 0
    ignorable: bool = True  # True only if every occurrence is ignorable:true
    first_index: int = -1
    first_seq: int = -1

    def as_dict(self) -> dict:
        return {"type": self.type, "count": self.count, "ignorable": self.ignorable, "first_seq": self.first_seq}


class ScanResult(Struct):
    body_start: int
    # uint32 while they fit (`extend_offsets`); ~2 bytes each once the explorer keeps the log (an
    # `Offsets`: opening/target.py's keep_for_exploring). Searched by `record_at`.
    rec_start: array = field(default_factory=lambda: array("I"))
    # A record ends at the newline before the next record (or before text_end), or where the run of
    # skipped lines after it starts (skip_at); an end per record cost ~3% of the read, and as much
    # again to shift when the tail helper's index is merged. Listed here: an unterminated last line.
    rec_ends: dict[int, int] = field(default_factory=dict)
    # Runs of lines that are not records (blank or bad), one entry per run whatever its length: the
    # record the run comes before, the lines skipped before that record in all, and the offset of
    # the run's first line. skip_rec is strictly increasing.
    skip_rec: array = field(default_factory=lambda: array("Q"))
    skip_lines: array = field(default_factory=lambda: array("Q"))
    skip_at: array = field(default_factory=lambda: array("Q"))
    text_end: int = 0  # the offset after the last line read
    # The records holding more than one event (packed rows), ascending, and for each the index of the
    # event after its last member; every other record holds one event (`first_event`). An array of
    # each record's first event cost 4 bytes and an append a record (~9 MB on the benchmark's x11 file).
    row_rec: array = field(default_factory=lambda: array("I"))
    row_after: array = field(default_factory=lambda: array("I"))
    first_base: int = 0  # record 0's first event (a tail segment's index_base: split/helper.py)
    # One byte a record: its type's id in ``types`` (255: a type past the 255th, read from its record).
    # A packed row's members are all model-stream chunks and take its byte: an event's type is its
    # record's (`type_id`). A byte an event was 9.8 MiB on the benchmark's x11 file (10.3M events in
    # 2.3M records).
    rec_type: array = field(default_factory=lambda: array("B"))
    types: list[str] = field(default_factory=list)
    projected: bool = False
    gaps: list[SeqGap] = field(default_factory=list)  # the first MAX_GAPS (scan.py)
    gaps_dropped: int = 0  # seq gaps past MAX_GAPS, counted only
    seq_shift: list[tuple[int, int]] = field(default_factory=list)  # (from index, seq - index)
    unknown: dict[str, UnknownType] = field(default_factory=dict)
    legacy: Counter = field(default_factory=Counter)
    facts: list[Fact] = field(default_factory=list)  # (type, index, seq, data): facts.py
    # (turn, step) -> (seq, token counts, from a chunk): facts.py
    usage_calls: CallTable = field(default_factory=CallTable)
    corruption: list[Corruption] = field(default_factory=list)  # the first MAX_CORRUPTION
    corruption_dropped: int = 0  # reports past MAX_CORRUPTION, counted only
    envelope_issues: list[str] = field(default_factory=list)
    lenient_records: int = 0
    malformed_rows: int = 0
    # What dsh's load would refuse (restore.py): the first problem of each stage, and the surface for
    # its fold: the seq of every surface event in order, and the replacements among them, each
    # (its place in surface_seqs, index, seq, type, start, end, sourceEventSeqs).
    refusals: Refusals = field(default_factory=Refusals)
    surface_seqs: array = field(default_factory=lambda: array("I"))  # (uint64 from a seq past it: `extend_seqs`)
    replacements: list[tuple] = field(default_factory=list)
    # The first line dsh's own loader stops at (Scanner._note_issue): (kind, record, offset, line,
    # detail), or None. What dsh then does (refuse, or cut the file there on resume): damage.py, resume.py.
    first_issue: tuple | None = None
    # What the context views read of each call, result, message and header (contextfacts.py), as
    # columns (contextcolumns.py); None when the index came from the cache without them (context/
    # then reads the events once).
    context: Columns | None = None

    def end_of(self, r: int) -> int:
        """The offset of record ``r``'s newline (where it would be, for an unterminated last line)."""
        end = self.rec_ends.get(r)
        if end is not None:
            return end
        skips = self.skip_rec
        if skips:  # skipped lines after it: it ends where they start
            k = bisect_left(skips, r + 1)
            if k < len(skips) and skips[k] == r + 1:
                return self.skip_at[k] - 1
        return self.rec_start[r + 1] - 1 if r + 1 < len(self.rec_start) else self.text_end - 1

    def lines_skipped_before(self, r: int) -> int:
        """Blank or bad lines before record ``r`` (its physical line is r + this + 2)."""
        k = bisect_right(self.skip_rec, r) - 1
        return self.skip_lines[k] if k >= 0 else 0

    def _shift(self, k: int) -> int:
        """A record's first event less its number, for a record with ``k`` listed rows before it."""
        return self.first_base if k == 0 else self.row_after[k - 1] - self.row_rec[k - 1] - 1

    def first_event(self, r: int) -> int:
        """The index of record ``r``'s first event."""
        return r + self._shift(bisect_left(self.row_rec, r))

    def record_events(self, r: int) -> tuple[int, int]:
        """Record ``r``'s first event and its number of events."""
        rows = self.row_rec
        k = bisect_left(rows, r)
        first = r + self._shift(k)
        return (first, self.row_after[k] - first) if k < len(rows) and rows[k] == r else (first, 1)

    def spans(self, r: int) -> Iterator[tuple[int, int]]:
        """(first event, the event after its last) of each record from ``r`` on, in order: no search a record."""
        rows, after, n = self.row_rec, self.row_after, len(self.rec_start)
        k = bisect_left(rows, r)
        shift, n_rows = self._shift(k), len(rows)
        while r < n:
            lo = r + shift
            if k < n_rows and rows[k] == r:
                hi = after[k]
                shift = hi - r - 1
                k += 1
            else:
                hi = lo + 1
            yield lo, hi
            r += 1

    def record_of(self, i: int) -> int:
        """The record holding event ``i`` (-1 before the first; the last record past the end). No
        per-event record array: it cost 4 bytes and an append per event."""
        after = self.row_after
        k = bisect_right(after, i)  # the rows wholly before event i
        shift = self._shift(k)
        if k < len(after) and i >= self.row_rec[k] + shift:
            return self.row_rec[k]  # one of row k's members
        r = i - shift
        return -1 if r < 0 else min(r, len(self.rec_start) - 1)

    def record_at(self, offset: int) -> int:
        """The last record starting at or before plaintext ``offset`` (-1: none)."""
        starts = self.rec_start
        return (bisect_right(starts, offset) if type(starts) is array else starts.bisect_right(offset)) - 1

    def event_end(self) -> int:
        """The index after the last event: the event count of a log's own index (``first_base`` 0)."""
        rows = self.row_rec
        if rows:
            return self.row_after[-1] + len(self.rec_type) - 1 - rows[-1]
        return self.first_base + len(self.rec_type)

    def type_id(self, i: int) -> int:
        """Event ``i``'s type id (an index in ``types``; 255: read its record)."""
        if not self.first_base <= i < self.event_end():
            raise IndexError(f"event index {i} out of range")
        return self.rec_type[self.record_of(i)]

    def type_ids_of(self, indices) -> bytes:
        """The type id of each event of ``indices`` (ascending, in range), a byte each: one walk over
        the rows, not a search an event (`type_id`)."""
        rows, after, col = self.row_rec, self.row_after, self.rec_type
        n, k, shift = len(rows), 0, self.first_base
        out = bytearray()
        for i in indices:
            if k < n and i >= after[k]:  # past row k: the rows wholly before i
                k = bisect_right(after, i, k)
                shift = self._shift(k)
            out.append(col[rows[k] if k < n and i >= rows[k] + shift else i - shift])
        return bytes(out)

    def event_types(self) -> bytes:
        """Every event's type id, a byte each in order (a packed row's byte once a member): for a pass
        over all of them. A loop step a packed row: use `events_of` for a few types."""
        col = self.rec_type.tobytes()
        rows = self.row_rec
        if not rows:
            return col
        out, prev, shift = bytearray(), 0, self.first_base
        view, extend = memoryview(col), out.extend
        chunk, runs = col[rows[0]:rows[0] + 1], {}  # (every row is of the chunks' type: `rec_type`)
        for r, after in zip(rows, self.row_after):
            extend(view[prev:r])
            m = after - r - shift
            run = runs.get(m)
            if run is None:
                run = runs[m] = chunk * m
            extend(run)
            prev, shift = r + 1, after - r - 1
        extend(view[prev:])
        return bytes(out)

    def type_counts(self) -> list[int]:
        """Events of each type id, by id (256 counts)."""
        col = self.rec_type.tobytes()
        counts = [0] * 256
        for b in {*range(min(len(self.types), 255)), 255}:  # (the ids in use: a pass over the column each)
            counts[b] = col.count(b)
        if self.row_rec:  # a packed row's members are all of its type (the chunks'): the events past its first
            counts[self.rec_type[self.row_rec[0]]] += self.event_end() - self.first_base - len(col)
        return counts

    def events_of(self, ids: Collection[int]) -> array:
        """The indices of the events whose type id is in ``ids``, ascending (array "I")."""
        table = bytes(b in ids for b in range(256))
        mask = self.rec_type.tobytes().translate(table)
        rows = self.row_rec
        if not rows:
            return array("I", compress(range(self.first_base, self.first_base + len(mask)), mask))
        # The chunks' type (the rows'), or more records than rows: every event's byte (a loop step a row).
        if mask[rows[0]] or mask.count(1) > len(rows):
            types = self.event_types()
            return array("I", compress(range(self.first_base, self.first_base + len(types)), types.translate(table)))
        out, k = array("I"), 0  # a few records, none a row: a search in the rows each
        for r in compress(range(len(mask)), mask):
            k = bisect_left(rows, r, k)
            out.append(r + self._shift(k))
        return out


def extend_offsets(res: ScanResult, offsets: list[int] | array) -> None:
    """Append record start offsets (a list or an array): a uint32 array while they fit (under the
    default 4 GiB plaintext limit they always do: half the bytes of uint64, ~9 MiB on a 10M-event
    log), uint64 from the first that does not."""
    _extend_wide(res, "rec_start", offsets)


def extend_seqs(res: ScanResult, seqs: list[int] | array) -> None:
    """Append surface events' seqs: uint32 while they fit (a seq is at most 2**53), as `extend_offsets`."""
    _extend_wide(res, "surface_seqs", seqs)


def _extend_wide(res: ScanResult, name: str, values: list[int] | array) -> None:
    col = getattr(res, name)
    if type(col) is Offsets:
        col.extend(values)
        return
    try:
        col.extend(values if type(values) is array and values.typecode == col.typecode
                   else array(col.typecode, values))  # (made whole first: all or none)
    except OverflowError:
        col = array("Q", col)
        col.extend(array("Q", values))
        setattr(res, name, col)
