"""SessionLog: the decoded log with random access to any logical event.

Built once by `load_session`; the TUI and `check` only read it. Events are
addressed by index (0..len-1, packed rows expanded); seq equals the index
unless the file has gaps, which `seq_of`/`index_of_seq` account for.
"""

from __future__ import annotations

import bisect
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from msgspec import Struct
import zstandard

from ..columns.calltable import CallTable
from .damage import damage_refusal, loaded_events
from .header import Header, Rejection, parse_header
from .restore import RESTORE, Problem, Refusals, fold_problem, without_content
from .jsonparse import parse_json
from .legacy import upgrade
from .gcpause import gc_paused
from .plainstore import FileStore, FrameStore, MemoryStore
from .readplan import CallbackSink, LinearReader, Reader, ReadPlan, ScanSink
from .scan import Scanner
from .scanresult import ScanResult
from .search import first_offset, last_offset, needle_key
from .filewindow import FileBytes
from .source import (HEAD_PROBE, LogUnreadable, RawLog, iter_lines, iter_plain, looks_like_jsonl, max_plain_bytes,
                     open_file_bytes, open_log)
from .vocabulary import PACKED_ROWS

if TYPE_CHECKING:  # (imported where a file is read: an index from the cache needs no helper's modules)
    from . import split


DIGEST_BYTES = 8 << 20  # text indexed between two turns of the caller's sink (`ScanSink.progress`; a split read's head too)


class LogRejected(LogUnreadable):
    """The first line is not a dsh session header at all."""


class EventView(Struct):
    index: int
    record: int
    seq: int
    type: str  # as stored (packed members show as assistant/chunk)
    time: int | None
    event: dict  # logical event; legacy shapes upgraded, packed members expanded
    packed: tuple[str, int, int] | None  # (row tag, member k, members m)
    legacy: str | None
    raw: bytes  # the physical record (a packed row for its members)
    line: int
    lenient: bool = False


