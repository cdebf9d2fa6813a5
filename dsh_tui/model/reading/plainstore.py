"""Where a session's plaintext lives: in memory, or decoded from its file on demand.

A log opened from the index cache never decompresses the whole file: a record
is read by decoding only the zstd frame that holds it (frames end on record
boundaries), or by one pread for plain JSONL. Whole-text operations (search)
materialise the plaintext once, lazily.

A frame is decoded to no more than the plaintext the index says it holds: a
file changed under a view (a replaced log, a crafted swap) raises ZstdError
instead of decoding whatever it now claims.
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


class MemoryStore:
    def __init__(self, plain: bytes | bytearray) -> None:
        self.plain = plain

    def __len__(self) -> int:
        return len(self.plain)

    def slice(self, start: int, end: int) -> bytes:
        # A short-lived view: a held one would stop a followed log's buffer from growing.
        with memoryview(self.plain) as view:
            return bytes(view[start:end])

    def full(self) -> bytes | bytearray:
        return self.plain


class _FileBacked:
    def __init__(self, path: Path, length: int) -> None:
        self.path = path
        self.length = length
        self._full: bytes | bytearray | None = None

    def __len__(self) -> int:
        return self.length

    def _pread(self, size: int, offset: int) -> bytes:
        fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            return os.pread(fd, size, offset)
        finally:
            os.close(fd)


class FileStore(_FileBacked):
    """Plain JSONL: plaintext offsets are file offsets."""

    def slice(self, start: int, end: int) -> bytes:
        return self._pread(end - start, start) if self._full is None else bytes(self._full[start:end])

    def full(self) -> bytes | bytearray:
        if self._full is None:
            self._full = self._pread(self.length, 0)
        return self._full


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
        plain = decode_frame(self._dctx, frame, MAX_FRAME_PLAIN if torn else size)
        if torn:
            plain = plain[:plain.rfind(b"\n") + 1]
        if len(plain) != size:
            raise zstandard.ZstdError(f"frame at byte {start} of {self.path} decodes to {len(plain):,} bytes, not the "
                                      f"{size:,} indexed: the file changed since it was read")
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
        if len(self._cache) > 64:
            self._cache.popitem(last=False)
        return plain

    def slice(self, start: int, end: int) -> bytes:
        if self._full is not None:
            return bytes(self._full[start:end])
        k = max(0, bisect.bisect_right(self.plain_at, start) - 1)
        parts = []
        while k < len(self.offsets) and self.plain_at[k] < end:
            base = self.plain_at[k]
            frame = self._frame(k)
            parts.append(frame[max(0, start - base):max(0, end - base)])
            k += 1
        return b"".join(parts)

    def full(self) -> bytes | bytearray:
        with self._lock:
            return self._full_locked()

    def _full_locked(self) -> bytes | bytearray:
        if self._full is None:
            data = memoryview(self._pread(self.file_size, 0))  # one read, then frame by frame
            out = bytearray()
            for k in range(len(self.offsets)):
                out += self._decode(k, data[self.offsets[k]:self._frame_end(k)])
            self._full = out
        return self._full
