"""Read a session log file into plaintext, frame by frame, without ever writing.

Encoding is detected from the magic bytes, not the name. The file is opened
read-only and read up to the size it had when opened, so a log that is still
growing is read to a consistent frame boundary. Every failure becomes a
`LogUnreadable` with a one-line reason (exit 3 in `check`), or a torn tail /
corruption note with everything before it kept.
"""

from __future__ import annotations

import os
import re
import stat
from array import array
from pathlib import Path
from typing import Callable, Iterable, Iterator

from msgspec import Struct, field
import zstandard

from .filewindow import FileBytes, open_file
from .frames import (BLOCK_MAX, CHECK_ABOVE, MAX_FRAME_PLAIN, ZSTD_MAGIC, FrameError, FrameSpan, line_pieces,
                     measure, too_big_message, walk_frames)

DEFAULT_MAX_PLAIN_BYTES = 4 * 1024**3  # the limit's ceiling; a machine with less than 16 GiB gets a quarter of it
HEAD_PROBE = 64 << 10  # the first bytes read to tell the encoding and check the header before anything else
PARTIAL_KEEP = 4096  # bytes of a torn record's readable start kept to show (TornTail.partial)
BOUNDARY_BYTES = 64  # the file's last bytes kept to recognise it when following (RawLog.boundary)
MAX_PLAIN_ENV = "DSH_TUI_MAX_PLAIN_BYTES"
# Plaintext joined into one chunk for the scan. Below memtune's MMAP_THRESHOLD, so a chunk comes from
# the heap, where the one freed before it is reused: at 1 MiB each was a fresh mapping the kernel
# zeroed page by page (~15k page faults on the 936k log; its `check`'s system time halved).
DECODE_CHUNK = 192 << 10

Progress = Callable[[int, int], None]


