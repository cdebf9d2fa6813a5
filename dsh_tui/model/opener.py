"""Open a log for viewing or checking: from the index cache when it is fresh,
else decode it, diagnose it and (best effort) cache the result."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from . import cache
from .diagnosis import Diagnosis, diagnose
from .diagnosis import advance as advance_diagnosis, begin as begin_diagnosis
from .exportzip import is_export_zip, load_zip_session
from .plainstore import FileStore, FrameStore
from .session import SessionLog, load_session


def open_session(path: str | os.PathLike, *, lenient: bool = False, max_plain: int | None = None,
                 cancel=None, progress=None, use_cache: bool = True,
                 write_cache: bool = True, before_decode=None, head_share: float | None = None,
                 early_tail=None) -> tuple[SessionLog, Diagnosis]:
    """Raises what `load_session` raises (LogUnreadable, LogRejected, Cancelled).

    ``write_cache=False`` leaves the writing to the caller (`save_to_cache`), e.g.
    a UI worker after the first paint, so writing never delays the answer.
    ``before_decode()`` runs only when the file must be decoded (no fresh cache),
    e.g. the explorer's quick look at the tail. ``early_tail``: a `TailHelper.early`
    started on ``path``; used by the decode if the file is unchanged, always closed.
    """
    path = Path(path)
    handed_over = False  # load_session closes early_tail once it has it
    try:
        if is_export_zip(path):  # the web UI's export: read in memory, nothing to follow or cache
            log = load_zip_session(path, lenient=lenient, max_plain=max_plain, cancel=cancel, progress=progress)
            log.followable = False
            return log, diagnose(log)
        use_cache = use_cache and cache.enabled()
        if use_cache:
            cached = _from_cache(path, lenient)
            if cached is not None:
                return cached
        if before_decode is not None:
            before_decode()
        handed_over = True
    finally:
        if early_tail is not None and not handed_over:
            early_tail.close()
    head: list = []  # the diagnosis of the head's facts, begun while the tail is still being read

    def while_waiting(scanner) -> None:
        if head:
            advance_diagnosis(head[0], scanner.res.facts, scanner.res.usage_calls)
        else:
            head.append(begin_diagnosis(scanner.res.facts, scanner.res.usage_calls))
    log = load_session(path, lenient=lenient, max_plain=max_plain, cancel=cancel, progress=progress,
                       head_share=head_share, while_waiting=while_waiting, early=early_tail)
    diag = diagnose(log, head[0] if head else None)
    if use_cache and write_cache:
        save_to_cache(log, diag)
    return log, diag


def _from_cache(path: Path, lenient: bool) -> tuple[SessionLog, Diagnosis] | None:
    try:
        st = os.stat(path)
        if not os.path.isfile(path) or st.st_size == 0 or not cache.has_entry(path):
            return None
        key = cache.file_key(path, st)
    except OSError:
        return None
    payload = cache.load(path, key)
    if payload is None:
        return None
    raw, header, res, diag = payload["raw"], payload["header"], payload["res"], payload["diag"]
    raw.path = path
    if raw.encoding == "zstd":
        store = FrameStore(path, payload["plain_len"], raw.frame_offsets, raw.frame_plain, raw.frames_end,
                           raw.torn.offset if raw.torn is not None else None, raw.size)
    else:
        store = FileStore(path, payload["plain_len"])
    log = SessionLog(raw, header, res, lenient=lenient, store=store)
    log.from_cache = True
    return log, diag


def save_to_cache(log: SessionLog, diag: Diagnosis) -> None:
    """Cache a freshly decoded log (best effort; small logs decode faster than a cache read)."""
    path = log.path
    if log.from_cache or not cache.enabled() or len(log.store) < 256 * 1024:
        return
    try:
        key = cache.file_key(path)
    except OSError:
        return
    if key["size"] != log.raw.size or key["mtime_ns"] != log.raw.mtime_ns:
        return  # the file changed while it was read: do not cache a mismatched index
    raw = dataclasses.replace(log.raw, plain=b"")
    res = dataclasses.replace(log.res, facts=[], usage_calls={})  # the diagnosis is cached instead
    cache.save(path, key, {"raw": raw, "header": log.header, "res": res, "diag": diag,
                           "plain_len": len(log.store)})