class SessionLog:
    def __init__(self, raw: RawLog, header: Header, res: ScanResult, *, lenient: bool = False,
                 store=None) -> None:
        self.raw = raw
        self.header = header
        self.res = res
        self.lenient = lenient
        self.store = store if store is not None else MemoryStore(raw.plain)
        self.from_cache = False
        self.derived = None  # from the index cache: what a `check` read of this log alone (context/export.py)
        self._scanner: Scanner | None = None  # kept to index appended records (live follow)
        self.followable = True  # False for a log read from a ZIP member
        self.plain_limit: int | None = None  # the plaintext limit it was read under (the index cache keys on it)
        self.parse_record = lru_cache(maxsize=4096)(self._parse_record)
        self._rejection_key: tuple | None = None
        self._restore_rejection: Rejection | None = None

    # -- sizes and identity -------------------------------------------------
    def __len__(self) -> int:
        return self.res.event_end()

    @property
    def path(self) -> Path:
        return self.raw.path

    @property
    def records(self) -> int:
        return len(self.res.rec_start)

    @property
    def session_id(self) -> str | None:
        return self.header.session_id

    @property
    def rejection(self) -> Rejection | None:
        """Why dsh would refuse to load this log, or None: its header (header.py), else the first
        problem of its load's checks beyond the header (restore.py: vocabulary, legacy shapes, unknown
        types, envelopes, message shapes, the surface fold). Damage (corruption, a torn tail) is
        reported apart: it gives a partial view, not a refusal."""
        if self.header.rejection is not None:
            return self.header.rejection
        res = self.res
        key = (id(res), len(res.surface_seqs), len(res.refusals.first))
        if self._rejection_key != key:  # computed once per index (a followed log's grows)
            self._rejection_key, self._restore_rejection = key, self._refused_by_restore()
        return self._restore_rejection

    def _refused_by_restore(self) -> Rejection | None:
        res = self.res
        if res.projected:
            return None
        damage = damage_refusal(self)  # dsh's scan refuses damage (damage.py) before its load checks run
        if damage is not None:
            return damage
        loaded = loaded_events(self)  # its checks see only what it loads: nothing past a resume cut
        refusals = Refusals()
        for p in res.refusals.first.values():
            if p.index < loaded:
                refusals.note(p)
        folded = fold_problem(res.surface_seqs, res.replacements, self._rest_of_result)
        if folded is not None and folded[0] < loaded:
            index, seq, problem = folded
            refusals.note(Problem(RESTORE, 0, index, seq, "INVALID_SURFACE", f"event at seq {seq}: {problem}"))
        p = refusals.decisive()
        return None if p is None else Rejection(p.code, p.message)

    def _rest_of_result(self, seq: int):
        """A tool/result's data without its content (restore.fold_problem reads two per rewrite)."""
        i = self.index_of_seq(seq)
        if i is None:
            return None
        ev = self.event(i).event
        return without_content(ev.get("data")) if ev.get("type") == "tool/result" else None

    @property
    def accepted(self) -> bool:
        return self.rejection is None

    @property
    def verified(self) -> bool:
        """False when the log was read past a rejection (--lenient)."""
        return self.accepted

    @property
    def whole(self) -> bool:
        """True when nothing was lost or skipped while decoding, and every frame's checksum held.
        A frame without a checksum decodes, but nothing says its bytes are the ones dsh wrote (dsh
        always writes one): like a torn tail, what it shows cannot be trusted alone."""
        r = self.res
        return (self.accepted and not r.gaps and self.raw.torn is None and not self.raw.corruption
                and not r.corruption and not self.raw.unchecked_frames
                and not any(not u.ignorable for u in r.unknown.values()))

    @property
    def corruption_count(self) -> int:
        """Every corruption found: the frames', the records' kept and the records' only counted."""
        return len(self.raw.corruption) + len(self.res.corruption) + self.res.corruption_dropped

    # -- live follow ------------------------------------------------------------
    def release_facts(self) -> None:
        """Let go of what only the diagnosis reads (the facts and per-call usage) once it is made. The
        log can no longer index an append in place: a live follow re-reads it, as one from the cache."""
        self.res.facts = []
        self.res.usage_calls = CallTable()
        self._scanner = None

    def refresh(self, *, max_plain: int | None = None) -> int:
        """Index what was appended to the file since it was read.

        Returns the number of new events, 0 when nothing changed, or -1 when the
        file was truncated, replaced or a torn frame we had partly read changed:
        the caller must re-open it. Never writes; raises LogUnreadable.
        """
        raw = self.raw
        if not self.followable:
            return 0
        try:
            st = os.stat(raw.path)
        except OSError as exc:
            raise LogUnreadable("os-error", f"cannot stat {raw.path}: {exc.strerror or exc}") from None
        if self._scanner is None or st.st_size < raw.size:
            return -1
        if st.st_size == raw.size:
            return 0
        torn = raw.torn
        if torn is not None and torn.recovered_records:
            return -1  # records of a torn frame were indexed; the completed frame repeats them
        limit = max_plain_bytes(max_plain)
        fb, st = open_file_bytes(raw.path, limit)
        before = len(self)
        produced = len(self.store)
        try:
            if raw.encoding == "jsonl":
                start = torn.offset if torn is not None else produced
                raw.torn = None
                chunks: Iterator[bytes] = iter_lines(raw, fb, start=start)
            else:
                start = torn.offset if torn is not None else raw.frames_end
                if torn is not None:  # the torn frame's entry is re-made when it is read again
                    del raw.frame_offsets[-1], raw.frame_plain[-1]
                    raw.torn = None
                chunks = iter_plain(raw, fb, limit, start=start, produced=produced)
            with gc_paused():
                for chunk in chunks:
                    self._scanner.feed(chunk, produced)
                    produced += len(chunk)
        finally:
            fb.close()
        raw.size, raw.mtime_ns = fb.size, st.st_mtime_ns  # the stat that bounded the read
        self.res = self._scanner.finish()
        self.store = file_store(raw, produced)
        self.parse_record.cache_clear()
        return len(self) - before

    # -- record and event access ----------------------------------------------
    def record_bytes(self, r: int) -> bytes:
        return self.store.slice(self.res.rec_start[r], self.res.end_of(r))

    def line_of_record(self, r: int) -> int:
        return r + 2 + self.res.lines_skipped_before(r)  # the header is line 1

    def _parse_record(self, r: int) -> tuple[Any, bool]:
        return parse_json(self.record_bytes(r))

    def record_of(self, i: int) -> int:
        return self.res.record_of(i)

    def type_of(self, i: int) -> str:
        tid = self.res.type_id(i)
        if tid < 255:
            return self.res.types[tid]
        obj, _ = self.parse_record(self.res.record_of(i))
        return "assistant/chunk" if obj.get("type") in PACKED_ROWS else obj.get("type", "?")

    def seq_of(self, i: int) -> int:
        shifts = self.res.seq_shift
        if not shifts:
            return i
        k = bisect.bisect_right(shifts, (i, float("inf"))) - 1
        return i + shifts[k][1] if k >= 0 else i

    def index_of_seq(self, seq: int) -> int | None:
        """The first event index carrying ``seq`` (None when no event has it)."""
        bounds = [0] + [s[0] for s in self.res.seq_shift] + [len(self)]
        deltas = [0] + [s[1] for s in self.res.seq_shift]
        for k, delta in enumerate(deltas):
            i = seq - delta
            if bounds[k] <= i < bounds[k + 1]:
                return i
        return None

    def event(self, i: int) -> EventView:
        if not 0 <= i < len(self):
            raise IndexError(i)
        r = self.res.record_of(i)
        obj, lenient = self.parse_record(r)
        raw = self.record_bytes(r)
        line = self.line_of_record(r)
        seq = self.seq_of(i)
        row = PACKED_ROWS.get(obj.get("type")) if isinstance(obj, dict) else None
        if row is not None:
            k = i - self.res.first_event(r)
            ev, m = _expand_member(obj, row, k, seq)
            return EventView(i, r, seq, "assistant/chunk", ev.get("time"), ev, (obj["type"], k, m), None, raw, line, lenient)
        etype = obj.get("type", "?")
        data = obj.get("data")
        new_type, new_data, tag = upgrade(etype, data, seq, self.session_id)
        ev = obj if tag is None else {**obj, "type": new_type, "data": new_data}
        time = obj.get("time") if isinstance(obj.get("time"), int) else None
        return EventView(i, r, seq, etype, time, ev, None, tag, raw, line, lenient)

    def record_index_at(self, offset: int) -> int:
        return max(0, self.res.record_at(offset))

    def search(self, needle: str, start: int, *, backward: bool = False) -> int | None:
        """Index of the next event (after/before ``start``) whose record holds ``needle``.

        Case-insensitive (ASCII) over the raw text of the whole log, so it finds types, tool
        names, callIds and message text anywhere, not only on screen. The text is read a window
        at a time from ``start`` on (search.py), never held whole.
        """
        if not needle or not len(self):
            return None
        key = needle_key(needle)
        cur_rec = self.res.record_of(min(max(start, 0), len(self) - 1))
        if not backward:
            lo = self.res.end_of(cur_rec) if start >= 0 else self.res.body_start
            at = first_offset(self.store, key, lo, len(self.store))
        else:
            at = last_offset(self.store, key, self.res.body_start, self.res.rec_start[cur_rec])
        return None if at is None else self._first_event_of_record(self.record_index_at(at), needle)

    def _first_event_of_record(self, r: int, needle: str) -> int:
        first = self.res.first_event(r)
        obj, _ = self.parse_record(r)
        row = PACKED_ROWS.get(obj.get("type")) if isinstance(obj, dict) else None
        if row is not None:  # land on the member that holds the text
            members = obj.get("data", {}).get(row[1]) or []
            low = needle.lower()
            for k, text in enumerate(members):
                if isinstance(text, str) and low in text.lower():
                    return first + k
        return first


