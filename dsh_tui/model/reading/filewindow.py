"""A log file read a window at a time, never held whole.

`FileBytes` is the file as it was when opened: its size then is where every read stops, so a
log that grows while it is read is read to a consistent end, and one that shrinks under us reads
short (the walk ends there, as at a torn tail). Reads are `os.pread` (no shared offset: a forked
tail helper reads the same descriptor) and never `mmap` (a file truncated under a mapping kills
the process with SIGBUS).

`frames` walks the zstd frames from any frame boundary with one window of WINDOW bytes at a time
(a frame larger than a window is read whole, once: its compressed size is bounded by what it may
decode to, see `frames.MAX_FRAME_PLAIN`); `lines` cuts a JSONL file into chunks that end on a
newline, a line longer than a window read in one piece of its own size.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from .frames import BLOCK_MAX, MAX_FRAME_PLAIN, FrameError, FrameSpan, walk_frames

WINDOW = 8 << 20  # file bytes read at once
# The most one frame's bytes may take in the file: a frame past it decodes past MAX_FRAME_PLAIN
# (raw blocks are the worst a block can be stored as: its size plus a 3-byte header).
MAX_FRAME_BYTES = MAX_FRAME_PLAIN + (MAX_FRAME_PLAIN // BLOCK_MAX + 1) * 3 + 32


class FileBytes:
    """A regular file's first ``size`` bytes, read on demand (see the module's doc)."""

    def __init__(self, fd: int, size: int, path: Path) -> None:
        self.fd, self.size, self.path = fd, size, path

    def __len__(self) -> int:
        return self.size

    def read(self, offset: int, n: int) -> bytes:
        """Up to ``n`` bytes at ``offset``, never past ``size`` (short only if the file shrank)."""
        n = max(0, min(n, self.size - offset))
        parts, got = [], 0
        while got < n:
            piece = os.pread(self.fd, n - got, offset + got)
            if not piece:
                break
            parts.append(piece)
            got += len(piece)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def find(self, needle: bytes, start: int) -> int:
        """The first offset from ``start`` where ``needle`` is, or -1 (window by window)."""
        overlap = len(needle) - 1
        pos = start
        while pos < self.size:
            buf = self.read(pos, WINDOW + overlap)
            k = buf.find(needle)
            if k >= 0:
                return pos + k
            if len(buf) < WINDOW + overlap:
                return -1
            pos += WINDOW
        return -1

    def frames(self, start: int = 0) -> Iterator[tuple[FrameSpan, memoryview]]:
        """Every frame from ``start`` (a frame boundary) to ``size``: its span (file offsets) and
        its bytes (valid until the next frame is asked for). The last may be incomplete (torn).
        Raises FrameError at the first invalid frame, as `walk_frames` does."""
        pos, want = start, WINDOW
        while pos < self.size:
            buf = self.read(pos, want)
            if not buf:
                return  # the file shrank under us: it ends here
            at_end = len(buf) < want or pos + len(buf) >= self.size
            base, view = pos, memoryview(buf)
            for span in walk_frames(view, base):
                if not span.complete and not at_end:
                    break  # the frame goes on past this window: read again from its start
                frame = view[span.start:span.end]
                span.start += base  # the span made for this frame, shifted to file offsets (35k in a big log)
                span.end += base
                yield span, frame
                if not span.complete:
                    return
                pos = span.end
            else:
                if at_end:
                    return
                want = WINDOW
                continue
            if pos > base:
                want = WINDOW
                continue
            if want >= MAX_FRAME_BYTES:  # one frame bigger than any frame within the bound may be
                raise FrameError(pos, "frame-too-large",
                                 f"the zstd frame at byte {pos:,} takes more than {MAX_FRAME_BYTES >> 20} MiB of "
                                 "file; dsh writes frames of a few KB; refusing (a decompression bomb?)")
            want *= 2  # a frame bigger than the window: read it whole

    def lines(self, start: int = 0) -> Iterator[tuple[int, bytes]]:
        """(offset, chunk) of whole lines from ``start``, each chunk ending on a newline; what
        follows the last newline (a partial line) is not yielded: `last_newline_end` says where."""
        pos = start
        while pos < self.size:
            buf = self.read(pos, WINDOW)
            if not buf:
                return
            cut = buf.rfind(b"\n")
            if cut >= 0:
                yield pos, buf if cut == len(buf) - 1 else buf[:cut + 1]
                pos += cut + 1
                continue
            nl = self.find(b"\n", pos + len(buf))  # a line longer than a window: read it in one piece
            if nl < 0:
                return
            yield pos, self.read(pos, nl + 1 - pos)
            pos = nl + 1


def open_file(path: Path) -> tuple[FileBytes, os.stat_result]:
    """Open ``path`` read-only without blocking (a FIFO swapped in after a stat must not hang)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    return FileBytes(fd, st.st_size, path), st

