"""Index the second half of a big zstd log in a forked helper process (forked.py).

Per-record Python work, not decompression, bounds a single-process decode
(threads only contend for the GIL). zstd frames end on record boundaries, so
the file splits at a frame boundary into two segments indexed independently:
the parent reads the head, a forked child the tail, and the parent appends the
child's index as if it had scanned on. The child sends its tail in slices as it
goes, so the parent merges and diagnoses the first slices while the child is
still reading the last. When the parent has read its head and merged every
slice sent so far while the child still has a long way to go, it can take the
far part of what is left (`read_tail`): the child stops where that part begins,
and both finish at about the same time whatever each core's speed.

The split is verified, never trusted: a head that does not end exactly on a
complete frame, a head that stops early (corruption), a child that did not stop
where asked, or anything in the tail the merge cannot shift exactly (bad
records, projected logs, an unusable first seq) makes the parent drop what it
cannot use and scan on itself. The result is identical either way.
"""

from __future__ import annotations

import marshal
import mmap
import os
import time
from array import array
from dataclasses import dataclass
from typing import Iterator

import orjson

from .forked import ForkedCall, can_fork, drop_at_exit
from .header import parse_header
from .scan import CHUNK, Scanner, _type_id
from .source import LogUnreadable, RawLog, iter_plain, open_log
from .usage import merge_calls
from .zstdframes import ZSTD_MAGIC, FrameError, walk_frames

MIN_FILE_BYTES = 4 << 20  # below this a fork costs more than it saves
# The parent also merges the child's slices and runs the diagnosis, so the child reads more than half
# (check: 0.45 beat 0.55 by ~80 ms in alternating runs). The explorer's decode thread also shares its
# GIL with Textual, so its child takes more still.
HEAD_SHARE = 0.45
# check's helper, whose far part the parent may take over (read_tail): with that, 0.36-0.45 were
# within noise of each other and ~50-90 ms (median) ahead of 0.45 without it, in alternating runs.
STEAL_HEAD_SHARE = 0.4
UI_HEAD_SHARE = 0.4
EARLY_HEAD_SHARE = 0.3  # an early helper (TailHelper.early) starts ~0.3 s sooner: it takes more still
# The explorer's early helper yields to the tail probe and Textual's import, which decide when the
# first paint comes. 5, not 10: in alternating runs the verdict row came ~50-90 ms sooner (median)
# with the first paint in tmux unchanged (265 vs 268 ms); 0 made that paint ~20 ms later.
EARLY_NICE = 5
INDEX_BASE_MAX = 3 << 30  # a slice's first event index stays below this: rec_first_ev is 32-bit
SLICE_PLAIN_BYTES = 8 << 20  # the child sends its index every this many plaintext bytes
TAIL_CHUNK_BYTES = 1 << 20  # plaintext the child decodes before indexing it (slices end on these)
# The last slice is cut short: what the parent does with it (merge, pair) comes after the child has
# finished, while the earlier slices are merged as the child reads on. A slice also ends once the
# undecoded rest is this part of the file, so the last one is ~1 MiB of plaintext, not up to 8.
LAST_SLICE_SHARE = 0.02
# Taking over the far part of the child's work: only once this much of the file is left to it. The
# parent leaves the child a share of what is left in proportion to the two's speeds so far, within
# these bounds (a fixed half left the parent waiting ~80 ms for the child on the 936k log).
STEAL_MIN_BYTES = 1 << 20
STEAL_LEAVE = (0.1, 0.9)
MIN_PATIENCE_S = 10.0  # at least this long for the child once the head is read
ENV = "DSH_TUI_SEGMENTS"  # "0" turns the helper off (benchmarks, debugging)


def wanted(size: int) -> bool:
    return size >= MIN_FILE_BYTES and can_fork() and os.environ.get(ENV, "1") != "0"


def choose_split(data: bytes, share: float | None = None) -> int | None:
    """A file offset near ``share`` of the file (HEAD_SHARE) where a complete frame starts, or None."""
    return frame_start_after(data, int(len(data) * (HEAD_SHARE if share is None else share)))


