"""The parent's side of a split read (helper.py): merge the tail helper's slices into the
head's index as if the parent had read on, and take over the far part of the helper's work
when the parent is done first. Whatever cannot be used is read here instead: the index is
always the one a linear read makes.
"""

from __future__ import annotations

import marshal
import time
from array import array
from typing import TYPE_CHECKING, Any, Iterator

from ..chunkclock import join_tail_runs
from ..scan import Scanner, type_id
from .. import scanchecks
from ..scanresult import extend_offsets, extend_seqs
from ..source import LogUnreadable, RawLog, add_frames, iter_plain
from . import helper as split_helper
from .helper import TailHelper, TailIndex, _index_tail, frame_start_after

if TYPE_CHECKING:
    from ..readplan import ScanSink

# Taking over the far part of the child's work: only once this much of the file is left to it. The
# parent leaves the child a share of what is left in proportion to the two's speeds so far, within
# these bounds (a fixed half left the parent waiting ~80 ms for the child on the 936k log).
STEAL_MIN_BYTES = 1 << 20
STEAL_LEAVE = (0.1, 0.9)


def merge_tail(scanner: Scanner, raw: RawLog, tail: TailIndex, base: int, limit: int) -> int:
    """Append the child's index as if ``scanner`` had read on; returns the new plaintext length."""
    total = base + tail.produced
    if total > limit:
        raise LogUnreadable("too-large", f"{raw.path} decompresses to more than {limit:,} bytes; refusing "
                            "(raise --max-plain-size)")
    facts, calls, context = marshal.loads(tail.facts) if type(tail.facts) is bytes else tail.facts
    append_segment(scanner, tail.scanner, base, tail.first_seq, tail.index_base, facts, calls, context)
    add_frames(raw, tail.frame_offsets, map(base.__add__, tail.frame_plain))
    raw.frames = (raw.frames or 0) + tail.frames
    raw.unchecked_frames += tail.unchecked_frames
    if tail.frames:
        raw.frames_end = tail.frames_end
    raw.torn = tail.torn
    raw.corruption.extend(tail.corruption)
    return total


def append_segment(head: Scanner, other: Scanner, base: int, first_seq: int, index_base: int, facts: list,
                   calls: Any, context: tuple) -> None:
    """Append what ``other`` read of a later segment (from plaintext byte ``base`` on, its first seq
    ``first_seq``, its events numbered from ``index_base``; its ``facts``, per-call ``calls`` and
    ``context`` records) to ``head`` as if it had read on."""
    res, t = head.res, other.res
    rec0, nev0, skip0 = len(res.rec_start), res.event_end(), head.skipped
    if head.expected != first_seq:  # the boundary gap, exactly as a linear scan records it
        head.note_gap(rec0, nev0, head.expected, first_seq)
    table = bytearray(range(256))
    for cid, name in enumerate(t.types):
        tid = head.type_ids.get(name)
        table[cid] = type_id(name, head.type_ids, res.types) if tid is None else tid
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
    room = max(0, scanchecks.MAX_GAPS - len(res.gaps))  # (read at the call: a test lowers it)
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
    join_tail_runs(res.facts, start, head.clock, other.clock, shift)  # a run the segment boundary cut
    res.usage_calls.merge(calls)
    if res.context is not None:
        res.context.merge(context, shift)
    if res.first_issue is None and t.first_issue is not None:  # (a boundary gap was noted above)
        kind, r, offset, line, detail = t.first_issue
        res.first_issue = (kind, r + rec0, offset + base if offset >= 0 else -1, line + rec0 + skip0, detail)
    res.envelope_issues.extend(t.envelope_issues[:max(0, 50 - len(res.envelope_issues))])
    res.lenient_records += t.lenient_records
    head.expected = other.expected  # a slice holds no skipped line (split/helper.py): no skip_* to shift
    head.facts_kept += other.facts_kept
    if head.bounded:  # the whole read so far, as a linear read checks it
        if res.gaps_dropped:
            head.check_gaps(len(res.rec_start))
        if head.facts_kept > head.max_facts:
            head.check_facts(res.event_end())


