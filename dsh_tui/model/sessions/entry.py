"""One session log seen from its header alone: `SessionEntry` and `read_entry`.

Reads as little as possible: for zstd, 8 KiB chunks until the first frame is
complete, then decodes just that frame (event frames are never touched); for
JSONL, up to the first newline (cap 1 MiB). Textual-free.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field
import zstandard

from ..reading.header import Header, parse_header
from .layout import NO_CWD, decode_segment, encode_segment, project_key
from ..reading.frames import ZSTD_MAGIC, FrameError, decode_frame, walk_frames

if TYPE_CHECKING:
    from ..reading.exportzip import ExportZip

READ_CHUNK = 8 * 1024
MAX_HEADER_BYTES = 1024 * 1024  # compressed bytes read / plaintext decoded for one header


class SessionEntry(Struct, eq=False):
    path: Path
    project_dir: str  # directory name under the root ("--key--" or "_no-cwd"); "" when not in one
    project_display: str
    session_id: str | None = None  # from the header (None when it is unreadable)
    dir_name: str = ""  # the session directory's name
    encoding: str | None = None  # "zstd" | "jsonl" (detected from the bytes)
    size: int = 0
    mtime: float = 0.0
    cwd: str | None = None
    created_at: int | None = None  # epoch ms
    parent_session: str | None = None
    origin: str | None = None
    delegation_depth: int | None = None
    agent_preset: str | None = None
    seed_length: int | None = None
    header_error: str | None = None
    member: str | None = None  # set for a session inside an export ZIP (path is the zip)
    notes: list[str] = field(default_factory=list)
    children: list[SessionEntry] = field(default_factory=list)
    orphan: bool = False  # has a parentSession that is not in the listing
    # Filled by fill_status (status is known at listing time only for a bad header).
    status: str = "unknown"
    last_turn_outcome: str | None = None  # completed|error|aborted|interrupted|open|<kind>
    events: int | None = None
    verdict_kind: str | None = None
    verdict_call_id: str | None = None
    verdict_message: str | None = None
    tools_called: frozenset = frozenset()  # names of tools with a durable tool/call (set by fill_status)
    effective_preset: str | None = None  # the last agent-preset/selected, else the header's
    torn: bool = False
    error: str | None = None

    @property
    def subagent(self) -> bool:
        """A subagent child of its parentSession, as dsh's children listing has it (origin "subagent")."""
        return self.origin == "subagent" and self.parent_session is not None

    @property
    def delegated(self) -> bool:
        return bool(self.delegation_depth) or self.origin == "subagent"

    @property
    def forked(self) -> bool:
        """A user fork of its parentSession (seed lineage, a top-level session), not a child."""
        return self.parent_session is not None and not self.delegated

    @property
    def display_id(self) -> str:
        return self.session_id or decode_segment(self.dir_name) or self.path.name

    @property
    def sort_time(self) -> float:
        return self.created_at / 1000 if isinstance(self.created_at, int) else self.mtime

    @property
    def preset(self) -> str | None:
        return self.effective_preset or self.agent_preset

    def as_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "member": self.member, "project_dir": self.project_dir,
                "project": self.project_display, "id": self.session_id, "dir": self.dir_name,
                "encoding": self.encoding, "size": self.size, "mtime": self.mtime, "cwd": self.cwd,
                "createdAt": self.created_at, "parentSession": self.parent_session, "origin": self.origin,
                "delegationDepth": self.delegation_depth, "agentPreset": self.agent_preset,
                "effectivePreset": self.effective_preset, "seedLength": self.seed_length,
                "header_error": self.header_error, "status": self.status,
                "last_turn_outcome": self.last_turn_outcome, "events": self.events,
                "verdict_kind": self.verdict_kind, "verdict_call_id": self.verdict_call_id,
                "verdict_message": self.verdict_message, "torn": self.torn, "error": self.error,
                "orphan": self.orphan, "notes": list(self.notes), "children": [c.session_id for c in self.children]}


# -- header only ---------------------------------------------------------------

def _read_header_line(fd: int, dctx: zstandard.ZstdDecompressor) -> tuple[str | None, bytes | None, str | None, bool]:
    """(encoding, header line without newline, error, torn). Reads as little as possible."""
    buf = os.read(fd, READ_CHUNK)
    if not buf:
        return None, None, "empty file: no header", False
    if buf[:4] == ZSTD_MAGIC:
        while True:
            try:
                span = next(walk_frames(buf), None)
            except FrameError as exc:
                return "zstd", None, f"corrupt session log: {exc.message}", False
            if span is not None and span.complete:
                break
            more = os.read(fd, READ_CHUNK) if len(buf) < MAX_HEADER_BYTES else b""
            if not more:
                if len(buf) >= MAX_HEADER_BYTES:
                    return "zstd", None, "the header frame is larger than 1 MiB: not a dsh session log", False
                return "zstd", None, f"the header frame is torn ({len(buf)} bytes, file ends inside it)", True
            buf += more
        cap = None if span.max_plain <= MAX_HEADER_BYTES else MAX_HEADER_BYTES
        try:
            plain = decode_frame(dctx, memoryview(buf)[span.start:span.end], cap)
        except zstandard.ZstdError as exc:
            return "zstd", None, f"corrupt session log: the header frame does not decode ({exc})", False
        if cap is not None and len(plain) > cap:
            return "zstd", None, "the header frame decodes to more than 1 MiB: not a dsh session log", False
        nl = plain.find(b"\n")
        if nl < 0:
            return "zstd", plain, "the header frame holds no complete line: dsh calls the log corrupt", False
        if nl != len(plain) - 1:
            return "zstd", plain[:nl], ("the first zstd frame is not exactly the header line: "
                                        "dsh calls the log corrupt"), False
        return "zstd", plain[:nl], None, False
    if buf.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] != b"{":
        kind = "gzip data" if buf[:2] == b"\x1f\x8b" else "neither zstd nor JSONL"
        return None, None, f"{kind}: not a dsh session log", False
    while True:
        nl = buf.find(b"\n")
        if nl >= 0:
            return "jsonl", buf[:nl], None, False
        more = os.read(fd, READ_CHUNK) if len(buf) < MAX_HEADER_BYTES else b""
        if not more:
            if len(buf) >= MAX_HEADER_BYTES:
                return "jsonl", None, "the first line is longer than 1 MiB: not a dsh session header", False
            return "jsonl", buf, "the header line is not newline-terminated (torn)", True
        buf += more


