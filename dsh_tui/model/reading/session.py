"""Reading a log into a SessionLog (sessionlog.py): the file opened and checked, how to read it
planned once (readplan.py: linear, or split across a forked helper), its text fed to the scan, and
the log returned with its plaintext kept or left to a frame store. `load_session` is the way in.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import zstandard

from .header import Header, Rejection, parse_header
from .gcpause import gc_paused
from .plainstore import MemoryStore
from .readplan import CallbackSink, LinearReader, Reader, ReadPlan, ScanSink
from .scan import Scanner
from .filewindow import FileBytes
from .sessionlog import SessionLog, file_store
from .source import HEAD_PROBE, LogUnreadable, RawLog, iter_lines, iter_plain, looks_like_jsonl, open_log

if TYPE_CHECKING:  # (imported where a file is read: an index from the cache needs no helper's modules)
    from . import split


DIGEST_BYTES = 8 << 20  # text indexed between two turns of the caller's sink (`ScanSink.progress`; a split read's head too)


class LogRejected(LogUnreadable):
    """The first line is not a dsh session header at all."""


def load_session(path: str | os.PathLike, *, lenient: bool = False, max_plain: int | None = None,
                 cancel=None, progress=None, parallel: bool | None = None, while_waiting=None,
                 head_share: float | None = None, early: split.TailHelper | None = None,
                 sink: ScanSink | None = None) -> SessionLog:
    """Read, decode and index a log. Raises LogUnreadable / LogRejected / Cancelled.

    The file is read a window at a time and its text is not kept: the index says where each record
    is, and the views decode the frames (or read the lines) they show (plainstore.py). The header is
    checked from the file's first bytes before anything else is decoded. A header that dsh would
    reject (missing delegationDepth, other version, ...) still yields a SessionLog with
    ``header.rejection`` set; callers refuse it unless ``lenient``. How it is read (linear, or split
    with a forked helper reading the tail) is planned once (readplan.py's `plan_read`): ``parallel``
    forces it (None: the file's size decides), ``head_share`` is the part of a big log read here
    (`split.choose_split`), ``early`` a `split.TailHelper.early` started on this path, used if the
    file is unchanged (always closed). ``sink`` (readplan.py's `ScanSink`): told the facts so far
    every DIGEST_BYTES of text indexed and while the tail helper reads (the caller's diagnosis goes
    on), then given the log; ``while_waiting(scanner)``, a bare callback, is its ``progress``.
    """
    if sink is None and while_waiting is not None:
        sink = CallbackSink(while_waiting)
    try:
        raw, fb, limit = open_log(path, max_plain=max_plain)
    except BaseException:
        if early is not None:
            early.close()
        raise
    try:
        _check_head(raw, fb)
        plan = plan_read(raw, fb, limit, lenient=lenient, cancel=cancel, progress=progress, parallel=parallel,
                         head_share=head_share, early=early)
        log = _read_file(raw, fb, plan, sink)
    except BaseException:
        if early is not None:
            early.close()
        raise
    finally:
        fb.close()
    if sink is not None:
        sink.done(log)
    return log


def _read_file(raw: RawLog, fb: FileBytes, plan: ReadPlan, sink: ScanSink | None) -> SessionLog:
    from . import split
    try:
        return read_log(raw, reader_for(plan, raw, fb), plan, sink)
    except split.SplitMissed:  # a frame crossed the chosen split (crafted input): read it linearly
        linear = plan._replace(split=None, early=None)
        raw2, fb2, _limit = open_log(raw.path, max_plain=plan.limit)
        try:
            return read_log(raw2, reader_for(linear, raw2, fb2), linear, sink)
        finally:
            fb2.close()


def plan_read(raw: RawLog, fb: FileBytes, limit: int, *, lenient: bool = False, cancel=None, progress=None,
              parallel: bool | None = None, head_share: float | None = None,
              early: split.TailHelper | None = None) -> ReadPlan:
    """The one place that decides a linear or a split read of a file (its text is not kept). ``early``
    is closed here unless the plan uses it; ``parallel``: None lets the file's size decide."""
    from . import split
    from .forked import can_fork
    report = None if progress is None else (lambda done, total: progress("decode", done, total))
    linear = ReadPlan(lenient, limit, cancel, report, keep_plain=False)
    if raw.encoding == "jsonl":  # the file is the text: its lines are indexed as they are read
        if early is not None:
            early.close()
        return linear
    tail = early.plan(cancel) if early is not None else None
    if tail is not None and ((tail.size, tail.mtime_ns) != (raw.size, raw.mtime_ns) or parallel is False):
        early.close()  # the file changed since the helper read it (a live log), or no split is wanted
        tail = None
    if tail is not None:  # the early helper's split: it has been reading the tail since before we began
        return ReadPlan(lenient, limit, cancel, report, keep_plain=False, split=tail.split, early=early)
    if not can_fork() or not (split.wanted(len(fb)) if parallel is None else parallel):
        return linear  # one core, a small file, or a thread running (no fork from a threaded process)
    at = split.choose_split(fb, head_share)
    return linear if at is None else ReadPlan(lenient, limit, cancel, report, keep_plain=False, split=at)


def reader_for(plan: ReadPlan, raw: RawLog, fb: FileBytes) -> Reader:
    """The reader of a file that follows ``plan`` (it owns ``plan.early``: closed by its `close`)."""
    if plan.split is not None:
        from .split import SplitReader
        return SplitReader(plan, raw, fb)
    if raw.encoding == "jsonl":
        return LinearReader(iter_lines(raw, fb, progress=plan.report, cancel=plan.cancel))
    # Frames are indexed as they are decoded (a decode thread was measured slower: GIL contention;
    # a big log's second half goes to a forked helper), and the plaintext is not kept: the views
    # decode the few frames they show.
    return LinearReader(iter_plain(raw, fb, plan.limit, progress=plan.report, cancel=plan.cancel))


def _check_head(raw: RawLog, fb: FileBytes) -> None:
    """Refuse a file whose first line is no session header from its first bytes, before anything
    else is decoded: a small file of 4 GiB of zeros says so in its first kilobytes. Only a first
    line that ends within HEAD_PROBE, or that cannot open a JSON object, is judged here; anything
    else is left to the read (which checks the header again, with the same words)."""
    head = fb.read(0, HEAD_PROBE)
    if raw.encoding == "zstd":
        try:  # the first frame's first bytes only, whatever the frame claims to hold
            reader = zstandard.ZstdDecompressor().stream_reader(head, read_across_frames=False)
            head = reader.read(HEAD_PROBE)
        except zstandard.ZstdError:
            return  # the read reports the damage
    nl = head.find(b"\n")
    if nl >= 0:
        _checked_header(raw, head[:nl])
    elif head and not looks_like_jsonl(head):
        raise LogRejected("HEADER_NOT_JSON", f"{raw.path}: first line is not JSON: not a dsh session header")


def session_from_raw(raw: RawLog, *, lenient: bool = False, cancel=None) -> SessionLog:
    """Index a RawLog whose ``plain`` already holds the whole decoded text (no file access).

    Used for logs that do not come from a file of their own (a member of a web
    export ZIP). The caller sets ``raw.torn`` for a partial last line.
    """
    return read_log(raw, LinearReader(iter((raw.plain,))), ReadPlan(lenient, cancel=cancel), None)


def read_log(raw: RawLog, reader: Reader, plan: ReadPlan, sink: ScanSink | None) -> SessionLog:
    """Index what ``reader`` reads as ``plan`` says (the reader is always closed: no helper is left)."""
    with gc_paused():
        try:
            return _build(raw, reader, plan, sink)
        finally:
            reader.close()


def _build(raw: RawLog, reader: Reader, plan: ReadPlan, sink: ScanSink | None) -> SessionLog:
    """Feed the reader's chunks to a Scanner, then let it index the rest (a split read's tail). Without
    ``plan.keep_plain`` the plaintext is not held: a FrameStore decodes the frames a view needs from
    the file instead."""
    keep_plain = plan.keep_plain
    digest = None if sink is None else sink.progress  # a turn every DIGEST_BYTES of text
    out: bytes | bytearray | None = None
    pending = bytearray()  # text before the header line is complete (when not kept)
    produced = 0
    scanner = None
    header = None
    digested = 0  # text indexed when ``digest`` last ran
    for chunk in reader.chunks():
        base = produced
        produced += len(chunk)
        if keep_plain:
            plain = raw.encoding == "jsonl" or chunk is raw.plain  # the file's bytes, or a ZIP member's
            if out is None and isinstance(chunk, (bytes, bytearray)) and plain:
                out = chunk  # no copy for plain files (a bytearray: a file over 1 GiB, read into one)
            else:
                if not isinstance(out, bytearray):
                    out = bytearray(out or b"")
                out += chunk
        if scanner is None:
            if not keep_plain:
                pending += chunk
            buf = out if keep_plain else pending
            first_nl = buf.find(b"\n")
            if first_nl < 0:
                continue
            header = _checked_header(raw, bytes(buf[:first_nl]))
            scanner = Scanner(first_nl + 1, header.session_id, cancel=plan.cancel, where=raw.path)
            scanner.feed(buf, 0, first_nl + 1)
            pending = bytearray()
            reader.started(raw, header.session_id)
        else:
            scanner.feed(chunk, base)
            if digest is not None and produced - digested >= DIGEST_BYTES:
                digested = produced
                digest(scanner)
    produced = reader.rest(raw, scanner, produced, sink)
    if scanner is None:  # no complete header line at all
        buf = (out or b"") if keep_plain else pending
        if raw.torn is not None and not buf:
            raise LogRejected("torn-header", f"{raw.path}: the header frame is torn "
                              f"({raw.torn.unreadable_bytes} bytes unreadable); nothing to read")
        header = _checked_header(raw, bytes(buf))
        scanner = Scanner(len(buf), header.session_id, where=raw.path)
    if keep_plain:
        raw.plain = out if out is not None else b""
        store = MemoryStore(raw.plain)
    else:
        raw.plain = b""
        store = file_store(raw, produced)
    log = SessionLog(raw, header, scanner.finish(), lenient=plan.lenient, store=store)
    log._scanner = scanner
    return log


def _checked_header(raw: RawLog, line: bytes) -> Header:
    header = parse_header(line if line else None)
    if header.raw is None or header.raw.get("type") != "session":
        msg = header.rejection.message if header.rejection else "not a dsh session log"
        raise LogRejected(header.rejection.code if header.rejection else "NOT_A_SESSION_HEADER", f"{raw.path}: {msg}")
    if raw.encoding == "zstd" and not raw.header_frame_ok and header.rejection is None:
        header.rejection = Rejection("HEADER_FRAME", "corrupt Zstandard session log: first frame is not exactly "
                                     "one header line")  # dsh's own words
    return header