class LogUnreadable(Exception):
    """The file cannot be read as a session log at all."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Cancelled(Exception):
    """The caller asked the reader to stop (the UI is quitting)."""


class TornTail(Struct):
    offset: int  # byte offset of the torn frame / partial line in the file
    unreadable_bytes: int
    kind: str  # "truncated-frame" | "partial-line"
    recovered_records: int = 0
    # What of the torn part still reads as text: a partial line's bytes, or what a torn frame's
    # complete blocks decode to past its last newline (the start of a lost record), first PARTIAL_KEEP.
    partial: bytes = b""
    lost: bool = True  # records were lost (False: a frame torn in its checksum only, all read)

    def as_dict(self) -> dict:
        return {"offset": self.offset, "unreadable_bytes": self.unreadable_bytes,
                "kind": self.kind, "recovered_records": self.recovered_records, "records_lost": self.lost,
                "partial_text": self.partial.decode("utf-8", "replace")}


class Corruption(Struct):
    offset: int  # byte offset in the file (zstd) or plaintext (jsonl)
    kind: str
    message: str
    line: int | None = None  # physical line number, 1 = header

    def as_dict(self) -> dict:
        return {"offset": self.offset, "kind": self.kind, "message": self.message, "line": self.line}


class RawLog(Struct):
    path: Path
    size: int
    mtime_ns: int
    encoding: str  # "zstd" | "jsonl"
    plain: bytes | bytearray
    frames: int | None = None  # complete frames
    # File and plaintext offset per frame: uint32 while both fit (half the bytes: ~3 MiB on a log of 388k
    # frames), uint64 from the first that does not (`add_frames`).
    frame_offsets: array = field(default_factory=lambda: array("I"))
    frame_plain: array = field(default_factory=lambda: array("I"))
    torn: TornTail | None = None
    corruption: list[Corruption] = field(default_factory=list)
    # Complete frames whose header sets no content checksum: decoded, but nothing verified their
    # bytes (dsh always writes the checksum; a frame without one was made by another tool).
    unchecked_frames: int = 0
    header_frame_ok: bool = True
    frames_end: int = 0  # file offset after the last complete frame
    # The file's identity as read, so live follow can tell a grown file from a replaced one:
    # device and inode, and the last bytes before ``size`` (a same-size or larger replacement
    # differs there even when its size says "grown").
    dev: int = 0
    ino: int = 0
    boundary: bytes = b""
    head: bytes = b""  # the file's first BOUNDARY_BYTES: the header, which another session changes


def max_plain_bytes(explicit: int | None = None) -> int:
    """The plaintext limit: ``explicit``, else $DSH_TUI_MAX_PLAIN_BYTES, else `default_max_plain`."""
    if explicit is not None:
        return explicit
    env = os.environ.get(MAX_PLAIN_ENV, "").strip()
    if env.isdigit():
        return int(env)
    return default_max_plain()


def default_max_plain() -> int:
    """4 GiB, or a quarter of the machine's memory where that is less: the small VMs a crashed agent
    ran on (2-4 GB) must refuse a log before holding it, not be pushed out of memory by it."""
    try:
        ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # no sysconf (not POSIX) or no such name
        return DEFAULT_MAX_PLAIN_BYTES
    return min(DEFAULT_MAX_PLAIN_BYTES, ram // 4) if ram > 0 else DEFAULT_MAX_PLAIN_BYTES


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _stat_regular(path: Path, limit: int) -> os.stat_result:
    """Stat ``path``; refuse anything that could hang or is too big."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise LogUnreadable("not-found", f"no such file: {path}") from None
    except PermissionError:
        raise LogUnreadable("permission-denied", f"permission denied: {path}") from None
    except OSError as exc:
        raise LogUnreadable("os-error", f"cannot stat {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise LogUnreadable("is-directory", f"{path} is a directory, not a session log file")
    if not stat.S_ISREG(st.st_mode):
        raise LogUnreadable("not-regular-file", f"{path} is not a regular file (device, FIFO or socket); refusing to read it")
    if st.st_size == 0:
        raise LogUnreadable("empty", f"{path} is empty (0 bytes): no session header")
    if st.st_size > limit:
        raise LogUnreadable("too-large", f"{path} is {_human(st.st_size)}, over the {_human(limit)} limit "
                            f"(raise it with --max-plain-size or {MAX_PLAIN_ENV})")
    return st


def open_file_bytes(path: Path, limit: int) -> tuple[FileBytes, os.stat_result]:
    """Open a regular file read-only for reading a window at a time (filewindow.py); refuse anything
    that could hang (a FIFO, a device) or is too big. The caller closes it."""
    st = _stat_regular(path, limit)
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO after stat, open must not hang.
        fb, st2 = open_file(path)
    except PermissionError:
        raise LogUnreadable("permission-denied", f"permission denied: {path}") from None
    except OSError as exc:
        raise LogUnreadable("os-error", f"cannot open {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st2.st_mode):
        fb.close()
        raise LogUnreadable("not-regular-file", f"{path} is not a regular file; refusing to read it")
    fb.size = min(st.st_size, st2.st_size)  # the size at stat: a growing file stays consistent
    return fb, st



def open_log(path: str | os.PathLike, *, max_plain: int | None = None) -> tuple[RawLog, FileBytes, int]:
    """Open the file and detect its encoding from its first bytes. Returns (raw, the file, the
    plaintext limit); nothing past the first HEAD_PROBE bytes is read here, and the caller closes
    the file. ``raw.plain`` stays empty: the text is read a window at a time (`iter_plain`,
    `iter_lines`) and, after, on demand (plainstore.py)."""
    path = Path(path)
    limit = max_plain_bytes(max_plain)
    fb, st = open_file_bytes(path, limit)
    try:
        head = fb.read(0, HEAD_PROBE)
        ident = {"dev": st.st_dev, "ino": st.st_ino, "boundary": fb.read(max(0, fb.size - BOUNDARY_BYTES), BOUNDARY_BYTES),
                 "head": head[:BOUNDARY_BYTES]}
    except OSError as exc:
        fb.close()
        raise LogUnreadable("os-error", f"cannot read {path}: {exc.strerror or exc}") from None
    if head[:4] == ZSTD_MAGIC:
        return RawLog(path, st.st_size, st.st_mtime_ns, "zstd", b"", **ident), fb, limit
    if looks_like_jsonl(head):
        return RawLog(path, st.st_size, st.st_mtime_ns, "jsonl", b"", **ident), fb, limit
    fb.close()
    if head[:2] == b"\x1f\x8b":
        raise LogUnreadable("not-a-session-log", f"{path} is gzip data, not a dsh session log (zstd or JSONL)")
    raise LogUnreadable("not-a-session-log", f"{path} is neither zstd nor JSONL: not a dsh session log")


def iter_lines(raw: RawLog, fb: FileBytes, *, start: int = 0, progress: Progress | None = None,
               cancel=None) -> Iterator[bytes]:
    """A JSONL file's whole lines from ``start``, in chunks of about a window; a partial last line
    becomes ``raw.torn`` (its first PARTIAL_KEEP bytes kept to show), as dsh's reader drops it."""
    end = start
    for offset, chunk in fb.lines(start):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if progress is not None:
            progress(offset, fb.size)
        end = offset + len(chunk)
        yield chunk
    if end < fb.size:
        raw.torn = TornTail(end, fb.size - end, "partial-line", partial=fb.read(end, PARTIAL_KEEP))
    if progress is not None:
        progress(fb.size, fb.size)


_LEADING_SPACE = re.compile(rb"[ \t\r\n\xef\xbb\xbf]*")  # and a UTF-8 byte-order mark


def looks_like_jsonl(data: bytes | bytearray) -> bool:
    """Whether the first byte after leading white space (and a BOM) opens a JSON object. Found in
    place: ``lstrip`` copied a whole bytearray (and a whole file that starts with a blank)."""
    start = _LEADING_SPACE.match(data).end()
    return data[start:start + 1] == b"{"


def _frames(data: bytes | FileBytes, start: int) -> Iterator[tuple[FrameSpan, memoryview]]:
    """(span in file offsets, its bytes) of every frame from ``start``: a file a window at a time,
    bytes in memory (an export ZIP's member) in place."""
    if isinstance(data, FileBytes):
        yield from data.frames(start)
        return
    view = memoryview(data)
    for span in walk_frames(view[start:], start):
        span.start += start
        span.end += start
        yield span, view[span.start:span.end]


def iter_plain(raw: RawLog, data: bytes | FileBytes, limit: int, *, progress: Progress | None = None, cancel=None,
               chunk_bytes: int = DECODE_CHUNK, start: int = 0, produced: int = 0,
               stop: memoryview | None = None) -> Iterator[bytes]:
    """Decode zstd frames from byte ``start``; yield plaintext in record-aligned chunks.

    Frame 1 (the header) is yielded alone. Fills raw.frames / frame_offsets /
    frame_plain / torn / corruption as it goes. ``produced`` is the plaintext
    length already decoded before ``start`` (when following a growing file).
    ``stop``: an int64 another process may set (split/helper.py's control): no frame
    starting at or after ``stop[0]`` is decoded.
    """
    dctx = zstandard.ZstdDecompressor()
    new_decoder = dctx.decompressobj
    frames = raw.frames or 0
    total = len(data)
    pending: list[bytes] = []
    pending_len = 0
    offsets_append, plain_append = raw.frame_offsets.append, raw.frame_plain.append
    try:
        for span, frame in _frames(data, start):
            begin, end = span.start, span.end
            if stop is not None and begin >= stop[0]:  # another process takes the frames from there on
                break
            if frames % 512 == 0:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                if progress is not None:
                    progress(begin, total)
            room = limit - produced
            bound = max(1, span.blocks) * BLOCK_MAX  # what its blocks can decode to at most
            streamed = None  # a big frame of many records: its size, decoded below a piece at a time
            try:
                if bound > room or bound > CHECK_ABOVE:  # zstdframes.needs_measuring, inlined: measure it first
                    size, newlines, whole_lines = measure(dctx, frame, min(room, MAX_FRAME_PLAIN))
                    _refuse_past(raw, size, room, limit, begin, end, total)
                    if span.complete and frames and newlines > 1 and whole_lines:
                        streamed = size
                if streamed is None:
                    plain = new_decoder().decompress(frame)  # decode_frame, inlined (~35k frames in a big log)
            except zstandard.ZstdError as exc:
                if span.complete:
                    raw.corruption.append(Corruption(begin, "bad-frame", f"frame at byte {begin} does not decode: {exc}"))
                    break
                plain = b""
            if streamed is not None:  # the frame's records, never its whole text at once
                if pending:
                    raw.frames = frames
                    yield b"".join(pending) if len(pending) > 1 else pending[0]
                    pending, pending_len = [], 0
                try:
                    offsets_append(begin)
                    plain_append(produced)
                except OverflowError:  # past 4 GiB (rare): uint64 from here on
                    offsets_append, plain_append = _wide_frame(raw, begin, produced)
                yield from line_pieces(dctx, frame)
                produced += streamed
                frames += 1
                raw.frames_end = end
                raw.unchecked_frames += not span.checksum
                raw.frames = frames
                continue
            if not span.complete:
                keep = plain.rfind(b"\n") + 1
                raw.torn = TornTail(begin, total - begin, "truncated-frame", plain.count(b"\n", 0, keep),
                                    plain[keep:keep + PARTIAL_KEEP], not span.blocks_whole or keep < len(plain))
                plain = plain[:keep]
            elif plain and not plain.endswith(b"\n"):
                raw.corruption.append(Corruption(begin, "torn-record-in-frame",
                                                 f"complete frame at byte {begin} ends inside a JSONL record"))
                break
            elif frames == 0 and plain.count(b"\n") != 1:
                raw.header_frame_ok = False
            if pending and len(plain) >= chunk_bytes:  # a big frame goes alone: joined, it would be copied
                raw.frames = frames
                yield b"".join(pending) if len(pending) > 1 else pending[0]
                pending, pending_len = [], 0
            try:
                offsets_append(begin)
                plain_append(produced)
            except OverflowError:
                offsets_append, plain_append = _wide_frame(raw, begin, produced)
            produced += len(plain)
            pending.append(plain)
            pending_len += len(plain)
            if span.complete:
                frames += 1
                raw.frames_end = end
                if not span.checksum:
                    raw.unchecked_frames += 1
            if frames == 1 or pending_len >= chunk_bytes:
                raw.frames = frames
                yield b"".join(pending) if len(pending) > 1 else pending[0]
                pending, pending_len = [], 0
    except FrameError as exc:
        if exc.kind == "frame-too-large":  # filewindow: more file bytes than any frame within the bound
            raise LogUnreadable("frame-too-large", f"{raw.path}: {exc.message}") from None
        raw.corruption.append(Corruption(exc.offset, exc.kind, exc.message))
    raw.frames = frames
    if pending:
        yield b"".join(pending)
    if progress is not None:
        progress(total, total)


def add_frames(raw: RawLog, offsets: Iterable[int], plain: Iterable[int]) -> None:
    """Append frames' file and plaintext offsets (a later part's): uint32 while they fit, as
    `iter_plain` appends them one at a time."""
    offsets, plain = array("Q", offsets), array("Q", plain)
    if raw.frame_offsets.typecode != "Q" and max(offsets, default=0) > 0xFFFFFFFF:
        raw.frame_offsets = array("Q", raw.frame_offsets)
    if raw.frame_plain.typecode != "Q" and max(plain, default=0) > 0xFFFFFFFF:
        raw.frame_plain = array("Q", raw.frame_plain)
    raw.frame_offsets.extend(array(raw.frame_offsets.typecode, offsets))
    raw.frame_plain.extend(array(raw.frame_plain.typecode, plain))


def _wide_frame(raw: RawLog, begin: int, produced: int) -> tuple:
    """A frame whose offset is past uint32: both columns uint64, the frame appended (its file offset
    may have gone in already), and their appends for the frames after it."""
    if len(raw.frame_offsets) > len(raw.frame_plain):
        del raw.frame_offsets[-1]
    raw.frame_offsets, raw.frame_plain = array("Q", raw.frame_offsets), array("Q", raw.frame_plain)
    raw.frame_offsets.append(begin)
    raw.frame_plain.append(produced)
    return raw.frame_offsets.append, raw.frame_plain.append


def _refuse_past(raw: RawLog, size: int, room: int, limit: int, begin: int, end: int, total: int) -> None:
    """Refuse the frame at ``begin`` if it decodes (``size``, counted up to one past the bound) past
    MAX_FRAME_PLAIN or past what is left of the plaintext limit (``room``)."""
    if size > min(room, MAX_FRAME_PLAIN):
        if room >= MAX_FRAME_PLAIN:
            raise LogUnreadable("frame-too-large", f"{raw.path}: {too_big_message(begin, end - begin)}")
        raise LogUnreadable("too-large", f"{raw.path} decompresses to more than {limit:,} bytes "
                            f"({_human(limit)} limit) from only {end:,} of {total:,} compressed bytes "
                            f"(ratio over {limit // max(end, 1):,}:1); refusing "
                            f"(raise --max-plain-size or {MAX_PLAIN_ENV})")
