"""Live follow, one poll at a time (`follow_step`), Textual-free.

A poll indexes what was appended (`SessionLog.refresh`), re-opens when refresh says so (-1, or a
log read from the index cache), and re-diagnoses. It runs in a worker thread while the UI keeps
reading the same log object, so the growing plaintext is first copied into a fresh buffer: the
UI's store keeps the old one, which never changes. Before indexing an append it checks the file
is still the one read (`file_change`: device, inode, size, mtime, the bytes before the old end
and the first bytes), so a replaced file is re-opened and said so, never spliced onto the old
session.
"""

from __future__ import annotations

import os
import stat

from pathlib import Path

from msgspec import Struct

from ..model.diagnosing.diagnosis import Diagnosis, diagnose
from ..model.opening.target import OpenOptions, Target, open_target
from ..model.reading.sessionlog import SessionLog
from ..model.reading.source import BOUNDARY_BYTES, LogUnreadable, RawLog


class FollowStep(Struct):
    source: SessionLog  # the log that was polled
    log: SessionLog  # the log to show: ``source`` grown in place, or a re-opened one
    diag: Diagnosis
    added: int  # new events (for a re-open: the difference in length)
    reopened: bool
    replaced: str | None = None  # the file is not the one read (what changed, one line): re-opened


def _identity_known(raw: RawLog) -> bool:
    """Whether ``raw`` says which file it was read from (an older index-cache entry does not)."""
    boundary, size = getattr(raw, "boundary", b""), raw.size
    return (isinstance(boundary, bytes) and isinstance(size, int) and size > 0
            and len(boundary) == min(size, BOUNDARY_BYTES)
            and all(isinstance(getattr(raw, k, None), int) for k in ("dev", "ino", "mtime_ns")))


def _pread_end(fd: int, end: int) -> bytes:
    """The ``BOUNDARY_BYTES`` before byte ``end`` (fewer at the start of the file, or past its end)."""
    start = max(0, end - BOUNDARY_BYTES)
    try:
        return os.pread(fd, end - start, start)
    except OSError:
        return b""  # unreadable now: the caller sees bytes that differ


def file_change(raw: RawLog, st: os.stat_result, fd: int) -> str | None:
    """Why the file open as ``fd`` (``st``: its fstat) is not the one ``raw`` was read from, or None
    when it is: unchanged or appended to. One 64-byte pread when it grew."""
    if (st.st_dev, st.st_ino) != (raw.dev, raw.ino):
        return "a new inode: another file was moved to its path"
    if st.st_size < raw.size:
        return f"it shrank from {raw.size:,} to {st.st_size:,} bytes"
    if st.st_size == raw.size:
        if st.st_mtime_ns == raw.mtime_ns:
            return None
        return f"rewritten at the same size, {raw.size:,} bytes"
    if _pread_end(fd, raw.size) != raw.boundary:  # an append leaves every byte before the old end as it was
        return f"it grew from {raw.size:,} to {st.st_size:,} bytes, but its bytes before the old end changed"
    if raw.head and _pread_end(fd, len(raw.head)) != raw.head:  # nor its first bytes (the header)
        return f"it grew from {raw.size:,} to {st.st_size:,} bytes, but its first bytes (the header) changed"
    return None


def _open_regular(path) -> tuple[int, os.stat_result]:
    """Open read-only (never blocking on a FIFO swapped in); (fd, fstat)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise LogUnreadable("os-error", f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        return fd, os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise LogUnreadable("os-error", f"cannot stat {path}: {exc.strerror or exc}") from None


def follow_step(log: SessionLog, *, lenient: bool = False, max_plain: int | None = None,
                cancel=None) -> FollowStep | None:
    """One poll. None when the file did not change (or the log cannot be followed).

    One stat when nothing changed. A file that is not the one read (another inode, shorter,
    rewritten at the same size, or grown with other bytes before the old end) is re-opened
    with ``replaced`` saying why; an append is indexed in place. Raises LogUnreadable (the
    file vanished or became unreadable) and Cancelled. Never writes.
    """
    if not log.followable:
        return None
    raw, path = log.raw, log.path
    before = len(log)

    def reopen(replaced: str | None) -> FollowStep:
        # The way the explorer opened it: the diagnosis made as the read goes, a big log's facts let go.
        fresh, diag = open_target(Target(Path(path)), OpenOptions(lenient=lenient, max_plain=max_plain,
                                                                  use_cache=False, cancel=cancel))
        return FollowStep(log, fresh, diag, len(fresh) - before, True, replaced)

    if not _identity_known(raw):  # e.g. an older index-cache entry: re-read once rather than trusted
        return reopen(None)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise LogUnreadable("os-error", f"cannot stat {path}: {exc.strerror or exc}") from None
    if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (raw.dev, raw.ino, raw.size, raw.mtime_ns):
        return None
    fd, st = _open_regular(path)  # from here on, the file as opened (the path may change again)
    try:
        if not stat.S_ISREG(st.st_mode):
            return reopen("it is no longer a regular file")  # load_session refuses it with its reason
        # The new end's bytes are read before the old end's are compared: a rewrite landing between
        # the two fails the comparison now, or the next poll's.
        tail = _pread_end(fd, st.st_size) if st.st_size > raw.size else b""
        replaced = file_change(raw, st, fd)
        if replaced is not None:
            return reopen(replaced)
        if st.st_size == raw.size:
            return None  # the path's file changed back between the stat and the open
        if log.from_cache or getattr(log, "_scanner", None) is None:
            return reopen(None)  # an index from the cache, or a big log's without its facts, cannot grow: read it all again
        if isinstance(raw.plain, bytearray):
            # refresh() appends in place; the UI thread keeps the buffer it is reading.
            raw.plain = bytearray(raw.plain)
        added = log.refresh(max_plain=max_plain)
        if added == -1:  # a torn frame we partly read changed, or it shrank meanwhile
            return reopen(None)
        # The identity of what refresh read (dev and ino are the ones just compared). It read by path:
        # a file renamed over it meanwhile has another inode, which the next poll sees.
        raw.boundary = tail if raw.size == st.st_size else _pread_end(fd, raw.size)
    finally:
        os.close(fd)
    return FollowStep(log, log, diagnose(log), added, False)
