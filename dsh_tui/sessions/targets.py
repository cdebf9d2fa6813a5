"""What the explorer and `check` open: a log file, an export ZIP (its root session) or one member
of it, written ``<zip>!<member>`` as the model names it (`SessionLog.path`). `load_target` reads
any of them (ZIP members in memory, never unpacked). Textual-free."""

from __future__ import annotations

import os
from pathlib import Path

from ..model.reading.entry import SessionEntry
from ..model.reading.exportzip import ROOT_MEMBER, is_export_zip, load_zip_session
from ..model.reading.session import SessionLog, load_session


def split_target(path: str | os.PathLike) -> tuple[Path, str | None]:
    """``x.zip!subagents/a/session.jsonl`` -> (x.zip, member); a plain path -> (path, None)."""
    text = os.fspath(path)
    if "!" in text and not os.path.exists(text):
        base, member = text.split("!", 1)
        if member and is_export_zip(base):
            return Path(base), member
    return Path(text), None


def entry_target(entry: SessionEntry) -> Path:
    """What to open for a listed session (a file, or ``<zip>!<member>``)."""
    if entry.member is None or entry.member == ROOT_MEMBER:
        return Path(entry.path)
    return Path(f"{os.fspath(entry.path)}!{entry.member}")


def load_target(path: str | os.PathLike, *, lenient: bool = False, max_plain: int | None = None, cancel=None,
                progress=None) -> SessionLog:
    """`load_session` for files, `load_zip_session` for export ZIPs and their members (not followable)."""
    base, member = split_target(path)
    if member is not None or is_export_zip(base):
        log = load_zip_session(base, member, lenient=lenient, max_plain=max_plain, cancel=cancel,
                               progress=progress)
        log.followable = False
        return log
    return load_session(base, lenient=lenient, max_plain=max_plain, cancel=cancel, progress=progress)


def is_zip_target(path: str | os.PathLike) -> bool:
    """True for an export ZIP or ``<zip>!<member>`` (read with `load_target`, not `load_session`)."""
    base, member = split_target(path)
    return member is not None or is_export_zip(base)
