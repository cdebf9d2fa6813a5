"""The parent's side of a split read (helper.py): merge the tail helper's slices into the
head's index as if the parent had read on, and take over the far part of the helper's work
when the parent is done first. Whatever cannot be used is read here instead: the index is
always the one a linear read makes.
"""

from __future__ import annotations

import marshal
import time
from typing import TYPE_CHECKING, Iterator

from ..scan import Scanner
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
    scanner.merge(tail.scanner, base, tail.first_seq, tail.index_base, facts, calls, context)
    add_frames(raw, tail.frame_offsets, map(base.__add__, tail.frame_plain))
    raw.frames = (raw.frames or 0) + tail.frames
    raw.unchecked_frames += tail.unchecked_frames
    if tail.frames:
        raw.frames_end = tail.frames_end
    raw.torn = tail.torn
    raw.corruption.extend(tail.corruption)
    return total


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
