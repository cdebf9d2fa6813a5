"""Where a session's plaintext lives: in memory (an export ZIP's member), or read back from its
file on demand (every log read from a file).

A record is read by decoding only the zstd frame that holds it (frames end on record
boundaries; a small LRU keeps the last frames), or by one pread for plain JSONL. Nothing
holds the whole text: search reads it a window at a time (search.py).

The file is read again, so it may have changed under us (truncated, replaced): a frame is
decoded to no more than the plaintext the index says it holds, and a read that comes back
short or different raises `LogChanged` (a LogUnreadable: the caller shows a notice and
re-opens) instead of showing whatever the file now holds.
"""

from __future__ import annotations

import bisect
import os
import threading
from array import array
from collections import OrderedDict
from pathlib import Path

import zstandard

from .frames import MAX_FRAME_PLAIN, decode_frame
from .source import LogUnreadable

FRAME_CACHE = 64  # decoded frames kept (a screen of records spans a few)
FRAME_CACHE_BYTES = 32 << 20  # and no more text than this (beside the newest frame, however big)
BULK_FRAMES = 8  # a slice over more frames than this reads their bytes at once (search windows)


class LogChanged(LogUnreadable):
    """The file no longer holds what was indexed (truncated or rewritten under us)."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__("changed", f"{path} changed since it was read ({detail}); re-open it")


class MemoryStore:
    def __init__(self, plain: bytes | bytearray) -> None:
        self.plain = plain

    def __len__(self) -> int:
        return len(self.plain)

    def slice(self, start: int, end: int) -> bytes:
        # A short-lived view: a held one would stop a followed log's buffer from growing.
        with memoryview(self.plain) as view:
            return bytes(view[start:end])



class _FileBacked:
    def __init__(self, path: Path, length: int) -> None:
        self.path = path
        self.length = length

    def __len__(self) -> int:
        return self.length

    def _pread(self, size: int, offset: int) -> bytes:
        """Exactly ``size`` bytes at ``offset``; LogChanged when the file is shorter now."""
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            raise LogChanged(self.path, exc.strerror or str(exc)) from None
        try:
            parts, got = [], 0
            while got < size:
                piece = os.pread(fd, size - got, offset + got)
                if not piece:
                    raise LogChanged(self.path, f"{offset + got:,} bytes where {offset + size:,} were read")
                parts.append(piece)
                got += len(piece)
            return b"".join(parts)
        except OSError as exc:
            raise LogChanged(self.path, exc.strerror or str(exc)) from None
        finally:
            os.close(fd)


class FileStore(_FileBacked):
    """Plain JSONL: plaintext offsets are file offsets."""

    def slice(self, start: int, end: int) -> bytes:
        end = min(end, self.length)
        return self._pread(end - start, start) if end > start else b""


class FrameStore(_FileBacked):
    """zstd: decode the frames a slice touches (a small LRU keeps recent ones)."""

    def __init__(self, path: Path, length: int, frame_offsets: array, frame_plain: array, frames_end: int,
                 torn_offset: int | None, file_size: int) -> None:
        super().__init__(path, length)
        self.offsets = frame_offsets
        self.plain_at = frame_plain
        self.frames_end = frames_end
        self.torn_offset = torn_offset
        self.file_size = file_size
        self._dctx = zstandard.ZstdDecompressor()
        self._cache: OrderedDict[int, bytes] = OrderedDict()
        self._cached = 0  # bytes held in _cache
        # Views and worker threads (search, copy, follow) read concurrently; a decompressor
        # and the frame cache are not thread-safe.
        self._lock = threading.RLock()

    def _frame_end(self, k: int) -> int:
        if k + 1 < len(self.offsets):
            return self.offsets[k + 1]
        return self.file_size if self.torn_offset == self.offsets[k] else self.frames_end

    def _decode(self, k: int, frame: memoryview) -> bytes:
        """Frame ``k``'s plaintext (a torn frame's complete records), no longer than indexed."""
        start = self.offsets[k]
        size = (self.plain_at[k + 1] if k + 1 < len(self.plain_at) else self.length) - self.plain_at[k]
        torn = self.torn_offset == start
        # A torn frame's output goes on past its last record (a partial one), within the frame bound.
        try:
            plain = decode_frame(self._dctx, frame, MAX_FRAME_PLAIN if torn else size)
        except zstandard.ZstdError as exc:
            raise LogChanged(self.path, f"the frame at byte {start:,} does not decode: {exc}") from None
        if torn:
            plain = plain[:plain.rfind(b"\n") + 1]
        if len(plain) != size:
            raise LogChanged(self.path, f"the frame at byte {start:,} decodes to {len(plain):,} bytes, not the "
                             f"{size:,} indexed")
        return plain

    def _frame(self, k: int) -> bytes:
        with self._lock:
            return self._frame_locked(k)

    def _frame_locked(self, k: int) -> bytes:
        hit = self._cache.get(k)
        if hit is not None:
            self._cache.move_to_end(k)
            return hit
        start, end = self.offsets[k], self._frame_end(k)
        plain = self._decode(k, memoryview(self._pread(end - start, start)))
        self._cache[k] = plain
        self._cached += len(plain)
        while len(self._cache) > 1 and (len(self._cache) > FRAME_CACHE or self._cached > FRAME_CACHE_BYTES):
            self._cached -= len(self._cache.popitem(last=False)[1])
        return plain

    def slice(self, start: int, end: int) -> bytes:
        k = max(0, bisect.bisect_right(self.plain_at, start) - 1)
        last = bisect.bisect_left(self.plain_at, end, k) - 1  # the last frame that starts before ``end``
        if last - k >= BULK_FRAMES:
            return self._bulk(k, last, start, end)
        parts = []
        while k < len(self.offsets) and self.plain_at[k] < end:
            base = self.plain_at[k]
            frame = self._frame(k)
            parts.append(frame[max(0, start - base):max(0, end - base)])
            k += 1
        return b"".join(parts)

    def _bulk(self, k: int, last: int, start: int, end: int) -> bytes:
        """Frames ``k``..``last`` (a search window: many small frames) from one read of their
        bytes, decoded in turn and not cached (they would only push the views' frames out)."""
        base_off = self.offsets[k]
        data = memoryview(self._pread(self._frame_end(last) - base_off, base_off))
        parts = []
        with self._lock:
            for j in range(k, last + 1):
                plain = self._decode(j, data[self.offsets[j] - base_off:self._frame_end(j) - base_off])
                base = self.plain_at[j]
                parts.append(plain[max(0, start - base):max(0, end - base)])
        return b"".join(parts)