def frame_start_after(data: bytes, at: int) -> int | None:
    """The first offset from ``at`` where a complete frame seems to start, or None.

    A magic number can occur inside compressed bytes by chance, so a candidate
    must parse as a whole frame followed by another frame or the end of file.
    The parent still verifies the split when it reaches it.
    """
    n = len(data)
    pos = data.find(ZSTD_MAGIC, at)
    view = memoryview(data)
    while 0 < pos < n:
        try:
            span = next(walk_frames(view[pos:]), None)
        except FrameError:
            span = None
        if span is not None and span.complete:
            end = pos + span.end
            if end == n or data[end:end + 4] == ZSTD_MAGIC:
                return pos
        pos = data.find(ZSTD_MAGIC, pos + 1)
    return None


@dataclass
class TailIndex:
    """What the child sends back: its scanner and the frame bookkeeping of its segment."""
    scanner: Scanner
    first_seq: int
    produced: int  # plaintext bytes of the segment
    frames: int
    frame_offsets: array
    frame_plain: array  # relative to the segment's first plaintext byte
    frames_end: int
    torn: object
    corruption: list
    facts: bytes = b""  # marshal of the slice's (facts, usage_calls) (plain tuples): 3x faster than pickling
    final: bool = True  # the last slice of the tail
    index_base: int = 0  # where the child's event indices start (its scanner's index_base)
    stopped: bool = False  # the last slice ends where the parent asked the child to stop, not at the end


def control() -> memoryview:
    """Two int64s shared with a forked child: where it must stop (no frame from there on is read;
    see iter_plain) and the offset of the next frame it reads."""
    ctl = memoryview(mmap.mmap(-1, 16)).cast("q")  # anonymous and MAP_SHARED: a fork shares it
    ctl[0], ctl[1] = 1 << 62, 0
    return ctl


def _first_seq(chunk: bytes) -> int | None:
    nl = chunk.find(b"\n")
    try:
        obj = orjson.loads(chunk[:nl if nl >= 0 else len(chunk)])
    except orjson.JSONDecodeError:
        return None
    seq = obj.get("seq", obj.get("seq0")) if type(obj) is dict else None
    return seq if type(seq) is int and seq >= 0 else None


def _index_tail(raw: RawLog, data: bytes, split: int, limit: int, session_id: str | None,
                ctl: memoryview | None = None) -> Iterator[TailIndex | None]:
    """Runs in the child: decode and index the frames from ``split`` on, yielding a slice of the
    index about every SLICE_PLAIN_BYTES; None (and nothing after it) where the parent must read on
    itself. A slice is held until the next one begins, so the last one sent is the one marked final.
    ``ctl``: see `control` (the parent may ask the child to stop early)."""
    part = RawLog(raw.path, raw.size, raw.mtime_ns, "zstd", b"", frames=1)  # frames=1: not the header frame
    scanner, first, produced, frames0 = None, -1, 0, 0
    held: TailIndex | None = None
    last_part, last_cut = int(len(data) * LAST_SLICE_SHARE), False
    for chunk in iter_plain(part, data, limit, start=split, produced=0, chunk_bytes=TAIL_CHUNK_BYTES, stop=ctl):
        if scanner is None:
            first = _first_seq(chunk)
            if first is None:
                if held is not None:
                    yield held
                yield None
                return
            if held is not None:
                yield held
                held = None
            scanner = Scanner(0, session_id)
            scanner.projected = False
            scanner.chunk_id = _type_id(CHUNK, scanner.type_ids, scanner.res.types)
            scanner.expected = first
            # Event indices as the parent will most likely need them: a log's index equals its seq
            # until a gap, so this slice's first event is probably event `first` (the merge checks,
            # and shifts if not). Bounded so rec_first_ev (32-bit) cannot overflow in a slice.
            scanner.index_base = first if first < INDEX_BASE_MAX else 0
        scanner.feed(chunk, produced)
        produced += len(chunk)
        near_end = len(data) - part.frames_end <= last_part
        if produced >= SLICE_PLAIN_BYTES or (near_end and not last_cut):
            held = _slice(part, scanner, first, produced, frames0)
            if held is None:
                yield None
                return
            scanner, produced, frames0 = None, 0, len(part.frame_offsets)
            last_cut = near_end
    if scanner is not None:
        held = _slice(part, scanner, first, produced, frames0)
    if held is not None:  # the last slice: it carries how the file ends
        held.final, held.torn, held.corruption = True, part.torn, part.corruption
        # Short of the end with nothing torn or corrupt: only a stop asked for ends the frames there.
        held.stopped = part.frames_end < len(data) and part.torn is None and not part.corruption
        if part.torn is not None:
            held.frames -= 1  # the torn frame has an entry but is not a complete frame
    yield held


