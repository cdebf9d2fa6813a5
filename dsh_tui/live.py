"""Beyond one file, Textual-free: what the explorer opens, follows and marks.

* Targets: a log file, an export ZIP (its root session) or one member of it,
  written ``<zip>!<member>`` as the model names it (`SessionLog.path`);
  `load_target` reads any of them (ZIP members in memory, never unpacked).
* `follow_step`: one live-follow poll: index what was appended
  (`SessionLog.refresh`), re-open when refresh says so (-1, or a log read from
  the index cache), and re-diagnose. Runs in a worker thread while the UI keeps
  reading the same log object, so the growing plaintext is first copied into
  a fresh buffer: the UI's store keeps the old one, which never changes.
* `seed_boundary`: the last ``session/end-seed`` event (events before it came
  from the seed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .model.diagnosis import Diagnosis, diagnose
from .model.entry import SessionEntry
from .model.exportzip import ROOT_MEMBER, is_export_zip, load_zip_session
from .model.session import SessionLog, load_session
from .model.source import LogUnreadable

END_SEED = "session/end-seed"


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


def seed_boundary(log: SessionLog) -> int | None:
    """Index of the last ``session/end-seed`` event, or None."""
    res = log.res
    try:
        tid = res.types.index(END_SEED)
    except ValueError:
        return None
    if tid >= 255:
        return None
    k = res.ev_type.tobytes().rfind(bytes([tid]))
    return k if k >= 0 else None


@dataclass
class FollowStep:
    source: SessionLog  # the log that was polled
    log: SessionLog  # the log to show: ``source`` grown in place, or a re-opened one
    diag: Diagnosis
    added: int  # new events (for a re-open: the difference in length)
    reopened: bool


def follow_step(log: SessionLog, *, lenient: bool = False, max_plain: int | None = None,
                cancel=None) -> FollowStep | None:
    """One poll. None when the file did not change (or the log cannot be followed).

    Raises LogUnreadable (the file vanished or became unreadable) and Cancelled.
    """
    if not log.followable:
        return None
    path = log.path
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise LogUnreadable("os-error", f"cannot stat {path}: {exc.strerror or exc}") from None
    if size == log.raw.size:
        return None
    before = len(log)
    added = -1
    if not log.from_cache and getattr(log, "_scanner", None) is not None:
        if isinstance(log.raw.plain, bytearray):
            # refresh() appends in place; the UI thread keeps the buffer it is reading.
            log.raw.plain = bytearray(log.raw.plain)
        added = log.refresh(max_plain=max_plain)
    if added == -1:  # truncated, replaced, a torn frame we partly read changed, or a cached index
        fresh = load_session(path, lenient=lenient, max_plain=max_plain, cancel=cancel)
        return FollowStep(log, fresh, diagnose(fresh), len(fresh) - before, True)
    return FollowStep(log, log, diagnose(log), added, False)


def is_zip_target(path: str | os.PathLike) -> bool:
    """True for an export ZIP or ``<zip>!<member>`` (read with `load_target`, not `load_session`)."""
    base, member = split_target(path)
    return member is not None or is_export_zip(base)
