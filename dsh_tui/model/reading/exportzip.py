"""The web UI's session export ZIP, read in memory (never unpacked to disk).

``dsh-session-<safe id>.zip`` (packages/host/apiproxy/src/session-export.ts) holds
``session.jsonl`` (the root session: decompressed logical text, packed rows
included), ``subagents/<safe-id>/session.jsonl`` for every descendant (flat, even
grandchildren) and ``media/<attachmentId>.<ext>``. Member names are checked
before use and every read has a decompressed-size cap, so a hostile archive can
neither escape nor exhaust memory. Textual-free: stdlib, zstandard, orjson only.
"""

from __future__ import annotations

import io
import os
import re
import stat
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field

from .deepvalue import short_repr
from .session import session_from_raw
from .sessionlog import SessionLog
from .source import (MAX_PLAIN_ENV, PARTIAL_KEEP, Cancelled, LogUnreadable, RawLog, TornTail, iter_plain,
                     max_plain_bytes)
from .frames import ZSTD_MAGIC

if TYPE_CHECKING:
    import zipfile

ROOT_MEMBER = "session.jsonl"
_CHILD = re.compile(r"^subagents/([^/]+)/session\.jsonl\Z")  # (\Z: $ would take a name ending in a newline)
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a first member, or the end record of an empty archive
_UNSAFE_CHARS = re.compile(r"[\x00-\x1f\x7f\\]")
MAX_MEMBER_NAME = 1024
HEADER_CAP = 1024 * 1024
READ_BLOCK = 1 << 20
HEAD_BYTES = 4096  # of a member's first block, kept to tell its encoding
MAX_PROBLEMS = 50  # unsafe or duplicate names reported one by one; the rest are counted


class ZipUnreadable(LogUnreadable):
    """The archive, or one member of it, cannot be read."""


class ZipSessions(Struct):
    root: str  # always "session.jsonl"
    children: list[str]  # "subagents/<safe-id>/session.jsonl", sorted
    media: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # unsafe or duplicate names, skipped


def safe_member_name(name: str) -> bool:
    """A relative, forward-slash name with no empty, ``.`` or ``..`` part, no drive, no controls."""
    if not name or len(name) > MAX_MEMBER_NAME or name.startswith("/") or _UNSAFE_CHARS.search(name):
        return False
    parts = name.split("/")
    if ":" in parts[0]:
        return False
    return all(p not in ("", ".", "..") for p in parts)


