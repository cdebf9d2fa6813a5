"""Index the second half of a big zstd log in a forked helper process (forked.py).

Per-record Python work, not decompression, bounds a single-process decode
(threads only contend for the GIL). zstd frames end on record boundaries, so
the file splits at a frame boundary into two segments indexed independently:
the parent reads the head, a forked child the tail, and the parent appends the
child's index as if it had scanned on. The child sends its tail in slices as it
goes, so the parent merges and diagnoses the first slices while the child is
still reading the last. When the parent has read its head and merged every
slice sent so far while the child still has a long way to go, it can take the
far part of what is left (merge.py): the child stops where that part begins,
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
from array import array
from typing import Iterator

from msgspec import Struct
import orjson

from ..forked import ForkedCall, can_fork
from ..header import parse_header
from ..scan import Scanner
from ..filewindow import FileBytes
from ..source import DECODE_CHUNK, LogUnreadable, RawLog, iter_plain, open_log
from ..frames import ZSTD_MAGIC, FrameError, walk_frames

MIN_FILE_BYTES = 4 << 20  # below this a fork costs more than it saves
# The parent also merges the child's slices and runs the diagnosis, so the child reads more than half
# (check: 0.45 beat 0.55 by ~80 ms in alternating runs). The explorer's decode thread also shares its
# GIL with Textual, so its child takes more still.
HEAD_SHARE = 0.45
# check's helper, whose far part the parent may take over (merge.py): with that, 0.36-0.52 were
# within the noise of each other in alternating runs (the take-over evens out a share off the mark).
STEAL_HEAD_SHARE = 0.4
EARLY_HEAD_SHARE = 0.3  # an early helper (TailHelper.early) starts ~0.3 s sooner: it takes more still
# The explorer's early helper yields to the tail probe and Textual's import, which decide when the
# first paint comes. 5, not 10: in alternating runs the verdict row came ~50-90 ms sooner (median)
# with the first paint in tmux unchanged (265 vs 268 ms); 0 made that paint ~20 ms later.
EARLY_NICE = 5
MIN_PATIENCE_S = 10.0  # at least this long for the child once the head is read (merge.py too)
INDEX_BASE_MAX = 3 << 30  # a slice's first event index stays below this: row_after is 32-bit
SLICE_PLAIN_BYTES = 8 << 20  # the child sends its index every this many plaintext bytes
TAIL_CHUNK_BYTES = DECODE_CHUNK  # plaintext the child decodes before indexing it (slices end on these)
# The last slice is cut short: what the parent does with it (merge, pair) comes after the child has
# finished, while the earlier slices are merged as the child reads on. A slice also ends once the
# undecoded rest is this part of the file, so the last one is ~1 MiB of plaintext, not up to 8.
LAST_SLICE_SHARE = 0.02
SPLIT_WINDOW = 1 << 20  # file bytes a split candidate's frame must fit in
ENV = "DSH_TUI_SEGMENTS"  # "0" turns the helper off (benchmarks, debugging)


def wanted(size: int) -> bool:
    """Whether a file of ``size`` bytes is worth a helper, and this process may fork one now."""
    return _worth_it(size) and can_fork()


def _worth_it(size: int) -> bool:
    return size >= MIN_FILE_BYTES and os.environ.get(ENV, "1") != "0"


def choose_split(data: FileBytes | bytes, share: float | None = None) -> int | None:
    """A file offset near ``share`` of the file (HEAD_SHARE) where a complete frame starts, or None."""
    return frame_start_after(data, int(len(data) * (HEAD_SHARE if share is None else share)))


def _read(data: FileBytes | bytes, offset: int, n: int) -> bytes:
    return data.read(offset, n) if isinstance(data, FileBytes) else bytes(data[offset:offset + n])


def frame_start_after(data: FileBytes | bytes, at: int) -> int | None:
    """The first offset from ``at`` where a complete frame seems to start, or None.

    A magic number can occur inside compressed bytes by chance, so a candidate
    must parse as a whole frame (within one window of the file) followed by
    another frame or the end of file. The parent still verifies the split when
    it reaches it.
    """
    n = len(data)
    pos = data.find(ZSTD_MAGIC, at)
    while 0 < pos < n:
        window = _read(data, pos, SPLIT_WINDOW)
        try:
            span = next(walk_frames(memoryview(window)), None)
        except FrameError:
            span = None
        if span is not None and span.complete:
            end = pos + span.end
            if end == n or _read(data, end, 4) == ZSTD_MAGIC:
                return pos
        pos = data.find(ZSTD_MAGIC, pos + 1)
    return None


class TailIndex(Struct):
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
    # The slice's (facts, usage_calls), plain tuples: marshalled in the child (3x faster than pickling),
    # as they are where the parent indexed the slice itself (merge.py: nothing to send).
    facts: bytes | tuple = b""
    final: bool = True  # the last slice of the tail
    index_base: int = 0  # where the child's event indices start (its scanner's index_base)
    stopped: bool = False  # the last slice ends where the parent asked the child to stop, not at the end
    unchecked_frames: int = 0  # complete frames of the slice without a checksum (RawLog.unchecked_frames)


def control() -> memoryview:
    """Two int64s shared with a forked child: where it must stop (no frame from there on is read;
    see iter_plain), and the file offset up to which it has indexed the frames (its decoding runs
    up to a chunk ahead: the parent weighs what is left to the child from what it has indexed)."""
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
                ctl: memoryview | None = None, *, packed: bool = True) -> Iterator[TailIndex | None]:
    """Runs in the child: decode and index the frames from ``split`` on, yielding a slice of the
    index about every SLICE_PLAIN_BYTES; None (and nothing after it) where the parent must read on
    itself. A slice is held until the next one begins, so the last one sent is the one marked final.
    ``ctl``: see `control` (the parent may ask the child to stop early). ``packed``: the facts
    marshalled for the pipe (False where the slices stay in this process)."""
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
            # Event indices as the parent will most likely need them: a log's index equals its seq
            # until a gap, so this slice's first event is probably event `first` (the merge checks,
            # and shifts if not). Bounded so row_after (32-bit) cannot overflow in a slice.
            scanner = Scanner.segment(session_id, first, first if first < INDEX_BASE_MAX else 0)
        scanner.feed(chunk, produced)
        if scanner.skipped or scanner.res.corruption:  # unusable (see _slice): the parent reads on from here
            yield None
            return
        produced += len(chunk)
        if ctl is not None:
            ctl[1] = part.frames_end
        near_end = len(data) - part.frames_end <= last_part
        if produced >= SLICE_PLAIN_BYTES or (near_end and not last_cut):
            held = _slice(part, scanner, first, produced, frames0, packed)
            if held is None:
                yield None
                return
            scanner, produced, frames0 = None, 0, len(part.frame_offsets)
            last_cut = near_end
    if scanner is not None:
        held = _slice(part, scanner, first, produced, frames0, packed)
    if held is not None:  # the last slice: it carries how the file ends
        held.final, held.torn, held.corruption = True, part.torn, part.corruption
        # Short of the end with nothing torn or corrupt: only a stop asked for ends the frames there.
        held.stopped = part.frames_end < len(data) and part.torn is None and not part.corruption
        if part.torn is not None:
            held.frames -= 1  # the torn frame has an entry but is not a complete frame
    yield held


def _slice(part: RawLog, scanner: Scanner, first: int, produced: int, frames0: int,
           packed: bool = True) -> TailIndex | None:
    """The index of the frames from ``frames0`` on (a slice of the tail segment), or None if unusable:
    corrupt, projected, or holding lines that are not records (whether those make the log "mostly
    not records" depends on the counts before the slice, which only the parent knows: scan._skip)."""
    if scanner.res.corruption or scanner.projected is not False or scanner.skipped:
        return None
    facts = scanner.take_facts()
    if packed:  # the objects are freed here: kept to the child's exit, they held ~60% of its peak
        facts = marshal.dumps(facts)
    frame_plain = part.frame_plain[frames0:]
    base = frame_plain[0] if frame_plain else 0
    unchecked, part.unchecked_frames = part.unchecked_frames, 0  # the next slice counts its own
    return TailIndex(scanner, first, produced, len(part.frame_offsets) - frames0, part.frame_offsets[frames0:],
                     array("Q", (x - base for x in frame_plain)), part.frames_end, None, [], facts, final=False,
                     index_base=scanner.index_base, unchecked_frames=unchecked)


class TailPlan(Struct):
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
        raw, data, limit = open_log(path, max_plain=max_plain)  # a child: it leaves through os._exit (closes it)
    except LogUnreadable:
        yield None
        return
    # The early helper (a child, its writer thread running) forks nothing itself: only the size counts.
    split = choose_split(data, share) if raw.encoding == "zstd" and _worth_it(len(data)) else None
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
    ``steal``: the parent may take over the far part of the child's work (merge.py)."""

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