def _expand_member(row: dict, spec: tuple[str, str], k: int, seq: int) -> tuple[dict, int]:
    d = row.get("data") if isinstance(row.get("data"), dict) else {}
    members = d.get(spec[1]) if isinstance(d.get(spec[1]), list) else [None]
    dt = d.get("dt") if isinstance(d.get("dt"), list) else []
    time0 = row.get("time0")
    time = None
    if isinstance(time0, int):
        time = time0 + sum(x for x in dt[:k] if isinstance(x, int) and not isinstance(x, bool))
    value = members[k] if k < len(members) else None
    if spec[0] == "tool-call-delta":
        chunk = {"type": "tool-call-delta", "index": d.get("index"), "id": d.get("id")}
        if "name" in d:
            chunk["name"] = d["name"]
        chunk["argumentsDelta"] = value
    else:
        chunk = {"type": spec[0], "index": d.get("index"), "text": value}
    ev = {"type": "assistant/chunk", "seq": seq, "time": time,
          "data": {"turn": d.get("turn"), "step": d.get("step"), "chunk": chunk}}
    return ev, len(members)


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


def file_store(raw: RawLog, produced: int):
    """Where a file's text is read back from: its lines (JSONL) or its frames (zstd)."""
    if raw.encoding == "jsonl":
        return FileStore(raw.path, produced)
    return FrameStore(raw.path, produced, raw.frame_offsets, raw.frame_plain, raw.frames_end,
                      raw.torn.offset if raw.torn is not None else None, raw.size)


def _checked_header(raw: RawLog, line: bytes) -> Header:
    header = parse_header(line if line else None)
    if header.raw is None or header.raw.get("type") != "session":
        msg = header.rejection.message if header.rejection else "not a dsh session log"
        raise LogRejected(header.rejection.code if header.rejection else "NOT_A_SESSION_HEADER", f"{raw.path}: {msg}")
    if raw.encoding == "zstd" and not raw.header_frame_ok and header.rejection is None:
        header.rejection = Rejection("HEADER_FRAME", "corrupt Zstandard session log: first frame is not exactly "
                                     "one header line")  # dsh's own words
    return header