def looks_like_zip(path: str | os.PathLike) -> bool:
    """A regular file that starts like a ZIP archive (a member, or the end record of an empty one),
    readable or not: a truncated export is one. Never raises, never blocks."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # opening a FIFO would block until a writer appears
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            return stat.S_ISREG(os.fstat(fd).st_mode) and os.pread(fd, 4, 0) in _ZIP_MAGICS
        finally:
            os.close(fd)
    except OSError:
        return False


def is_export_zip(path: str | os.PathLike) -> bool:
    """True for a readable ZIP with a ``session.jsonl`` member. Never raises, never blocks."""
    if not looks_like_zip(path):
        return False
    try:
        with ExportZip(path) as z:
            return ROOT_MEMBER in z.counts
    except ZipUnreadable:
        return False


def _open(path: str | os.PathLike) -> zipfile.ZipFile:
    import zipfile  # here, not at import: `check` on a log never needs it (~5 ms)
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ZipUnreadable("os-error", f"{path}: no such file") from None
    except OSError as exc:
        raise ZipUnreadable("os-error", f"cannot read {path}: {exc.strerror or exc}") from None
    except Exception as exc:  # BadZipFile, EOFError, a bad name's UnicodeDecodeError, struct.error ...
        raise ZipUnreadable("bad-zip", f"{path} is not a readable ZIP archive (truncated?): {exc}") from None


def _bomb(path, member: str, size: int, packed: int, limit: int) -> ZipUnreadable:
    return ZipUnreadable("too-large", (
        f"{path}: member {short_repr(member, 200)} decompresses to more than {limit:,} bytes (from {packed:,} compressed, "
        f"ratio over {size // max(packed, 1):,}:1); refusing (zip bomb?). Raise --max-plain-size or {MAX_PLAIN_ENV}"))


class ExportZip:
    """One export ZIP, opened once: its central directory is read and indexed by name a single
    time, so listing 20,000 members and reading each one's status costs one open and one
    lookup per member (not a scan of every name, nor a re-open, per member). Use as a
    context manager, or `close()`; `discovery.fill_status` reads members through it."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._zf = _open(path)
        try:
            st = os.fstat(self._zf.fp.fileno())
            self.mtime, self.mtime_ns = st.st_mtime, st.st_mtime_ns
        except (OSError, AttributeError, ValueError):
            self.mtime, self.mtime_ns = 0.0, 0
        self.counts: Counter = Counter()
        self._by_name: dict[str, zipfile.ZipInfo] = {}
        for info in self._zf.infolist():
            self.counts[info.filename] += 1
            self._by_name.setdefault(info.filename, info)
        self._sessions: ZipSessions | None = None

    def close(self) -> None:
        self._zf.close()

    def __enter__(self) -> ExportZip:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- names -----------------------------------------------------------------------------------
    def members(self) -> ZipSessions:
        """The session members. Raises ZipUnreadable (no session.jsonl, or more than one)."""
        if self._sessions is not None:
            return self._sessions
        counts, path = self.counts, self.path
        if counts.get(ROOT_MEMBER, 0) > 1:
            raise ZipUnreadable("bad-zip", f"{path}: {ROOT_MEMBER} appears {counts[ROOT_MEMBER]} times; refusing")
        if ROOT_MEMBER not in counts:
            raise ZipUnreadable("not-a-session-log", f"{path}: no {ROOT_MEMBER} member: not a dsh session export")
        out = ZipSessions(ROOT_MEMBER, [])
        skipped = 0
        for name, n in counts.items():
            if name.endswith("/") and safe_member_name(name[:-1]):
                continue  # a directory entry
            if not safe_member_name(name):
                problem = f"unsafe member name {short_repr(name, 200)} skipped"
            elif n > 1:
                problem = f"member {short_repr(name, 200)} appears {n} times; skipped (ambiguous)"
            else:
                if _CHILD.match(name):
                    out.children.append(name)
                elif name.startswith("media/"):
                    out.media.append(name)
                continue
            if len(out.problems) < MAX_PROBLEMS:
                out.problems.append(problem)
            else:
                skipped += 1
        if skipped:
            out.problems.append(f"... and {skipped:,} more unsafe or duplicate member names skipped")
        out.children.sort()
        out.media.sort()
        self._sessions = out
        return out

    def info(self, member: str) -> zipfile.ZipInfo:
        """A safe, unique, unencrypted member's entry (one dict lookup). Raises ZipUnreadable."""
        path = self.path
        if not safe_member_name(member):
            raise ZipUnreadable("unsafe-member", f"{path}: refusing unsafe member name {short_repr(member, 200)}")
        info = self._by_name.get(member)
        if info is None:
            raise ZipUnreadable("no-member", f"{path}: no member {short_repr(member, 200)}")
        n = self.counts[member]
        if n > 1:
            raise ZipUnreadable("bad-zip", f"{path}: member {short_repr(member, 200)} appears {n} times; refusing")
        if info.flag_bits & 0x1:
            raise ZipUnreadable("bad-zip", f"{path}: member {short_repr(member, 200)} is encrypted")
        return info

    # -- reading -----------------------------------------------------------------------------------
    def _read(self, member: str, limit: int, cancel, progress) -> tuple[io.BytesIO, bytes, int]:
        """(the member's bytes, its first block, the end of its last complete line).

        Decompressed once into one buffer (``getvalue`` hands that buffer over without a copy);
        the declared size is checked before anything is read, the output counted as it comes.
        """
        info = self.info(member)
        if info.file_size > limit:
            raise _bomb(self.path, member, info.file_size, info.compress_size, limit)
        buf = io.BytesIO()
        head, lines_end, size = b"", 0, 0
        try:
            with self._zf.open(info) as fh:
                while True:
                    if cancel is not None and cancel.is_set():
                        raise Cancelled()
                    chunk = fh.read(READ_BLOCK)
                    if not chunk:
                        break
                    if size + len(chunk) > limit:
                        raise _bomb(self.path, member, size + len(chunk), info.compress_size, limit)
                    nl = chunk.rfind(b"\n")
                    if nl >= 0:
                        lines_end = size + nl + 1
                    if not size:
                        head = chunk[:HEAD_BYTES]
                    buf.write(chunk)
                    size += len(chunk)
                    del chunk
                    if progress is not None:
                        progress(size, info.file_size)
        except (ZipUnreadable, Cancelled):
            raise
        except Exception as exc:  # BadZipFile (CRC), zlib.error, NotImplementedError (method), EOFError ...
            raise ZipUnreadable("bad-zip", f"{self.path}: member {short_repr(member, 200)} does not decompress: {exc}") from None
        return buf, head, lines_end

    def read(self, member: str, *, limit: int | None = None, cancel=None, progress=None) -> bytes:
        """A member's bytes, decompressed in memory, refusing more than ``limit`` bytes
        (default: the log plaintext cap, 4 GiB, ``DSH_TUI_MAX_PLAIN_BYTES``).
        Raises ZipUnreadable (unsafe/missing member, bomb, CRC error) or Cancelled."""
        buf, _head, _end = self._read(member, max_plain_bytes(limit), cancel, progress)
        return buf.getvalue()

    def load(self, member: str | None = None, *, lenient: bool = False, max_plain: int | None = None,
             cancel=None, progress=None) -> SessionLog:
        """A SessionLog from a member (default the root ``session.jsonl``), nothing written to disk.

        The log's path reads ``<zip>!<member>``. Raises LogUnreadable / LogRejected / Cancelled like
        load_session. The plaintext limit bounds the member's bytes and, for zstd, what they decode to.
        """
        member = ROOT_MEMBER if member is None else member
        limit = max_plain_bytes(max_plain)
        report = None if progress is None else (lambda done, total: progress("read", done, total))
        buf, head, lines_end = self._read(member, limit, cancel, report)
        where = Path(f"{os.fspath(self.path)}!{member}")
        size = buf.tell()
        if head[:4] == ZSTD_MAGIC:  # not what dsh exports, but a log is a log
            data = buf.getvalue()
            del buf
            raw = RawLog(where, size, self.mtime_ns, "zstd", b"")
            plain = io.BytesIO()
            for chunk in iter_plain(raw, data, limit, cancel=cancel):
                plain.write(chunk)
            del data
            raw.plain = plain.getvalue()
        elif head.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] == b"{":
            torn = None
            if lines_end < size:  # as the file reader does: a partial last line is a torn tail
                buf.seek(lines_end)
                torn = TornTail(lines_end, size - lines_end, "partial-line", partial=buf.read(PARTIAL_KEEP))
                buf.truncate(lines_end)
            raw = RawLog(where, size, self.mtime_ns, "jsonl", buf.getvalue())
            raw.torn = torn
        else:
            raise LogUnreadable("not-a-session-log", f"{where} is neither JSONL nor zstd: not a dsh session log")
        return session_from_raw(raw, lenient=lenient, cancel=cancel)

    def first_line(self, info: zipfile.ZipInfo) -> bytes | None:
        """The member's first line (without the newline); None when none ends within HEADER_CAP bytes."""
        buf = bytearray()
        with self._zf.open(info) as fh:
            while len(buf) < HEADER_CAP:
                chunk = fh.read(min(8192, HEADER_CAP - len(buf)))
                if not chunk:
                    break
                nl = chunk.find(b"\n")
                if nl >= 0:
                    return bytes(buf + chunk[:nl])
                buf += chunk
        return None


# -- one call, one open ------------------------------------------------------------------------------

def load_zip_session(path: str | os.PathLike, member: str | None = None, *, lenient: bool = False,
                     max_plain: int | None = None, cancel=None, progress=None) -> SessionLog:
    """`ExportZip.load` on a ZIP opened for this one log."""
    with ExportZip(path) as z:
        return z.load(member, lenient=lenient, max_plain=max_plain, cancel=cancel, progress=progress)