def _slice(part: RawLog, scanner: Scanner, first: int, produced: int, frames0: int) -> TailIndex | None:
    """The index of the frames from ``frames0`` on (a slice of the tail segment), or None if unusable."""
    if scanner.res.corruption or scanner.projected is not False:
        return None
    res = scanner.res
    facts = marshal.dumps((res.facts, res.usage_calls))
    drop_at_exit((res.facts, res.usage_calls))
    res.facts, res.usage_calls = [], {}
    frame_plain = part.frame_plain[frames0:]
    base = frame_plain[0] if frame_plain else 0
    return TailIndex(scanner, first, produced, len(part.frame_offsets) - frames0, part.frame_offsets[frames0:],
                     array("Q", (x - base for x in frame_plain)), part.frames_end, None, [], facts, final=False,
                     index_base=scanner.index_base)


@dataclass
class TailPlan:
    """An early helper's first message: the file as it read it, and where it split it."""
    size: int
    mtime_ns: int
    split: int


def _early_tail(path, max_plain: int | None, share: float, nice: int,
                ctl: memoryview) -> Iterator[TailPlan | TailIndex | None]:
    """Runs in a child forked before the caller has read the file (and, for the explorer, before
    it imports Textual): read the file, split it, then stream the tail's slices as `_index_tail`
    does. The explorer's is niced: the tail probe and Textual's import, which decide when the first
    paint comes, keep the CPU they need."""
    if nice:
        os.nice(nice)
    try:
        raw, data, limit = open_log(path, max_plain=max_plain)
    except LogUnreadable:
        yield None
        return
    split = choose_split(data, share) if raw.encoding == "zstd" and wanted(len(data)) else None
    if split is None:
        yield None
        return
    first = next(iter_plain(RawLog(raw.path, raw.size, raw.mtime_ns, "zstd", b""), data, limit), b"")
    nl = first.find(b"\n")  # the header line, as the parent reads it (frame 1 holds it alone)
    session_id = parse_header(first[:nl] if nl >= 0 else first).session_id
    yield TailPlan(raw.size, raw.mtime_ns, split)
    yield from _index_tail(raw, data, split, limit, session_id, ctl)


class TailHelper(ForkedCall):
    """A forked child indexing the tail segment; the parent merges its slices or discards it.
    ``steal``: the parent may take over the far part of the child's work (`read_tail`)."""

    def __init__(self, raw: RawLog, data: bytes, split: int, limit: int, session_id: str | None,
                 *, steal: bool = False) -> None:
        self.ctl, self.steal = control(), steal
        super().__init__(_index_tail, raw, data, split, limit, session_id, self.ctl, stream=True)

    @classmethod
    def early(cls, path, max_plain: int | None = None, share: float | None = None,
              nice: int = EARLY_NICE, *, steal: bool = False) -> TailHelper | None:
        """Start on ``path`` before the caller has read it (see `_early_tail`); None where no helper
        is wanted (a small file, one core, DSH_TUI_SEGMENTS=0) or the file cannot be read."""
        try:
            if not wanted(os.stat(path).st_size):
                return None
        except OSError:
            return None
        helper = cls.__new__(cls)
        helper.ctl, helper.steal = control(), steal
        ForkedCall.__init__(helper, _early_tail, path, max_plain, EARLY_HEAD_SHARE if share is None else share,
                            nice, helper.ctl, stream=True)
        return helper

    def plan(self, cancel=None) -> TailPlan | None:
        """An early helper's `TailPlan` (it has only read the file and a frame: short patience)."""
        result = self.next(cancel, MIN_PATIENCE_S)
        if isinstance(result, TailPlan):
            return result
        self.close()
        return None

    def next_slice(self, cancel=None, patience: float = 30.0) -> TailIndex | None:
        result = self.next(cancel, patience)
        if isinstance(result, TailIndex):
            if result.final:
                self.close(kill=False)
            return result
        self.close()
        return None