def _take_over(helper: TailHelper, raw: RawLog, data: bytes, split: int, limit: int,
               session_id: str | None, head_rate: float) -> TakeOver | None:
    """Take the far part of what the child has left, if it is worth it (STEAL_MIN_BYTES). Both have
    read since the fork (file bytes a second: the head here, the child from the split on), and the
    child is left what it would read in the time the parent takes to read the rest."""
    at = max(helper.ctl[1], split)
    rest = len(data) - at
    if rest < STEAL_MIN_BYTES:
        return None
    child_rate = (at - split) / max(1e-3, time.monotonic() - helper.started)
    low, high = STEAL_LEAVE
    leave = min(high, max(low, child_rate / (child_rate + head_rate) if child_rate + head_rate > 0 else 0.5))
    stop = frame_start_after(data, at + int(rest * leave))
    return None if stop is None else TakeOver(helper, raw, data, stop, limit, session_id)


class TakeOver:
    """The frames from ``stop`` on, indexed here as the child would have (slices to merge after the
    child's, which is asked to stop there), a slice at a time between merges of the child's."""

    def __init__(self, helper: TailHelper, raw: RawLog, data: bytes, stop: int, limit: int,
                 session_id: str | None) -> None:
        helper.ctl[0] = self.stop = stop
        self.slices: list[TailIndex | None] = []
        self._reading: Iterator[TailIndex | None] | None = _index_tail(raw, data, stop, limit, session_id,
                                                                       packed=False)

    def read_while(self, idle) -> None:
        while self._reading is not None and idle():
            self._read_one()

    def finish(self) -> list[TailIndex | None]:
        while self._reading is not None:
            self._read_one()
        return self.slices

    def _read_one(self) -> None:
        part = next(self._reading, self)  # self: the end
        if part is self:
            self._reading = None
        else:
            self.slices.append(part)


class SplitMissed(Exception):
    """The head segment did not end on the frame boundary chosen for the split."""


def read_tail(raw: RawLog, scanner: Scanner, helper: TailHelper | None, tail: tuple[bytes, int, int],
              produced: int, cancel, sink: ScanSink | None = None) -> int:
    """Append the tail segment's index (the helper's slices, else read here); returns the plaintext length.

    ``sink.progress(scanner)`` runs once the head is indexed and after each slice merged but the
    last (the caller's use of an idle moment: the diagnosis advances on the facts so far). With
    ``helper.steal``, the first time the child has no slice ready the parent may take over the far
    part of its work (`_take_over`), read between merges of the child's slices."""
    data, split, limit = tail
    head_rate = split / max(1e-3, time.monotonic() - helper.started) if helper is not None else 0.0  # bytes/s
    if raw.torn is not None:
        raise SplitMissed()
    if raw.corruption:  # the linear read stops at the first bad frame: nothing after it counts
        return produced
    if raw.frames_end != split:
        raise SplitMissed()
    if helper is not None and scanner.projected is not False:
        helper.close()  # the child assumed a seq-carrying log: its index cannot be merged
    elif helper is not None:
        taken = None  # the far part of the child's work, once the parent has taken it over
        while True:
            if sink is not None:
                sink.progress(scanner)
            if taken is None and helper.steal and not helper.ready():
                taken = _take_over(helper, raw, data, split, limit, scanner.session_id, head_rate)
            if taken is not None:  # read that part while the child has nothing to merge
                taken.read_while(lambda: not helper.ready() and not (cancel is not None and cancel.is_set()))
            # Patience: the child has about as much to do as the head that just finished here.
            piece = helper.next_slice(cancel, max(split_helper.MIN_PATIENCE_S, 4 * (time.monotonic() - helper.started)))
            if piece is None:
                break  # read on from the end of the slices merged so far
            produced = merge_tail(scanner, raw, piece, produced, limit)
            if piece.final:
                if not piece.stopped:
                    return produced
                # The child stopped where asked (or, had it gone past that point, where it saw the
                # request: the slices read here do not follow on then, and are dropped).
                if taken is not None and taken.stop == raw.frames_end:
                    for k, part in enumerate(taken.finish()):
                        if part is None:
                            break
                        if k and sink is not None:  # (the facts a slice at a time, not all at the end)
                            sink.progress(scanner)
                        produced = merge_tail(scanner, raw, part, produced, limit)
                        if part.final:
                            return produced
                break
    for chunk in iter_plain(raw, data, limit, start=raw.frames_end, produced=produced, cancel=cancel):
        scanner.feed(chunk, produced)
        produced += len(chunk)
    return produced