def apply_header(entry: SessionEntry, header: Header) -> None:
    get = header.get
    entry.session_id = header.session_id
    entry.cwd = get("cwd") if isinstance(get("cwd"), str) else None
    created = get("createdAt")
    entry.created_at = int(created) if isinstance(created, (int, float)) and not isinstance(created, bool) \
        and float(created).is_integer() and 0 <= created < 2**53 else None
    entry.parent_session = get("parentSession") if isinstance(get("parentSession"), str) else None
    entry.origin = get("origin") if isinstance(get("origin"), str) else None
    entry.delegation_depth = header.delegation_depth
    entry.agent_preset = get("agentPreset") if isinstance(get("agentPreset"), str) else None
    seed = get("seedLength")
    entry.seed_length = int(seed) if isinstance(seed, int) and not isinstance(seed, bool) else None


def read_entry(path: Path, *, project_dir: str = "", project_display: str = "",
               dctx: zstandard.ZstdDecompressor | None = None) -> SessionEntry:
    """One SessionEntry from a log file's header alone. Never raises."""
    entry = SessionEntry(path, project_dir, project_display, dir_name=path.parent.name)
    try:
        # O_NONBLOCK: a FIFO named like a log must not hang the listing.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        entry.status, entry.header_error = "unreadable", f"cannot open: {exc.strerror or exc}"
        return entry
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            entry.status, entry.header_error = "unreadable", "not a regular file"
            return entry
        entry.size, entry.mtime = st.st_size, st.st_mtime
        encoding, line, error, torn = _read_header_line(fd, dctx or zstandard.ZstdDecompressor())
    except OSError as exc:
        entry.status, entry.header_error = "unreadable", f"cannot read: {exc.strerror or exc}"
        return entry
    finally:
        os.close(fd)
    entry.encoding, entry.torn = encoding, torn
    header = parse_header(line) if line else None
    if header is not None and isinstance(header.raw, dict) and header.raw.get("type") == "session":
        apply_header(entry, header)
        if header.rejection is not None and error is None:
            entry.status, entry.header_error = "rejected", header.rejection.message
    elif error is None:
        error = header.rejection.message if header is not None and header.rejection else "not a dsh session log"
    if error is not None:
        entry.status, entry.header_error = ("torn" if torn else "corrupt"), error
    _identity_notes(entry)
    return entry


def _identity_notes(entry: SessionEntry) -> None:
    suffix = ".jsonl.zstd" if entry.path.name.endswith(".zstd") else ".jsonl"
    if entry.encoding is not None and entry.encoding != ("zstd" if suffix == ".jsonl.zstd" else "jsonl"):
        entry.notes.append(f"file is named *{suffix} but holds {entry.encoding} data")
    if not entry.project_dir or not entry.session_id:
        return
    if entry.dir_name and encode_segment(entry.session_id) != entry.dir_name:
        entry.notes.append("header id does not match the session directory name (dsh refuses to load it)")
    if entry.cwd is None and entry.project_dir != NO_CWD:
        entry.notes.append(f"header has no cwd but the log is not under {NO_CWD}/")
    elif entry.cwd is not None and entry.cwd and project_key(entry.cwd) != entry.project_dir:
        entry.notes.append("header cwd maps to a different project directory")


def zip_entries(archive: ExportZip) -> list[SessionEntry]:
    """A SessionEntry per session member, from each member's first line only.

    ``entry.path`` is the zip, ``entry.member`` the member; use with build_tree (children
    carry parentSession) and discovery.fill_status. Raises ZipUnreadable (no session.jsonl).
    """
    from ..reading.exportzip import ZipUnreadable
    sessions = archive.members()
    out: list[SessionEntry] = []
    for member in [sessions.root, *sessions.children]:
        entry = SessionEntry(archive.path, "", archive.path.name, member=member, encoding="jsonl",
                             mtime=archive.mtime, dir_name=member.rsplit("/", 2)[-2] if "/" in member else "")
        out.append(entry)
        try:
            info = archive.info(member)
            entry.size = info.file_size
            line = archive.first_line(info)
        except ZipUnreadable as exc:
            entry.status, entry.header_error = "unreadable", exc.message
            continue
        except Exception as exc:  # a member the zip module cannot open or inflate
            entry.status, entry.header_error = "unreadable", f"member does not decompress: {exc}"
            continue
        header = parse_header(line) if line else None
        if header is not None and isinstance(header.raw, dict) and header.raw.get("type") == "session":
            apply_header(entry, header)
            if header.rejection is not None:
                entry.status, entry.header_error = "rejected", header.rejection.message
        else:
            entry.status = "corrupt"
            entry.header_error = header.rejection.message if header and header.rejection else "no header line"
    return out