def merge_tail(scanner: Scanner, raw: RawLog, tail: TailIndex, base: int, limit: int) -> int:
    """Append the child's index as if ``scanner`` had read on; returns the new plaintext length."""
    res, t = scanner.res, tail.scanner.res
    total = base + tail.produced
    if total > limit:
        raise LogUnreadable("too-large", f"{raw.path} decompresses to more than {limit:,} bytes; refusing "
                            "(raise --max-plain-size)")
    rec0, nev0, skip0 = len(res.rec_start), len(res.ev_type), scanner.skipped
    if scanner.expected != tail.first_seq:  # the boundary gap, exactly as a linear scan records it
        scanner._on_gap(rec0, nev0, scanner.expected, tail.first_seq)
    table = bytearray(range(256))
    for cid, name in enumerate(t.types):
        tid = scanner.type_ids.get(name)
        table[cid] = _type_id(name, scanner.type_ids, res.types) if tid is None else tid
    res.rec_start.extend(array("Q", map(base.__add__, t.rec_start)))
    res.rec_ends.update({r + rec0: end + base for r, end in t.rec_ends.items()})
    res.text_end = base + t.text_end
    shift = nev0 - tail.index_base
    res.rec_first_ev.extend(array("I", map(shift.__add__, t.rec_first_ev)) if shift else t.rec_first_ev)
    res.ev_type.frombytes(t.ev_type.tobytes().translate(table))
    for g in t.gaps:
        g.index += shift
        g.line += rec0 + skip0
    res.gaps.extend(t.gaps[:max(0, 10_000 - len(res.gaps))])
    res.seq_shift.extend((i + shift, d - shift) for i, d in t.seq_shift)
    res.line_shift.extend((r + rec0, s + skip0) for r, s in t.line_shift)
    for name, u in t.unknown.items():
        mine = res.unknown.get(name)
        if mine is None:
            u.first_index += shift
            res.unknown[name] = u
        else:
            mine.count += u.count
            mine.ignorable = mine.ignorable and u.ignorable
    res.legacy.update(t.legacy)
    facts, calls = marshal.loads(tail.facts)
    if shift:
        res.facts.extend([(kind, i + shift, seq, d) for kind, i, seq, d in facts])
    else:  # the child guessed the indices right (the usual case): no Python loop over the facts
        res.facts.extend(facts)
    merge_calls(res.usage_calls, calls)
    res.envelope_issues.extend(t.envelope_issues[:max(0, 50 - len(res.envelope_issues))])
    res.lenient_records += t.lenient_records
    scanner.expected = tail.scanner.expected
    scanner.skipped += tail.scanner.skipped
    raw.frame_offsets.extend(tail.frame_offsets)
    raw.frame_plain.extend(array("Q", map(base.__add__, tail.frame_plain)))
    raw.frames = (raw.frames or 0) + tail.frames
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
        self._reading: Iterator[TailIndex | None] | None = _index_tail(raw, data, stop, limit, session_id)

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
              produced: int, cancel, while_waiting=None) -> int:
    """Append the tail segment's index (the helper's slices, else read here); returns the plaintext length.

    ``while_waiting(scanner)`` runs once the head is indexed and after each slice merged but the
    last (the caller's use of an idle moment: the diagnosis advances on the facts so far)."""
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
            if while_waiting is not None:
                while_waiting(scanner)
            if taken is None and helper.steal and not helper.ready():
                taken = _take_over(helper, raw, data, split, limit, scanner.session_id, head_rate)
            if taken is not None:  # read that part while the child has nothing to merge
                taken.read_while(lambda: not helper.ready())
            # Patience: the child has about as much to do as the head that just finished here.
            piece = helper.next_slice(cancel, max(MIN_PATIENCE_S, 4 * (time.monotonic() - helper.started)))
            if piece is None:
                break  # read on from the end of the slices merged so far
            produced = merge_tail(scanner, raw, piece, produced, limit)
            if piece.final:
                if not piece.stopped:
                    return produced
                # The child stopped where asked (or, had it gone past that point, where it saw the
                # request: the slices read here do not follow on then, and are dropped).
                if taken is not None and taken.stop == raw.frames_end:
                    for part in taken.finish():
                        if part is None:
                            break
                        produced = merge_tail(scanner, raw, part, produced, limit)
                        if part.final:
                            return produced
                break
    for chunk in iter_plain(raw, data, limit, start=raw.frames_end, produced=produced, cancel=cancel):
        scanner.feed(chunk, produced)
        produced += len(chunk)
    return produced
