"""The web UI's session export ZIP, read in memory (never unpacked to disk).

``dsh-session-<safe id>.zip`` (packages/host/apiproxy/src/session-export.ts) holds
``session.jsonl`` (the root session: decompressed logical text, packed rows
included), ``subagents/<safe-id>/session.jsonl`` for every descendant (flat, even
grandchildren) and ``media/<attachmentId>.<ext>``. Member names are checked
before use and every read has a decompressed-size cap, so a hostile archive can
neither escape nor exhaust memory. Textual-free: stdlib, zstandard, orjson only.
"""

from __future__ import annotations

import os
import stat
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .entry import SessionEntry, apply_header
from .header import parse_header
from .session import SessionLog, session_from_raw
from .source import MAX_PLAIN_ENV, Cancelled, LogUnreadable, RawLog, TornTail, iter_plain, max_plain_bytes
from .zstdframes import ZSTD_MAGIC

if TYPE_CHECKING:
    import zipfile

ROOT_MEMBER = "session.jsonl"
_CHILD = re.compile(r"^subagents/([^/]+)/session\.jsonl$")
_ZIP_MAGIC = b"PK\x03\x04"
_UNSAFE_CHARS = re.compile(r"[\x00-\x1f\x7f\\]")
MAX_MEMBER_NAME = 1024
HEADER_CAP = 1024 * 1024
READ_BLOCK = 1 << 20


class ZipUnreadable(LogUnreadable):
    """The archive, or one member of it, cannot be read."""


@dataclass
class ZipSessions:
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


