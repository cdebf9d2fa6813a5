"""Decode a big zstd log in two forked children from the moment the explorer starts.

The explorer's process spends its first ~0.4 s importing Textual and painting,
and after that a decoding thread fights its event loop for the GIL (measured:
the head decode took 0.7-0.85 s in the explorer against 0.5 s in `check`). So
the CLI splits the file (segments.py) and forks both halves before it imports
Textual; the load worker later only merges them and diagnoses. Whatever goes
wrong (a child fails, is slow or cancelled, the head does not end on the split,
the header is refused) falls back to the ordinary read, which then reports it.
"""

from __future__ import annotations

import marshal
import os
from dataclasses import dataclass
from pathlib import Path

import zstandard

from . import cache, segments
from .forked import ForkedCall
from .header import parse_header
from .scan import Fact
from .gcpause import gc_paused
from .session import IndexState, SessionLog, finish_log, load_session, read_records
from .source import LogUnreadable, RawLog, iter_plain, open_log
from .zstdframes import FrameError, decode_frame, walk_frames


HEAD_SHARE = 0.45  # the head arrives first: the parent merges it and begins the diagnosis while the tail child ends


@dataclass
class HeadIndex:
    raw: RawLog  # the frame bookkeeping of the head segment
    head: IndexState
    facts: bytes  # marshal of (type, index, seq, data) tuples (faster than pickling Fact objects)


def _index_head(raw: RawLog, data: bytes, split: int, limit: int, report) -> HeadIndex:
    """Runs in the child: decode and index the frames before ``split``, header included."""
    chunks = iter_plain(raw, memoryview(data)[:split], limit, progress=lambda done, _total: report(done, split))
    head = read_records(raw, chunks, None, keep_plain=False)
    facts = b""
    if head.scanner is not None:
        res = head.scanner.res
        facts = marshal.dumps([(f.type, f.index, f.seq, f.data) for f in res.facts])
        res.facts = []
    return HeadIndex(raw, head, facts)


def _session_id(data: bytes) -> str | None:
    """The header's session id from frame 1 (the tail child needs it for legacy message ids)."""
    try:
        span = next(walk_frames(memoryview(data)), None)
        if span is None or not span.complete:
            return None
        line = decode_frame(zstandard.ZstdDecompressor(), memoryview(data)[span.start:span.end], 1 << 20)
        return parse_header(line.split(b"\n", 1)[0] or None).session_id
    except (FrameError, zstandard.ZstdError, ValueError):
        return None


class PreDecode:
    """Both halves of a log being indexed in forked children; `load` merges them."""

    def __init__(self, path: Path, raw: RawLog, data: bytes, split: int, limit: int) -> None:
        self.path, self.raw, self.data, self.split, self.limit = path, raw, data, split, limit
        self.head = ForkedCall(_index_head, RawLog(raw.path, raw.size, raw.mtime_ns, "zstd", b""), data, split,
                               limit, progress=True)
        self.tail = segments.TailHelper(raw, data, split, limit, _session_id(data))

    def close(self) -> None:
        self.head.close()
        self.tail.close()

    def load(self, *, lenient: bool = False, cancel=None, progress=None, while_waiting=None) -> SessionLog:
        """The merged index; falls back to `load_session` (the ordinary read) on any doubt."""
        def head_progress(done: int, total: int) -> None:  # the tail child keeps about the same pace
            progress("decode", self.raw.size * done // max(total, 1), self.raw.size)
        try:
            with gc_paused():  # unpickling and merging build many long-lived objects
                head = self.head.collect(cancel, patience=segments.MIN_PATIENCE_S * 6,
                                         on_progress=head_progress if progress is not None else None)
                if isinstance(head, HeadIndex) and head.head.scanner is not None:
                    try:
                        return self._merge(head, lenient, cancel, while_waiting)
                    except segments.SplitMissed:
                        pass
        finally:
            self.close()
        return load_session(self.path, lenient=lenient, cancel=cancel, progress=progress, while_waiting=while_waiting)

    def _merge(self, got: HeadIndex, lenient: bool, cancel, while_waiting) -> SessionLog:
        raw, st = got.raw, got.head
        raw.path = self.path
        scanner = st.scanner
        scanner.cancel = cancel
        scanner.res.facts = [Fact(*t) for t in marshal.loads(got.facts)]
        st.produced = segments.read_tail(raw, scanner, self.tail, (self.data, self.split, self.limit),
                                         st.produced, cancel, while_waiting)
        return finish_log(raw, st, lenient, keep_plain=False)


def start(path: str | os.PathLike, *, max_plain: int | None = None) -> PreDecode | None:
    """Fork the decode of a big zstd log that has no index cache entry; None when not worth it."""
    path = Path(path)
    try:
        if not segments.wanted(os.path.getsize(path)) or (cache.enabled() and cache.entry_path(path).exists()):
            return None
        raw, data, limit = open_log(path, max_plain=max_plain)
    except (OSError, LogUnreadable):
        return None  # the ordinary read says why
    split = segments.choose_split(data, HEAD_SHARE) if raw.encoding == "zstd" else None
    return None if split is None else PreDecode(path, raw, data, split, limit)
