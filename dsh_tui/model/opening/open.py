"""Open a log file for viewing or checking (`open_file`, which target.py's `open_target` uses):
from the index cache when it is fresh, else decode it, diagnose it and (best effort) cache the result.

A cached log is served only for the options it was made with (plaintext limit, lenient: both
are in the entry's key) and never when its file or plaintext is over the limit in force.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Callable

import msgspec.structs
from msgspec import Struct

from . import cache
from ..reading import contextcolumns
from ..columns.calltable import CallTable
from ..diagnosing.diagnosis import Diagnosis, diagnose
from ..diagnosing.diagnosis import advance as advance_diagnosis, begin as begin_diagnosis
from ..columns.offsets import Offsets
from ..columns.perturn import TurnCounts, TurnEnds
from ..reading.tokens import TOKEN_KEYS
from ..diagnosing.pairing import pairing_from_plain, pairing_plain
from ..reading.header import Header
from ..reading.plainstore import FileStore, FrameStore
from ..reading.scanresult import ScanResult
from ..reading.session import load_session
from ..reading.sessionlog import SessionLog
from ..reading.source import RawLog, max_plain_bytes


class OpenOptions(Struct, frozen=True):
    """How to open a log (target.py's `open_target`; `open_file` for a file)."""
    lenient: bool = False  # read past a header or load check dsh would refuse
    max_plain: int | None = None  # the plaintext limit (None: $DSH_TUI_MAX_PLAIN_BYTES or the default)
    use_cache: bool = True  # read (and write) the index cache; never for a ZIP
    write_cache: bool = True  # False: the caller writes it (`save_to_cache`) when it suits it
    cancel: Any = None  # a threading.Event: the read stops with Cancelled
    progress: Callable | None = None  # progress(stage, done, total)
    before_decode: Callable | None = None  # runs only when the file must be decoded (no fresh cache)
    head_share: float | None = None  # the part of a big log read here (split.choose_split)
    early_tail: Any = None  # a split.TailHelper.early started on the file (always closed)
    # The scan's facts once the diagnosis has read them: True keeps them (a live follow then indexes
    # appends in place), False drops them as they are read (`check`), None keeps them for a log of
    # up to KEEP_FACTS_TEXT of text and drops them past it (the explorer: a big log's follow re-reads).
    keep_facts: bool | None = None


# The facts cost about half the text they come from (34 MiB for the 936k-event log's 61 MiB): kept,
# a 10M-event log's would be ~370 MiB. Below this much text they are kept for a cheap live follow.
KEEP_FACTS_TEXT = 96 << 20


def open_file(path: Path, options: OpenOptions) -> tuple[SessionLog, Diagnosis]:
    """A log file, from the index cache when it is fresh, else decoded, diagnosed and cached.
    Raises what `load_session` raises (LogUnreadable, LogRejected, Cancelled).

    ``options.write_cache=False`` leaves the writing to the caller (`save_to_cache`), e.g. a UI
    worker after the first paint, so writing never delays the answer. ``before_decode()`` runs
    only when the file must be decoded (no fresh cache), e.g. the explorer's quick look at the
    tail. ``early_tail``: used by the decode if the file is unchanged, always closed.
    """
    early_tail = options.early_tail
    handed_over = False  # load_session closes early_tail once it has it
    try:
        use_cache = options.use_cache and cache.enabled()
        if use_cache:
            cached = _from_cache(path, options.lenient, max_plain_bytes(options.max_plain))
            if cached is not None:
                return cached
        if options.before_decode is not None:
            options.before_decode()
        handed_over = True
    finally:
        if early_tail is not None and not handed_over:
            early_tail.close()
    keep = options.keep_facts
    if keep is None and _file_size(path) > KEEP_FACTS_TEXT:  # (its text is at least about as big: not kept)
        keep = False  # dropped from the first: ~50 MiB of facts made and freed left holes the rest half filled
    sink = _Diagnosing(keep)
    log = load_session(path, lenient=options.lenient, max_plain=options.max_plain, cancel=options.cancel,
                       progress=options.progress, head_share=options.head_share, early=early_tail, sink=sink)
    log.plain_limit = max_plain_bytes(options.max_plain)  # what `save_to_cache` keys the entry by
    diag = sink.diagnosis
    head = sink.head
    if keep is False or (keep is None and len(log.store) > KEEP_FACTS_TEXT) or (head is not None and head.dropped):
        log.release_facts()
    if use_cache and options.write_cache:
        save_to_cache(log, diag)
    return log, diag


class _Diagnosing:
    """The diagnosis fed as the scan goes (reading/readplan.py's `ScanSink`): begun on the first facts,
    advanced on those since at each turn (every DIGEST_BYTES of text, and while the tail helper
    reads), then made of the whole log with what it has folded so far. ``keep``: `OpenOptions.keep_facts`
    (None past the first KEEP_FACTS_TEXT: the facts are dropped as they are read)."""

    __slots__ = ("keep", "head", "diagnosis", "_scanner")

    def __init__(self, keep: bool | None) -> None:
        self.keep = keep
        self.head = None  # the diagnosis of the facts so far (diagnosis.begin)
        self.diagnosis: Diagnosis | None = None
        self._scanner = None  # the scanner whose facts ``head`` has read

    def progress(self, scanner) -> None:
        res = scanner.res
        # A new scanner: the first turn, or a read that started over (a split read whose head did not
        # end on its split reads the file again linearly): its facts begin a new diagnosis. What it
        # reads now is let go at its next turn.
        if scanner is not self._scanner:
            self._scanner = scanner
            self.head = begin_diagnosis(res.facts, res.usage_calls)
            return
        keep = self.keep
        drop = keep is False or (keep is None and len(res.rec_start) and res.rec_start[-1] > KEEP_FACTS_TEXT)
        advance_diagnosis(self.head, res.facts, res.usage_calls, drop=bool(drop))

    def done(self, log: SessionLog) -> None:
        if self._scanner is not log._scanner:  # started over and not told since: a head of the wrong read
            self.head = None
        self._scanner = None
        self.diagnosis = diagnose(log, self.head)


def _file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # (the decode says why it cannot read it)


def _from_cache(path: Path, lenient: bool, limit: int) -> tuple[SessionLog, Diagnosis] | None:
    try:
        st = os.stat(path)
        # Over the limit: the decode refuses it, with the message it always gives.
        if not stat.S_ISREG(st.st_mode) or not 0 < st.st_size <= limit or not cache.has_entry(path):
            return None
        key = cache.entry_key(path, st, plain_limit=limit, lenient=lenient)
    except OSError:
        return None
    payload = cache.load(path, key)
    return None if payload is None else from_payload(path, payload, lenient, limit)


def from_payload(path: Path, payload: dict, lenient: bool, limit: int) -> tuple[SessionLog, Diagnosis] | None:
    """The log and diagnosis a cache payload (`cache_payload`) holds, read from ``path``; None when it
    does not hold what it must, or its plaintext is over ``limit`` (the decode then refuses the file)."""
    raw, header, res, diag, plain_len = (payload.get(k) for k in ("raw", "header", "res", "diag", "plain_len"))
    if not (isinstance(raw, RawLog) and isinstance(header, Header) and isinstance(res, ScanResult)
            and isinstance(diag, Diagnosis) and type(plain_len) is int and 0 <= plain_len <= limit):
        return None
    raw.path = path
    res.usage_calls = CallTable()  # cached as {} (the diagnosis is): the empty table consumers read
    res.context = contextcolumns.loads(payload.get("context"))  # None: context/ reads the events
    if raw.encoding == "zstd":
        store = FrameStore(path, plain_len, raw.frame_offsets, raw.frame_plain, raw.frames_end,
                           raw.torn.offset if raw.torn is not None else None, raw.size)
    else:
        store = FileStore(path, plain_len)
    try:
        diag.turn_ends = TurnEnds.from_plain(diag.turn_ends)
        diag.usage.turns = TurnCounts.from_plain(diag.usage.turns, len(TOKEN_KEYS))
        pairing_from_plain(diag.pairing)
    except ValueError:
        return None
    log = SessionLog(raw, header, res, lenient=lenient, store=store)
    log.from_cache = True
    log.plain_limit = limit
    log.derived = payload.get("derived")  # (checked where it is read: context/export.py)
    return log, diag


def cache_payload(log: SessionLog, diag: Diagnosis, derived: dict | None = None) -> dict:
    """What the cache keeps of an opened log: its index and diagnosis, not its text or facts; and
    ``derived``, what `check` read of it alone (context/export.py's `derived`), as it is."""
    raw = msgspec.structs.replace(log.raw, plain=b"")
    starts = log.res.rec_start
    res = msgspec.structs.replace(log.res, facts=[], usage_calls={}, context=None,  # the diagnosis is cached instead
                                  rec_start=starts.plain() if type(starts) is Offsets else starts)
    # its timing, turn ends, pairs and usage per turn, in the cache's form
    diag = msgspec.structs.replace(diag, clock=diag.timing.plain(), turn_ends=diag.turn_ends.plain(),
                                   pairing=pairing_plain(diag.pairing),
                                   usage=msgspec.structs.replace(diag.usage, turns=diag.usage.turns.plain()))
    return {"raw": raw, "header": log.header, "res": res, "diag": diag, "plain_len": len(log.store),
            "context": contextcolumns.dumps(log.res.context), "derived": derived}


def save_to_cache(log: SessionLog, diag: Diagnosis, derived: dict | None = None) -> None:
    """Cache a freshly decoded log (best effort; small logs decode faster than a cache read).
    The entry is keyed by the options it was opened with (`open_file` notes the plaintext limit)."""
    path = log.path
    if log.from_cache or not cache.enabled() or len(log.store) < 256 * 1024:
        return
    limit = log.plain_limit
    try:
        key = cache.entry_key(path, plain_limit=max_plain_bytes() if limit is None else limit,
                              lenient=log.lenient)
    except OSError:
        return
    raw = log.raw
    if (key["size"], key["mtime_ns"], key["dev"], key["ino"]) != (raw.size, raw.mtime_ns, raw.dev, raw.ino):
        return  # the file changed (or was replaced) since it was read: do not cache a mismatched index
    cache.save(path, key, cache_payload(log, diag, derived))