def is_export_zip(path: str | os.PathLike) -> bool:
    """True for a ZIP (local-file magic) with a ``session.jsonl`` member. Never raises, never blocks."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # opening a FIFO would block until a writer appears
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode) or os.pread(fd, 4, 0) != _ZIP_MAGIC:
                return False
        finally:
            os.close(fd)
    except OSError:
        return False
    import zipfile  # here, not at import: `check` on a log never needs it (~5 ms)
    try:
        with zipfile.ZipFile(path) as zf:
            return any(i.filename == ROOT_MEMBER for i in zf.infolist())
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, RuntimeError):
        return False


def _open(path: str | os.PathLike) -> zipfile.ZipFile:
    import zipfile
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ZipUnreadable("os-error", f"{path}: no such file") from None
    except OSError as exc:
        raise ZipUnreadable("os-error", f"cannot read {path}: {exc.strerror or exc}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise ZipUnreadable("bad-zip", f"{path} is not a readable ZIP archive: {exc}") from None


def list_members(path: str | os.PathLike) -> ZipSessions:
    """The session members of an export ZIP. Raises ZipUnreadable (also when no session.jsonl)."""
    with _open(path) as zf:
        counts = Counter(i.filename for i in zf.infolist())
    if counts.get(ROOT_MEMBER, 0) > 1:
        raise ZipUnreadable("bad-zip", f"{path}: {ROOT_MEMBER} appears {counts[ROOT_MEMBER]} times; refusing")
    if ROOT_MEMBER not in counts:
        raise ZipUnreadable("not-a-session-log", f"{path}: no {ROOT_MEMBER} member: not a dsh session export")
    out = ZipSessions(ROOT_MEMBER, [])
    for name, n in counts.items():
        if name.endswith("/") and safe_member_name(name[:-1]):
            continue  # a directory entry
        if not safe_member_name(name):
            out.problems.append(f"unsafe member name {name!r} skipped")
        elif n > 1:
            out.problems.append(f"member {name!r} appears {n} times; skipped (ambiguous)")
        elif _CHILD.match(name):
            out.children.append(name)
        elif name.startswith("media/"):
            out.media.append(name)
    out.children.sort()
    out.media.sort()
    return out


def _member_info(zf: zipfile.ZipFile, path, member: str) -> zipfile.ZipInfo:
    if not safe_member_name(member):
        raise ZipUnreadable("unsafe-member", f"{path}: refusing unsafe member name {member!r}")
    infos = [i for i in zf.infolist() if i.filename == member]
    if not infos:
        raise ZipUnreadable("no-member", f"{path}: no member {member!r}")
    if len(infos) > 1:
        raise ZipUnreadable("bad-zip", f"{path}: member {member!r} appears {len(infos)} times; refusing")
    info = infos[0]
    if info.flag_bits & 0x1:
        raise ZipUnreadable("bad-zip", f"{path}: member {member!r} is encrypted")
    return info


def _bomb(path, member: str, size: int, packed: int, limit: int) -> ZipUnreadable:
    return ZipUnreadable("too-large", (
        f"{path}: member {member!r} decompresses to more than {limit:,} bytes (from {packed:,} compressed, "
        f"ratio over {size // max(packed, 1):,}:1); refusing (zip bomb?). Raise --max-plain-size or {MAX_PLAIN_ENV}"))


def read_member(path: str | os.PathLike, member: str, *, limit: int | None = None, cancel=None,
                progress=None) -> bytes:
    """A member's bytes, decompressed in memory, refusing more than ``limit`` bytes.

    ``limit`` defaults to the log plaintext cap (4 GiB, ``DSH_TUI_MAX_PLAIN_BYTES``).
    The declared size is checked first and the actual output is counted while reading.
    Raises ZipUnreadable (bad archive, unsafe/missing member, bomb, CRC error) or Cancelled.
    """
    limit = max_plain_bytes(limit)
    with _open(path) as zf:
        info = _member_info(zf, path, member)
        if info.file_size > limit:
            raise _bomb(path, member, info.file_size, info.compress_size, limit)
        out = bytearray()
        try:
            with zf.open(info) as fh:
                while True:
                    if cancel is not None and cancel.is_set():
                        raise Cancelled()
                    chunk = fh.read(READ_BLOCK)
                    if not chunk:
                        break
                    out += chunk
                    if len(out) > limit:
                        raise _bomb(path, member, len(out), info.compress_size, limit)
                    if progress is not None:
                        progress(len(out), info.file_size)
        except (ZipUnreadable, Cancelled):
            raise
        except Exception as exc:  # BadZipFile (CRC), zlib.error, NotImplementedError (method), EOFError ...
            raise ZipUnreadable("bad-zip", f"{path}: member {member!r} does not decompress: {exc}") from None
    return bytes(out)


def load_zip_session(path: str | os.PathLike, member: str | None = None, *, lenient: bool = False,
                     max_plain: int | None = None, cancel=None, progress=None) -> SessionLog:
    """Build a SessionLog from a ZIP member without writing anything to disk.

    ``member`` defaults to the root ``session.jsonl``. The log's path reads
    ``<zip>!<member>``. Raises LogUnreadable / LogRejected / Cancelled like load_session.
    """
    member = ROOT_MEMBER if member is None else member
    limit = max_plain_bytes(max_plain)
    report = None if progress is None else (lambda done, total: progress("read", done, total))
    data = read_member(path, member, limit=limit, cancel=cancel, progress=report)
    try:
        mtime_ns = os.stat(path).st_mtime_ns
    except OSError:
        mtime_ns = 0
    where = Path(f"{os.fspath(path)}!{member}")
    if data[:4] == ZSTD_MAGIC:  # not what dsh exports, but a log is a log
        raw = RawLog(where, len(data), mtime_ns, "zstd", b"")
        raw.plain = b"".join(iter_plain(raw, data, limit, cancel=cancel))
    elif data.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] == b"{":
        raw = RawLog(where, len(data), mtime_ns, "jsonl", data)
        if not data.endswith(b"\n"):  # as the file reader does: a partial last line is a torn tail
            cut = data.rfind(b"\n") + 1
            raw.torn = TornTail(cut, len(data) - cut, "partial-line")
            raw.plain = data[:cut]
    else:
        raise LogUnreadable("not-a-session-log", f"{where} is neither JSONL nor zstd: not a dsh session log")
    del data
    return session_from_raw(raw, lenient=lenient, cancel=cancel)


def zip_entries(path: str | os.PathLike) -> list[SessionEntry]:
    """A SessionEntry per session member, from each member's first line only.

    ``entry.path`` is the zip, ``entry.member`` the member; use with build_tree
    (children carry parentSession) and discovery.fill_status. Raises ZipUnreadable.
    """
    sessions = list_members(path)
    zpath = Path(path)
    try:
        mtime = os.stat(zpath).st_mtime
    except OSError:
        mtime = 0.0
    out: list[SessionEntry] = []
    with _open(zpath) as zf:
        for member in [sessions.root, *sessions.children]:
            entry = SessionEntry(zpath, "", zpath.name, member=member, dir_name=member.rsplit("/", 2)[-2]
                                 if "/" in member else "", encoding="jsonl", mtime=mtime)
            try:
                info = _member_info(zf, zpath, member)
                entry.size = info.file_size
                line = _first_line(zf, info)
            except ZipUnreadable as exc:
                entry.status, entry.header_error = "unreadable", exc.message
                out.append(entry)
                continue
            except Exception as exc:
                entry.status, entry.header_error = "unreadable", f"member does not decompress: {exc}"
                out.append(entry)
                continue
            header = parse_header(line) if line else None
            if header is not None and isinstance(header.raw, dict) and header.raw.get("type") == "session":
                apply_header(entry, header)
                if header.rejection is not None:
                    entry.status, entry.header_error = "rejected", header.rejection.message
            else:
                entry.status = "corrupt"
                entry.header_error = header.rejection.message if header and header.rejection else "no header line"
            out.append(entry)
    return out


def _first_line(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes | None:
    buf = b""
    with zf.open(info) as fh:
        while len(buf) < HEADER_CAP:
            chunk = fh.read(8192)
            if not chunk:
                break
            buf += chunk
            nl = buf.find(b"\n")
            if nl >= 0:
                return buf[:nl]
    return None
